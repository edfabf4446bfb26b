# Generated from graphmem/_async/graph.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""The memory graph for analysis: ``graph()`` (networkx), ``counts()`` (per scope and kind)
and ``tenants()`` (every tenant, with counts), a service of ``Memory`` that works
through the store.
This file is generated from ``graphmem/_async/graph.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .._base import scopes
from .._base.models import AUTOMATIC
from .._base.traced import instrument
from .._memory import graph as _graph
from .._memory.graph import CountsRow, GraphRow, TenantCountsRow
from .backend import Store

if TYPE_CHECKING:  # networkx is imported when a graph is built (graphmem._memory.graph)
    from .._memory.graph import MemoryGraph


@instrument("graphmem", names=("graph", "counts", "tenants"))
class Graph:
    """The graph, counts and tenant list of one memory object's tenant (``Memory``
    hands these calls to it)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def graph(
        self,
        *,
        scope: str,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        kinds: Iterable[str] | None = None,
        include_invalidated: bool = False,
        history: bool = False,
    ) -> MemoryGraph:
        """The memory graph visible in ``scope``, read in one query: memories believed at
        ``as_of`` and true at ``valid_at`` (both default to now; ``include_invalidated``
        keeps records invalidated by then), of every status, as nodes keyed by id with their
        properties in snake_case (``kind``, ``text``, ``name``, ``subject``, ``valid_from``,
        ``created_at``, ``provenance``, ``status``, ``salience``...; no embeddings); and the
        CITES, SUPERSEDES, RELATES, ABOUT, DERIVED_FROM, MENTIONS, SAME_AS, CORROBORATES,
        OUTCOME and NEXT (a conversation's turn to the next) edges between them, each with
        ``type`` and its properties. ``kinds`` limits
        the node kinds. Of the values of a single-valued predicate stored in different
        scopes of the chain, only the one the view ranks current is a node (contract §7.1),
        unless ``include_invalidated``. ``history=True`` keeps every version recorded by ``as_of``,
        believed or not and whatever its valid time (for analysis of how memory grew). See ``graphmem.graph_to_graphml`` / ``graph_to_json`` for export."""
        chain = scopes.chain(scopes.check_path(scope))
        wanted = _graph.kinds(kinds)
        as_of_t, valid_t = self._store.core.as_of_valid_at(as_of, valid_at)
        rows = self._store.run.read_as(
            GraphRow, "memory_graph", tenant=self._store.core.tenant, chain=chain, kinds=wanted, asOf=as_of_t,
            validAt=valid_t, includeInvalidated=bool(include_invalidated), anyTime=bool(history), automatic=AUTOMATIC,
        )
        found = rows[0] if rows else GraphRow(nodes=[], edges=[])
        return _graph.build(found.nodes, found.edges, tenant=self._store.core.tenant, scope=scope,
                            as_of=as_of_t, valid_at=valid_t)

    def counts(self, *, scope: str | None = None) -> list[dict[str, Any]]:
        """How many memories the tenant holds per scope and kind (within ``scope`` and the
        scopes below it, or everywhere): ``total``, ``believed``, ``invalidated`` and
        ``quarantined``, ordered by scope then kind."""
        path = None if scope is None else scopes.check_path(scope)
        return [asdict(r) for r in self._store.run.read_as(CountsRow, "memory_stats", tenant=self._store.core.tenant,
                                                                  scope=path)]

    def tenants(self) -> list[dict[str, Any]]:
        """Every tenant of the database, not only this one: ``tenant``, ``memories`` (how
        many it holds, forgotten tombstones included) and ``scopes``, ordered by name. The
        one read that crosses tenants, for operators (``graphmem tenants``): it returns
        names and counts, never a record. A tenant exists once something was written to
        it, and is gone once everything in it was erased."""
        return [asdict(r) for r in self._store.run.read_as(TenantCountsRow, "tenant_list")]
