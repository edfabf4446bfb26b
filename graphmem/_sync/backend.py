# Generated from graphmem/_async/backend.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""``Store``: what every part of a memory object works through. It owns the executor
(the connection, the templates, transactions), the configuration (``Core``), the embedder,
and everything known of the server (``_memory/known.py``): the vector index's dimension and
filter, the store's slot, the embedder's probe; it embeds what is about to be written and
checks a vector against the index.
This file is generated from ``graphmem/_async/backend.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import logging
from typing import Any

from .._base import dialect, layout
from .._base import validate as check
from .._base.errors import InvalidInputError, SchemaError
from .._base.events import Emitter
from .._base.layout import Layout, VectorIndexRow
from .._base.observe import Observability
from .._memory import reembed
from .._memory.core import Core
from .._memory.known import Index, Known, Shared
from .._memory.reembed import PROBE
from .executor import Executor

_log = logging.getLogger("graphmem")


class Store:
    """The executor, configuration, embedder and server knowledge of one memory object."""

    def __init__(self, run: Executor, core: Core, *, events: Emitter, observe: Observability,
                 shared: Shared) -> None:
        self.run = run
        self.core = core
        self.events = events
        self.observe = observe
        self.shared = shared
        self.known = Known()
        run.events = events
        run.slot_moved = self.slot_moved

    @property
    def embedder(self) -> Any:
        """The embedder (checked, ``check_embedder``), or None for full-text recall only."""
        return self.core.embedder

    def use_embedder(self, embedder: Any, probe: list[float] | None) -> None:
        """Embed with ``embedder`` from now on (the store was re-embedded with it; ``probe``
        is its vector of ``PROBE``), forgetting what came from the old one."""
        self.core.embedder = embedder
        self.known.use_embedder(probe)

    def forget_index(self) -> None:
        """Forget what is known of the vector index and the store's slot (the index was found
        missing or not online: remade, or dropped by a re-embedding that switched slots): the
        next call reads them again, in this memory object and in those of its driver."""
        self.run.known.forget_index()
        self.known.forget_index()

    def vector_dimension(self, *, fresh: bool = False) -> int | None:
        """The dimension of the vector index of the store's slot (None without one); notes
        whether it filters by tenant. Read once per driver, database and slot (memory objects
        made from one driver, one per tenant, share it), unless ``fresh``."""
        found = self.run.layout()
        index = None if fresh else self.run.known.indexes.get(found.slot)
        if index is None:
            # a read: a cluster's readers answer it
            rows = [r for r in self.run.read_as(VectorIndexRow, "schema_vector_info") if r.name == found.index]
            index = Index(int(rows[0].dimensions), dialect.filtered(rows[0].properties)) if rows else None
            self.run.known.keep_index(found.slot, index)
            if index is None:
                return None
        self.known.index(found.slot, index)
        return index.dimension

    def _same_slot(self) -> None:
        """Forget this memory object's dimension and filter when the store's vectors moved to
        the other slot since it read them (``reembed``, in this process or another)."""
        self.known.slot_seen((self.run.layout()).slot)

    def filtered_index(self) -> bool:
        """Whether recall may search the vector index within the tenant (read with the
        dimension, once per driver, database and slot; setup() reads it again after making it)."""
        self._same_slot()
        if self.known.filtered_index is None:
            self.vector_dimension()
        return bool(self.known.filtered_index)

    def known_dimension(self) -> int | None:
        """The dimension of the active slot's vector index (None without one: said once on
        the ``graphmem`` logger when this memory object has an embedder)."""
        self._same_slot()
        if self.known.dimension is None:
            self.known.dimension = self.vector_dimension()
            if self.known.dimension is None and self.embedder is not None:
                self._tell_missing_index((self.run.layout()).slot)
        return self.known.dimension

    def _tell_missing_index(self, slot: str) -> None:
        """Say once per driver, database and slot (again after the index was found) that the
        vector index is missing: recall still answers, scanning exactly."""
        if slot not in self.run.known.told_missing:
            self.run.known.told_missing.add(slot)
            _log.warning("the vector index %s is missing: recall compares the question with every memory of the "
                         "scopes exactly (slower in a large store) and writes are not checked against its dimension; "
                         "run setup() (graphmem setup) to make it again (unless setup() is making it again now)",
                         layout.INDEXES[slot])

    def embed(self, rows: list[Any], fields: list[str]) -> None:
        """Embed the rows that have no embedding yet (their ``embedText`` or text), in one
        call to the embedder; ``fields`` names each row's input in errors."""
        if self.embedder is None:
            return
        todo = [i for i, row in enumerate(rows) if row["props"].get("embedding") is None]
        if not todo:
            return
        self.same_embedder_as_store()
        texts = [rows[i].get("embedText") or rows[i]["props"]["text"] for i in todo]
        vectors = self.embedder.embed_documents(texts)
        if len(vectors) != len(todo):
            raise InvalidInputError("embedder", f"returned {len(vectors)} vectors for {len(todo)} texts")
        dimension = self.dimension_for(vectors[0])
        for i, vector in zip(todo, vectors):
            rows[i]["props"]["embedding"] = check.embedding(vector, fields[i], dimension, embedded=True)

    def dimension_for(self, vector: Any) -> int | None:
        """The vector index's dimension to check ``vector`` against: the one this object knows,
        read again when they differ (a re-embedding may have switched the store to this
        object's embedder since: it is not refused for a minute on what it read before)."""
        dimension = self.known_dimension()
        if dimension is not None and isinstance(vector, (list, tuple)) and len(vector) != dimension:
            self.forget_index()
            dimension = self.known_dimension()
        return dimension

    def probe(self) -> list[float]:
        """This memory object's embedder's vector of ``PROBE``, asked once."""
        assert self.embedder is not None
        if self.known.probe is None:
            self.known.probe = check.embedding(self.embedder.embed_query(PROBE), "embedder output", None)
        return self.known.probe

    def same_embedder_as_store(self) -> None:
        """Refuse, with a ``SchemaError`` saying what to do, a memory object whose embedder is
        not the one a re-embedding put in the store (recorded with it: ``Layout.active``);
        a store never re-embedded records none, and the vector index's dimension tells."""
        if self.embedder is None:
            return
        active = (self.run.layout()).active
        if active and (why := reembed.stale_embedder(active, None, self.probe())):
            raise SchemaError(why)

    def slot_moved(self, found: Layout) -> None:
        """A write found the store's vectors moved to ``found.slot`` (a re-embedding switched
        since this object read the store's node): what it knew of the old index goes, and an
        embedder that is not the store's new one may not write there (``SchemaError``); the
        executor's ``slot_moved``."""
        self.forget_index()
        if self.embedder is None:
            return
        dimension = self.vector_dimension(fresh=True)
        if why := reembed.stale_embedder(found.active, dimension, self.probe()):
            raise SchemaError(why)
