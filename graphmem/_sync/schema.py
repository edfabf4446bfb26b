# Generated from graphmem/_async/schema.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Schema on ``Memory``: ``setup()`` (constraints, indexes, the vector index made for
the embedder, recall's plan warmed up). What is known of the index, and embedding what is
written, live in the store (``backend.py``).
This file is generated from ``graphmem/_async/schema.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any

from .._base import dialect, templates
from .._base import validate as check
from .._base.errors import GraphMemError, SchemaError
from .executor import Executor
from .host import Host
from .upgrade import repair_layout, tell_unembedded

_WARM_UP_SCOPE = "graphmem-warm-up"  # setup() recalls from it once; nothing is written there
_REPAIR_BATCH = 1000
_log = logging.getLogger("graphmem")


def refused_vector(error: GraphMemError) -> bool:
    """Whether ``error`` is Neo4j's cosine refusing a stored vector (not finite, a norm its
    32-bit arithmetic cannot hold, another dimension): what ``repair_vectors`` removes."""
    return "vector.similarity.cosine()" in str(error)


def repair_vectors(run: Executor, tenant: str, dimensions: int | None, now: datetime) -> list[str]:
    """Remove every embedding of ``tenant`` that Neo4j's cosine would refuse (or whose
    dimension is not ``dimensions``), in batches; the records stay, marked with
    ``embeddingRemovedAt``. Returns their ids and logs a warning naming how many."""
    repaired: list[str] = []
    params: dict[str, Any] = dict(tenant=tenant, minSquares=check.MIN_VECTOR_NORM ** 2, maxSquares=check.MAX_VECTOR_NORM ** 2,
                  dimensions=dimensions, limit=_REPAIR_BATCH, now=now)
    while True:
        batch = [r["id"] for r in run.write_one("memory_vector_repair", **params)]
        repaired += batch
        if len(batch) < _REPAIR_BATCH:
            break
    if repaired:
        _log.warning("removed %d stored embeddings Neo4j cannot compare (tenant %r, first ids %s); "
                     "those records are found by text and graph only", len(repaired), tenant, repaired[:5])
    return repaired


class SchemaMixin(Host):
    def setup(self, *, timeout: int = 300, repair: bool = True) -> None:
        """Create constraints and indexes (idempotent) and wait until all are ONLINE, then
        plan recall's query once (about a second on a freshly started server) so that the
        first real ``recall`` does not pay for it.

        The vector index's dimension comes from the embedder; an existing index of
        another dimension raises ``SchemaError``. On Neo4j 2026 the index also carries the
        tenant, so recall searches one tenant inside the index; an index made without it
        (by an older graphmem, or before the server was upgraded) is dropped and made again,
        with a line on the ``graphmem`` logger before and after (recall scans exactly while
        it is rebuilt). Stored embeddings of this tenant that
        Neo4j's cosine would refuse (written before graphmem checked vectors, or by hand:
        not finite, an absurd norm, another dimension) are removed; the records stay,
        found by text and through the graph, and a warning on the ``graphmem`` logger
        says how many. That reads every stored vector of the tenant (3-5 s per 50,000
        memories on a busy 2-core machine); ``repair=False`` skips it (a recall that meets
        such a vector repairs the tenant then), and the warning that says how many memories
        of the tenant have no vector in the active slot (``graphmem reembed`` embeds them).
        While no re-embedding is recorded or claimed, a stray vector index of the other slot
        is dropped, and a store's node naming a slot that holds no vector while the other
        holds them is corrected (docs/operations.md, what ``setup --check`` reports).
        """
        for name in templates.schema_names():
            self._run.auto(name)
        self._upgrade_store()
        repair_layout(self._run)
        rebuilt: float | None = None
        if self._core.embedder is not None:
            probe = self._store.probe()
            wanted = len(check.embedding(probe, "embedder output", None))
            existing = self._store.vector_dimension(fresh=True)
            if existing is not None and existing != wanted:
                found = self._run.layout()
                under_way = (f"; a re-embedding to {wanted} dimensions is under way: run graphmem reembed with "
                             "this embedder again to finish it" if (found.reembed or {}).get("dimensions") == wanted
                             else "")
                raise SchemaError(
                    f"the vector index {found.index} has {existing} dimensions but the embedder returns "
                    f"{wanted}: re-embed the store with this embedder (graphmem reembed, docs/operations.md) "
                    f"or use the embedder it was written with{under_way}")
            can_filter = dialect.filters_vectors((self._run.read("server_components"))[0]["version"])
            if existing is not None and can_filter and not self._known.filtered_index:
                rebuilt = self._drop_unfiltered_index()
            if existing is None or rebuilt is not None:
                self._run.auto(dialect.template("schema_vector", can_filter), dimensions=wanted)
        self._run.auto("schema_await", timeout=timeout)
        if self._core.embedder is not None:
            # what the index is now (another setup() may have made it first), for recall's choice
            self._known.dimension = self._store.vector_dimension(fresh=True)
        if rebuilt is not None:
            _log.warning("vector index %s rebuilt with the tenant as its filter in %.1f s",
                         (self._run.layout()).index, time.monotonic() - rebuilt)
        if repair:
            repair_vectors(self._run, self._core.tenant, self._store.known_dimension(), self._core.now())
            if self._known.dimension is not None:
                tell_unembedded(self._run, self._core.tenant)
        # a read of a scope nobody writes to: Neo4j caches the plan (recall.cypher keeps it)
        self.recall("warm up", scope=_WARM_UP_SCOPE, k=1)

    def _drop_unfiltered_index(self) -> float:
        """Drop a vector index that cannot filter by tenant (setup() makes it again); the
        monotonic time it was dropped at."""
        size = (self._run.read("vector_index_size"))[0]["memories"]
        _log.warning("rebuilding vector index %s with the tenant as its filter (this server "
                     "can filter inside the index): %d memories to index, recall scans exactly until then",
                     (self._run.layout()).index, size)
        started = time.monotonic()
        self._run.auto("schema_vector_drop")
        return started

