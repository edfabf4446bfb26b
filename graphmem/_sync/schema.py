# Generated from graphmem/_async/schema.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""The store's schema: ``setup()`` (constraints, indexes, the vector index made for the
embedder, recall's plan warmed up), ``schema_plan()`` (what ``setup()`` would change), and
the upgrade of a store's data to this graphmem's version (its steps are in ``upgrade.py``). What is known of the index, and embedding what is
written, live in the store (``backend.py``).
This file is generated from ``graphmem/_async/schema.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import logging
import time

from .._base import dialect, layout, templates
from .._base import validate as check
from .._base.dialect import ServerRow
from .._base.errors import SchemaError
from .._base.layout import (
    IndexSizeRow,
    SchemaNameRow,
    SchemaPlan,
    SchemaStep,
    StoreLayoutRow,
    StoreVersionRow,
    VectorCheckRow,
    VectorIndexRow,
)
from .._base.traced import instrument
from .backend import Store
from .recall import Recall
from .upgrade import checked_layout, repair_layout, repair_vectors, run_step, tell_unembedded

_WARM_UP_SCOPE = "graphmem-warm-up"  # setup() recalls from it once; nothing is written there
_log = logging.getLogger("graphmem")


@instrument("graphmem", names=("setup", "schema_plan"))
class Schema:
    """The store's schema: ``setup()`` and ``schema_plan()``, and bringing the store's data to this graphmem's version (``Memory`` hands the public calls to it; a re-embedding upgrades through it)."""

    def __init__(self, store: Store, recall: Recall) -> None:
        self._store = store
        self._recall = recall

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
            self._store.run.auto(name)
        self.upgrade_store()
        repair_layout(self._store.run)
        rebuilt: float | None = None
        if self._store.core.embedder is not None:
            probe = self._store.probe()
            wanted = len(check.embedding(probe, "embedder output", None))
            existing = self._store.vector_dimension(fresh=True)
            if existing is not None and existing != wanted:
                found = self._store.run.layout()
                under_way = (f"; a re-embedding to {wanted} dimensions is under way: run graphmem reembed with "
                             "this embedder again to finish it" if (found.reembed or {}).get("dimensions") == wanted
                             else "")
                raise SchemaError(
                    f"the vector index {found.index} has {existing} dimensions but the embedder returns "
                    f"{wanted}: re-embed the store with this embedder (graphmem reembed, docs/operations.md) "
                    f"or use the embedder it was written with{under_way}")
            can_filter = dialect.filters_vectors((self._store.run.read_as(ServerRow, "server_components"))[0].version)
            if existing is not None and can_filter and not self._store.known.filtered_index:
                rebuilt = self._drop_unfiltered_index()
            if existing is None or rebuilt is not None:
                self._store.run.auto(dialect.template("schema_vector", can_filter), dimensions=wanted)
        self._store.run.auto("schema_await", timeout=timeout)
        if self._store.core.embedder is not None:
            # what the index is now (another setup() may have made it first), for recall's choice
            self._store.known.dimension = self._store.vector_dimension(fresh=True)
        if rebuilt is not None:
            _log.warning("vector index %s rebuilt with the tenant as its filter in %.1f s",
                         (self._store.run.layout()).index, time.monotonic() - rebuilt)
        if repair:
            repair_vectors(self._store.run, self._store.core.tenant, self._store.known_dimension(), self._store.core.now())
            if self._store.known.dimension is not None:
                tell_unembedded(self._store.run, self._store.core.tenant)
        # a read of a scope nobody writes to: Neo4j caches the plan (recall.cypher keeps it)
        self._recall.recall("warm up", scope=_WARM_UP_SCOPE, k=1)

    def _drop_unfiltered_index(self) -> float:
        """Drop a vector index that cannot filter by tenant (setup() makes it again); the
        monotonic time it was dropped at."""
        size = (self._store.run.read_as(IndexSizeRow, "vector_index_size"))[0].memories
        _log.warning("rebuilding vector index %s with the tenant as its filter (this server "
                     "can filter inside the index): %d memories to index, recall scans exactly until then",
                     (self._store.run.layout()).index, size)
        started = time.monotonic()
        self._store.run.auto("schema_vector_drop")
        return started

    def schema_plan(self) -> SchemaPlan:
        """What ``setup()`` would change in this store, without changing anything: its schema
        version beside this graphmem's, the upgrade steps it still needs with the records each
        would change (read through the whole store: a minute or so per million memories), the
        constraints and indexes ``setup()`` would create, the vector index beside this
        memory object's embedder, and what is amiss in the store's layout: a stray vector
        index or a store's node that names the wrong slot (``setup()`` repairs both), and
        the memories of every tenant without a vector in the active slot (``graphmem
        reembed`` embeds them). A store written by a newer graphmem is reported (``newer``),
        not refused, and none of its data is read. ``graphmem setup --check`` prints it."""
        rows = self._store.run.read_in_as(StoreLayoutRow, layout.SLOT_A, "store_layout")
        vectors = {r.name: r for r in self._store.run.read_in_as(VectorIndexRow, layout.SLOT_A, "schema_vector_info")}
        found = layout.from_row(rows[0] if rows else None, list(vectors))
        newer = found.version > layout.VERSION
        steps = [] if newer else [
            SchemaStep(version=step.version, name=step.name, does=step.does,
                       changes=run_step(self._store.run, step, apply=False, progress=None))
            for step in layout.pending(found.version)]
        have = {r.name for r in self._store.run.read_in_as(SchemaNameRow, layout.SLOT_A, "store_indexes")}
        have |= {r.name for r in self._store.run.read_in_as(SchemaNameRow, layout.SLOT_A, "store_constraints")}
        embedder = None
        if self._store.core.embedder is not None:
            embedder = len(self._store.probe())
        slot_found: str | None = None
        stray: list[str] = []
        counts: VectorCheckRow | None = None
        if not newer and found.version != layout.EMPTY:
            counts = (self._store.run.read_in_as(VectorCheckRow, found.slot, "store_vector_check"))[0]
            slot_found, stray = checked_layout(self._store.run, found, set(vectors), counts)
            if slot_found is not None:  # counted in the slot the vectors are in
                counts = (self._store.run.read_in_as(VectorCheckRow, slot_found, "store_vector_check"))[0]
        slot = slot_found or found.slot
        index = vectors.get(layout.INDEXES[slot])
        missing = [name for name in templates.schema_objects() if name not in have]
        if index is None and embedder is not None:
            missing.append(layout.INDEXES[slot])
        without = None
        if counts is not None and (index is not None or embedder is not None or counts.active or counts.other):
            without = int(counts.missing)
        return SchemaPlan(store_version=found.version, graphmem_version=layout.VERSION, steps=steps, missing=missing,
                          vector_slot=found.slot, vector_index=found.index,
                          vector_dimensions=None if index is None else index.dimensions,
                          embedder_dimensions=embedder, reembed=found.reembed, vector_indexes=sorted(vectors),
                          stray_indexes=stray, recorded=found.recorded or found.version == layout.EMPTY,
                          slot_found=slot_found, without_vector=without,
                          stranded=0 if counts is None or found.under_way else int(counts.stranded))

    def upgrade_store(self) -> list[SchemaStep]:
        """Bring the store's data to this graphmem's schema version, step by step, each
        recorded on the store's node when done (a run cut off resumes at the step it was in,
        which is idempotent); a database graphmem had not written is recorded current at
        once. Each step is said on the ``graphmem`` logger before and after."""
        found = self._store.run.layout(fresh=True)  # a newer store is refused here
        done: list[SchemaStep] = []
        if found.version == layout.EMPTY:
            self._store.run.write_one_as(StoreVersionRow, "store_version", version=layout.VERSION,
                                               vectorSlot=found.slot, now=self._store.core.now())
        for step in layout.pending(found.version):
            _log.warning("upgrading the store from schema version %d: step %d (%s): %s",
                         step.version - 1, step.version, step.name, step.does)
            started = time.monotonic()
            changes = run_step(self._store.run, step, apply=True, progress=None)
            self._store.run.write_one_as(StoreVersionRow, "store_version", version=step.version,
                                               vectorSlot=found.slot, now=self._store.core.now())
            _log.warning("store at schema version %d: %s changed %d records in %.1f s", step.version, step.name,
                         changes, time.monotonic() - started)
            done.append(SchemaStep(version=step.version, name=step.name, does=step.does, changes=changes))
        if found.version != layout.VERSION:
            self._store.run.layout(fresh=True)
        return done
