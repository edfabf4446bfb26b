# Generated from graphmem/_async/schema.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Schema and embeddings on ``Memory``: ``setup()``, the vector index's dimension, and
embedding what is about to be written or asked.
This file is generated from ``graphmem/_async/schema.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

from .._base import dialect, layout, templates
from .._base import validate as check
from .._base.embeddings import bag_of_words
from .._base.errors import GraphMemError, InvalidInputError, SchemaError
from .._base.layout import Layout
from .._base.vectors import Vector
from .._memory import reembed
from .._memory.core import Core, put_bounded
from .._memory.reembed import PROBE
from .._recall import fulltext, relevance
from .executor import Executor, per_driver
from .host import Host
from .upgrade import repair_layout, tell_unembedded

# per driver and (database, slot): the vector index's (dimension, filtered by tenant), read once
_INDEXES: WeakKeyDictionary[Any, dict[tuple[str | None, str], tuple[int, bool]]] = WeakKeyDictionary()
# per embedder: the relevance floor's background vectors (_relevance.matrix), embedded once
# for every memory object that shares the embedder (an application's one per tenant)
_BACKGROUNDS: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()
_WARM_UP_SCOPE = "graphmem-warm-up"  # setup() recalls from it once; nothing is written there
_REPAIR_BATCH = 1000
_log = logging.getLogger("graphmem")
# per driver: the (database, slot)s whose missing vector index this process has said (once,
# until the index is found again)
_TOLD_MISSING: WeakKeyDictionary[Any, set[tuple[str | None, str]]] = WeakKeyDictionary()


def _indexes_of(driver: Any) -> dict[tuple[str | None, str], tuple[int, bool]]:
    """What is known of the vector index per database of ``driver`` (a fresh dict, kept
    nowhere, for a driver that cannot be weakly referenced: a test's stand-in)."""
    known: dict[tuple[str | None, str], tuple[int, bool]] = per_driver(_INDEXES, driver, dict)
    return known


def forget_index(run: Executor, core: Core) -> None:
    """Forget what is known of the vector index and the store's slot (the index was found
    missing or not online: remade, or dropped by a re-embedding that switched slots): the
    next call reads them again."""
    for key in [k for k in _indexes_of(run.driver) if k[0] == run.database]:
        _indexes_of(run.driver).pop(key, None)
    run.forget_layout()
    core.filtered_index = None
    core.dimension = None
    core.vector_slot = None


def refused_vector(error: GraphMemError) -> bool:
    """Whether ``error`` is Neo4j's cosine refusing a stored vector (not finite, a norm its
    32-bit arithmetic cannot hold, another dimension): what ``repair_vectors`` removes."""
    return "vector.similarity.cosine()" in str(error)


def _told_missing(driver: Any) -> set[tuple[str | None, str]]:
    """The vector indexes found missing and said on the logger, per database of ``driver``."""
    told: set[tuple[str | None, str]] = per_driver(_TOLD_MISSING, driver, set)
    return told


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
            probe = self._probe()
            wanted = len(check.embedding(probe, "embedder output", None))
            existing = self._vector_dimension(fresh=True)
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
            if existing is not None and can_filter and not self._core.filtered_index:
                rebuilt = self._drop_unfiltered_index()
            if existing is None or rebuilt is not None:
                self._run.auto(dialect.template("schema_vector", can_filter), dimensions=wanted)
        self._run.auto("schema_await", timeout=timeout)
        if self._core.embedder is not None:
            # what the index is now (another setup() may have made it first), for recall's choice
            self._core.dimension = self._vector_dimension(fresh=True)
        if rebuilt is not None:
            _log.warning("vector index %s rebuilt with the tenant as its filter in %.1f s",
                         (self._run.layout()).index, time.monotonic() - rebuilt)
        if repair:
            repair_vectors(self._run, self._core.tenant, self._known_dimension(), self._core.now())
            if self._core.dimension is not None:
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

    def _vector_dimension(self, *, fresh: bool = False) -> int | None:
        """The dimension of the vector index of the store's slot (None without one); notes
        whether it filters by tenant. Read once per driver, database and slot (memory objects
        made from one driver, one per tenant, share it), unless ``fresh``."""
        found = self._run.layout()
        per_driver = _indexes_of(self._run.driver)
        key = (self._run.database, found.slot)
        known = None if fresh else per_driver.get(key)
        if known is None:
            # a read: a cluster's readers answer it
            rows = [r for r in self._run.read("schema_vector_info") if r["name"] == found.index]
            if not rows:
                per_driver.pop(key, None)
                return None
            _told_missing(self._run.driver).discard(key)
            known = per_driver[key] = (int(rows[0]["dimensions"]), dialect.filtered(rows[0]["properties"]))
        self._core.filtered_index = known[1]
        self._core.vector_slot = found.slot
        return known[0]

    def _same_slot(self) -> None:
        """Forget this memory object's dimension and filter when the store's vectors moved to
        the other slot since it read them (``reembed``, in this process or another)."""
        slot = (self._run.layout()).slot
        if self._core.vector_slot is not None and self._core.vector_slot != slot:
            self._core.dimension = None
            self._core.filtered_index = None
            self._core.vector_slot = None

    def _filtered_index(self) -> bool:
        """Whether recall may search the vector index within the tenant (read with the
        dimension, once per driver, database and slot; setup() reads it again after making it)."""
        self._same_slot()
        if self._core.filtered_index is None:
            self._vector_dimension()
        return bool(self._core.filtered_index)

    def _known_dimension(self) -> int | None:
        """The dimension of the active slot's vector index (None without one: said once on
        the ``graphmem`` logger when this memory object has an embedder)."""
        self._same_slot()
        if self._core.dimension is None:
            self._core.dimension = self._vector_dimension()
            if self._core.dimension is None and self._core.embedder is not None:
                self._tell_missing_index((self._run.layout()).slot)
        return self._core.dimension

    def _tell_missing_index(self, slot: str) -> None:
        """Say once per driver, database and slot (again after the index was found) that the
        vector index is missing: recall still answers, scanning exactly."""
        told, key = _told_missing(self._run.driver), (self._run.database, slot)
        if key not in told:
            told.add(key)
            _log.warning("the vector index %s is missing: recall compares the question with every memory of the "
                         "scopes exactly (slower in a large store) and writes are not checked against its dimension; "
                         "run setup() (graphmem setup) to make it again (unless setup() is making it again now)",
                         layout.INDEXES[slot])

    def _embed(self, rows: list[Any], fields: list[str]) -> None:
        """Embed the rows that have no embedding yet (their ``embedText`` or text), in one
        call to the embedder; ``fields`` names each row's input in errors."""
        if self._core.embedder is None:
            return
        todo = [i for i, row in enumerate(rows) if row["props"].get("embedding") is None]
        if not todo:
            return
        self._same_embedder_as_store()
        texts = [rows[i].get("embedText") or rows[i]["props"]["text"] for i in todo]
        vectors = self._core.embedder.embed_documents(texts)
        if len(vectors) != len(todo):
            raise InvalidInputError("embedder", f"returned {len(vectors)} vectors for {len(todo)} texts")
        dimension = self._dimension_for(vectors[0])
        for i, vector in zip(todo, vectors):
            rows[i]["props"]["embedding"] = check.embedding(vector, fields[i], dimension, embedded=True)

    def _yardstick(self, vector: Vector | None) -> tuple[float, float] | None:
        """The mean and deviation of the query's cosines to everyday sentences that answer
        nothing (``_relevance``), for the relevance floor; their vectors are embedded once per
        embedder object (once per memory object for an embedder that cannot be weakly
        referenced and hashed). None without a query vector."""
        embedder = self._core.embedder
        if vector is None or embedder is None:
            return None
        key = getattr(embedder, "wrapped", embedder)  # the caller's embedder, not this object's wrapper
        if self._core.background is None:
            try:
                self._core.background = _BACKGROUNDS.get(key)
            except TypeError:  # unhashable or not weakly referable: this memory object keeps its own
                pass
        if self._core.background is None:
            self._core.background = relevance.matrix(embedder.embed_documents(list(relevance.SENTENCES)))
            try:
                _BACKGROUNDS[key] = self._core.background
            except TypeError:
                pass
        return relevance.yardstick(vector, self._core.background)

    def _common_names(self, probes: list[dict[str, str]], chain: list[str]) -> list[str]:
        """Which of a question's names are common among the scopes' memories: asked of Neo4j
        (``name_frequency``) for the names this memory object has not counted in those scopes
        in the last ``COMMON_NAME_KEPT_SECONDS`` (a name's share moves slowly; asking costs a
        round trip before the recall)."""
        known, now = self._core.names, time.monotonic()
        key = tuple(chain)
        answer = {p["word"]: hit[0] for p in probes
                  if (hit := known.get((key, p["word"]))) is not None and hit[1] >= now}
        if ask := [p for p in probes if p["word"] not in answer]:
            rows = self._run.read("name_frequency", tenant=self._core.tenant, chain=chain, names=ask,
                                        share=fulltext.COMMON_NAME_SHARE, least=fulltext.COMMON_NAME_LEAST,
                                        most=fulltext.COMMON_NAME_MOST)
            for row in rows:
                answer[row["word"]] = bool(row["common"])
                put_bounded(known, (key, row["word"]), (answer[row["word"]], now + fulltext.COMMON_NAME_KEPT_SECONDS),
                            fulltext.COMMON_NAME_KEPT)
        return [p["word"] for p in probes if answer.get(p["word"])]

    def _query_vector(self, text: str, chain: list[str]) -> Vector | None:
        """The embedding of a question asked of the scopes ``chain``, or None without an
        embedder. A bag-of-words embedder (``bag_of_words = True``, as WordLlama) is given the
        question's content words without the names common among those scopes' memories
        (``_fulltext.embedded_question``; asking which are common is one more round trip,
        only when the question has a name)."""
        embedder = self._core.embedder
        if embedder is None:
            return None
        common: list[str] = []
        if bag_of_words(embedder) and (probes := fulltext.name_queries(text, self._core.tenant, chain)):
            common = self._common_names(probes, chain)
        text = fulltext.embedded_question(text, bag_of_words=bag_of_words(embedder), common=common)
        self._same_embedder_as_store()
        # checked against the index: an embedder of another dimension gets a clear error
        vector = embedder.embed_query(text)
        return check.embedding(vector, "embedder output", self._dimension_for(vector))

    def _dimension_for(self, vector: Any) -> int | None:
        """The vector index's dimension to check ``vector`` against: the one this object knows,
        read again when they differ (a re-embedding may have switched the store to this
        object's embedder since: it is not refused for a minute on what it read before)."""
        dimension = self._known_dimension()
        if dimension is not None and isinstance(vector, (list, tuple)) and len(vector) != dimension:
            forget_index(self._run, self._core)
            dimension = self._known_dimension()
        return dimension

    def _probe(self) -> list[float]:
        """This memory object's embedder's vector of ``PROBE``, asked once."""
        assert self._core.embedder is not None
        if self._core.probe is None:
            self._core.probe = check.embedding(self._core.embedder.embed_query(PROBE), "embedder output", None)
        return self._core.probe

    def _same_embedder_as_store(self) -> None:
        """Refuse, with a ``SchemaError`` saying what to do, a memory object whose embedder is
        not the one a re-embedding put in the store (recorded with it: ``Layout.active``);
        a store never re-embedded records none, and the vector index's dimension tells."""
        if self._core.embedder is None:
            return
        active = (self._run.layout()).active
        if active and (why := reembed.stale_embedder(active, None, self._probe())):
            raise SchemaError(why)

    def _slot_moved(self, found: Layout) -> None:
        """A write found the store's vectors moved to ``found.slot`` (a re-embedding switched
        since this object read the store's node): what it knew of the old index goes, and an
        embedder that is not the store's new one may not write there (``SchemaError``); the
        executor's ``slot_moved``."""
        forget_index(self._run, self._core)
        if self._core.embedder is None:
            return
        dimension = self._vector_dimension(fresh=True)
        if why := reembed.stale_embedder(found.active, dimension, self._probe()):
            raise SchemaError(why)
