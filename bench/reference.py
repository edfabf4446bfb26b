"""The baselines every recall claim is compared with: those of the reference harness
(``../shared/bench/retrieval_check.py`` beside the repository, or ``$GRAPHMEM_REFERENCE``)
when it is there, so the benchmarks print the same BM25, dense and RRF figures the
reference check prints; otherwise the project's own (``baselines.py``: Okapi BM25 over
Lucene's stop words, dense over graphmem's embedder, their RRF), named as such in the table.

Each baseline is a retriever over one conversation's items: ``ingest(items)`` then
``rank(query, k)``, the ids of the best ``k`` items.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import baselines

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "bench" / "retrieval_check.py"
DENSE_KIND = {"wordllama": "wordllama", "minilm": "minilm-onnx"}


def harness() -> ModuleType | None:
    """The reference harness module, or None when it is not beside the repository."""
    path = Path(os.environ.get("GRAPHMEM_REFERENCE") or DEFAULT)
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("retrieval_check", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("retrieval_check", module)
    spec.loader.exec_module(module)
    return module


class _Own:
    """The project's own baseline over (id, text) items, when the reference is absent or lacks the model."""

    def __init__(self, kind: str, embedder: Any) -> None:
        self.kind, self.embedder = kind, embedder

    def ingest(self, items: Sequence[tuple[str, str]]) -> None:
        self.ids = [i for i, _ in items]
        texts = [t for _, t in items]
        self.bm25 = baselines.BM25(texts)
        self.vectors = self.embedder.embed_documents(texts) if self.kind != "bm25" and self.embedder else []

    def rank(self, query: str, k: int) -> list[str]:
        lexical = self.bm25.rank(query)
        if self.kind == "bm25" or not self.vectors:
            order = lexical
        else:
            dense = baselines.dense_rank(self.embedder.embed_query(query), self.vectors)
            order = dense if self.kind == "dense" else baselines.rrf(lexical, dense)
        return [self.ids[i] for i in order[:k]]


class _Reference:
    """One of the reference harness's retrievers over (id, text) items."""

    def __init__(self, module: ModuleType, system: Any) -> None:
        self.module, self.system = module, system

    def ingest(self, items: Sequence[tuple[str, str]]) -> None:
        self.system.reset("bench")
        self.system.ingest("bench", [self.module.MemoryItem(i, t, None, "s") for i, t in items])

    def rank(self, query: str, k: int) -> list[str]:
        return [h.id for h in self.system.search("bench", query, k)]


def systems(embedder_name: str, embedder: Any) -> tuple[str, dict[str, Any]]:
    """(where the baselines come from, {"BM25": ..., "dense": ..., "RRF": ...}) for the
    embedder graphmem runs with (its dense and RRF baselines use the same model)."""
    module = harness()
    kind = DENSE_KIND.get(embedder_name)
    if module is None:
        out: dict[str, Any] = {"BM25": _Own("bm25", None)}
        if embedder is not None:
            out.update({"dense": _Own("dense", embedder), "RRF": _Own("rrf", embedder)})
        return "the project's own baselines (bench/baselines.py: the reference harness is not beside the repository)", out
    out = {"BM25": _Reference(module, module.Bm25Memory())}
    if kind is not None:
        out["dense"] = _Reference(module, module.DenseMemory(kind))
        out["RRF"] = _Reference(module, module.HybridMemory(module.DenseMemory(kind)))
    elif embedder is not None:  # an embedder the harness lacks (e5): the project's dense and RRF over it
        out.update({"dense": _Own("dense", embedder), "RRF": _Own("rrf", embedder)})
        return ("the reference harness's BM25 (../shared/bench/retrieval_check.py); dense and RRF over "
                "this embedder from bench/baselines.py (the harness has no such model)"), out
    return "the reference harness's baselines (../shared/bench/retrieval_check.py)", out
