"""What one memory object knows besides its connection: tenant, embedder, entity extractor,
clock and the rules it writes by (single-valued predicates, contradiction threshold)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from .._base import validate as check
from .._base.embeddings import check_embedder
from .._base.errors import InvalidInputError
from .._base.ner import resolve_extractor
from .._base.observe import OFF, Observability
from .facts import DEFAULT_RULE, SingleValued


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class _DefaultEmbedder:
    """Stands for "no embedder was chosen": ``Memory()`` then embeds with WordLlama."""

    def __repr__(self) -> str:
        return "DEFAULT_EMBEDDER"


DEFAULT_EMBEDDER: Any = _DefaultEmbedder()
"""The default of ``Memory(embedder=...)``: the offline ``WordLlamaEmbedder`` (semantic
recall). Pass ``embedder=None`` for full-text recall only."""

_told_lexical_only = False


def resolve_embedder(embedder: Any) -> Any:
    """The embedder a memory object uses: WordLlama by default, None (lexical recall only,
    said once per process through ``warnings``) when asked for, otherwise the one given."""
    global _told_lexical_only
    if embedder is DEFAULT_EMBEDDER:
        from .._base.embeddings import default_embedder

        return default_embedder()
    if embedder is None and not _told_lexical_only:
        _told_lexical_only = True
        warnings.warn("graphmem: embedder=None: recall uses full-text search only (no semantic recall); "
                      "leave embedder out to use the built-in WordLlama embedder", UserWarning, stacklevel=4)
    return embedder


class Core:
    """Configuration and clock shared by the sync and async front doors (no I/O)."""

    def __init__(
        self,
        *,
        tenant: str,
        embedder: Any,
        clock: Callable[[], datetime] | None,
        single_valued_predicates: Iterable[str] | None,
        contradiction_threshold: float,
        extractor: Any = None,
        observe: Observability = OFF,
    ) -> None:
        self.tenant: str = check.identifier(tenant, "tenant")
        self.embedder = check_embedder(resolve_embedder(embedder), observe)
        self.extractor: Any = resolve_extractor(extractor)
        """What finds entities in messages without a model (``_base/ner.py``), or None."""
        self._clock = clock or utc_now
        self.single_valued_predicates: SingleValued = DEFAULT_RULE if single_valued_predicates is None else (
            SingleValued(frozenset(str(check.predicate(p, "single_valued_predicates")) for p in single_valued_predicates)))
        if not 0.0 < contradiction_threshold <= 1.0:
            raise InvalidInputError("contradiction_threshold", "must be in (0, 1]")
        self.contradiction_threshold = contradiction_threshold

    def now(self) -> datetime:
        return check.instant(self._clock(), "clock", allow_none=False)

    def as_of_valid_at(self, as_of: Any, valid_at: Any) -> tuple[datetime, datetime]:
        now = self.now()
        return (check.instant(as_of, "as_of") or now, check.instant(valid_at, "valid_at") or now)

    def neo4j_similarity(self, cosine: float | None = None) -> float:
        """Neo4j's vector.similarity.cosine is (1 + cos) / 2; convert a plain cosine to it."""
        value = self.contradiction_threshold if cosine is None else cosine
        if not math.isfinite(value):
            raise InvalidInputError("threshold", "must be finite")
        return (1.0 + value) / 2.0
