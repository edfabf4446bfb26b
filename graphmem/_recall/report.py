"""What one recall did, in numbers an operator can read (its span's attributes and its
``recalled`` event): how many candidates each side brought, how many seeds the question
named, which signals lifted the results returned. No text: counts and names of signals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .candidates import Candidate
from .fusion import ScoredMemory

SIGNALS = ("semantic", "lexical", "graph", "entity", "neighbour")
"""The score parts a result may owe its place to (``ScoreParts``)."""


def candidates(rows: Sequence[Candidate]) -> dict[str, int]:
    """Candidates per side of the recall statement's rows: the vector index (``semantic``),
    the full-text index (``lexical``), one hop from a direct hit (``graph``), tied to an
    entity the question names (``entity``); ``seeds`` counts those entities."""
    found = [r for r in rows if r.node is not None]
    return {
        "semantic": sum(r.semantic_rank is not None for r in found),
        "lexical": sum(r.lexical_rank is not None for r in found),
        "graph": sum((r.graph or 0.0) > 0 for r in found),
        "entity": sum(bool(r.entities) for r in found),
        "seeds": len(rows[0].seeds or ()) if rows else 0,
    }


def fired(results: Sequence[ScoredMemory]) -> list[str]:
    """The signals that scored above 0 for at least one result returned."""
    return [s for s in SIGNALS if any(getattr(r.parts, s) > 0 for r in results)]


def attributes(rows: Sequence[Candidate], results: Sequence[ScoredMemory], asked: int) -> dict[str, Any]:
    """The recall span's attributes: candidates per side, results returned, signals fired,
    and how many times the statement ran (``asked``: more than once when filters ate the
    over-fetch)."""
    out: dict[str, Any] = {f"graphmem.candidates.{side}": n for side, n in candidates(rows).items()}
    out.update({"graphmem.returned": len(results), "graphmem.signals": fired(results),
                "graphmem.statements": asked})
    return out
