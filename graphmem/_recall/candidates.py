"""The rows of recall's statement (``cypher/recall.cypher``), typed: one per candidate
memory, each also carrying the statement's counts (the same on every row), and one row
without a memory when nothing was found (the counts alone)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._base.records import Row


@dataclass(frozen=True, slots=True)
class Candidate(Row):
    """One row of recall's statement."""

    TEMPLATES = ("recall",)
    in_scope: int
    """Memories visible in the scopes asked (the counts' fields are the same on every row)."""
    total: int | None
    """Memories in the database (the full-text index's statistics span them all)."""
    pool: int | None
    """What the vector index searched within (the tenant's memories on Neo4j 2026)."""
    exact: bool
    """Whether the semantic side scanned exactly instead of searching the index."""
    semantic_count: int
    lexical_count: int
    lexical_open: bool
    lexical_foreign: int
    lexical_saturated: bool
    seeds: list[dict[str, Any]]
    """The entities the question names or implies: ``id``, ``name``, ``type``, ``degree``,
    ``speaks``, ``keys``."""
    entities: list[dict[str, Any]] | None
    """This candidate's ties to the seeds: ``seed`` and ``link`` (SPOKE, MENTIONS, ABOUT, FACT)."""
    graph_rank: int | None
    node: dict[str, Any] | None
    """The memory's property map (``records.to_record``), None on a row of counts alone."""
    semantic: float | None
    lexical: float | None
    semantic_rank: int | None
    neighbours: list[str]
    """The turns before and after an episode in its session."""
    lexical_rank: int | None
    graph: float
    """Its reciprocal-rank score through the graph (0 when not reached that way)."""
    cites: list[dict[str, Any]]
    """The records an insight cites or a fact was derived from, visible to this recall."""

    @property
    def memory(self) -> dict[str, Any]:
        """``node``, on a row known to carry a memory."""
        assert self.node is not None, "a row of counts alone carries no memory"
        return self.node

    @property
    def direct(self) -> bool:
        """Whether an index found it (rather than the graph, one hop from a hit)."""
        return self.semantic_rank is not None or self.lexical_rank is not None


def candidate(**fields: Any) -> Candidate:
    """A row with ``fields`` and every other field empty (no counts, no side found it): for
    studying the scoring without a database (bench/fusion_lab.py, the unit tests)."""
    empty: dict[str, Any] = dict(
        in_scope=0, total=None, pool=None, exact=False, semantic_count=0, lexical_count=0, lexical_open=False,
        lexical_foreign=0, lexical_saturated=False, seeds=[], entities=None, graph_rank=None, node=None,
        semantic=None, lexical=None, semantic_rank=None, neighbours=[], lexical_rank=None, graph=0.0, cites=[])
    return Candidate(**{**empty, **fields})
