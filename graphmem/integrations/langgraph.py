"""graphmem for LangGraph: ``GraphMemStore``, a ``BaseStore`` on the bitemporal graph.

``pip install graphmem[langgraph]``. Namespaces are scopes (``("users", "42")`` is scope
``users/42``, below the store's ``scope`` root when one is given; a label with characters
a scope segment cannot hold is escaped, reversibly); an item is a
single-valued fact, so a ``put`` over an existing key keeps the old value as history
(``SUPERSEDES {reason: 'changed'}``) and a ``delete`` forgets the current value. Read the
versions with ``memory.history(subject=store.item_subject(namespace, key), scope=...)``.

LangGraph's protocol (operations, namespaces, filters, results) is translated here to the
core's key-value items, ``ItemStore``/``AsyncItemStore`` (``graphmem/_memory/store.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, replace
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    ensure_embeddings,
    get_text_at_path,
    tokenize_path,
)

from .._async.memory import AsyncMemory
from .._async.store import AsyncItemStore
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import ConfigurationError, EventLoopThreadError, InvalidInputError
from .._base.traced import instrument
from .._memory import store
from .._memory.store import (
    ItemDelete,
    ItemGet,
    ItemPut,
    ItemRead,
    ItemResults,
    ItemScopes,
    ItemSearch,
    ItemWrite,
    StoredItem,
)
from . import _lg_filters, _lg_namespaces, _lg_sweeper
from ._bridge import check_memory, item_store
from ._lg_batch import Batcher

__all__ = ["GraphMemStore"]


@instrument("graphmem.langgraph", names=("batch", "abatch", "history", "ahistory"))
class GraphMemStore(BaseStore):
    """A LangGraph store on ``memory`` (a ``Memory``, or an ``AsyncMemory`` for async
    graphs). ``scope`` is an optional root every namespace lives under.

    ``index={"fields": ["text"], "embed": ..., "dims": ...}`` says which value fields
    are the item's text (joined, they become the fact's text and are embedded; default
    ``["$"]``, the whole value as JSON); each field, and each element of a path like
    ``notes[*].text``, is also embedded on its own, and ``search`` scores an item by its
    best-matching text, as LangGraph's reference stores do. ``embed`` defaults to the memory's embedder; a
    different one must match the memory's vector index (``dims``). Every ``batch`` runs in
    one transaction; its reads see the state before its writes. ``search`` with a
    ``query`` ranks by cosine similarity; ``filter`` takes LangGraph's operators
    (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``) and keys that are plain paths
    (``"user.access-level"`` reaches into nested dicts; any other key is refused).

    ``user_id`` says whose the items are, so that ``memory.erase(user_id=...)`` reaches
    them: a user id for every item, or a function of the namespace that returns one (or
    None), e.g. ``user_id=lambda ns: ns[1] if ns[:1] == ("users",) else None``.

    ``ttl={"default_ttl": minutes, "refresh_on_read": True}`` (or ``put(..., ttl=...)``):
    an item's valid time ends that many minutes after it was written or last read; an
    expired item is never returned (whatever ``omit_expired`` says) and stays in
    ``history`` until a TTL sweep (``sweep_ttl``, or the sweeper of ``start_ttl_sweeper``)
    deletes it for good, with its history."""

    supports_ttl = True

    def __init__(self, memory: Any, *, scope: str | None = None, index: IndexConfig | None = None,
                 ttl: TTLConfig | None = None,
                 user_id: str | Callable[[tuple[str, ...]], str | None] | None = None) -> None:
        self.memory = check_memory(memory)
        # the core's key-value surface: this module translates LangGraph's operations to it
        self._items = item_store(self.memory)
        if user_id is not None and not callable(user_id):
            check.identifier(user_id, "user_id")
        self.user_id = user_id
        self.ttl_config = dict(ttl) if ttl else None  # type: ignore[assignment]
        self.root = None if scope is None else _scopes.check_path(scope)
        self.index_config: dict[str, Any] | None = dict(index) if index else None
        self.embeddings = None
        self.fields: list[tuple[str, Any]] = [("$", "$")]
        if self.index_config:
            if self.index_config.get("embed") is not None:
                self.embeddings = ensure_embeddings(self.index_config["embed"])
            self.fields = [(p, p if p == "$" else tokenize_path(p)) for p in (self.index_config.get("fields") or ["$"])]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._batcher: Batcher | None = None
        self._sweeper: _lg_sweeper.ThreadSweeper | _lg_sweeper.TaskSweeper
        if isinstance(self._items, AsyncItemStore):
            self._sweeper = _lg_sweeper.TaskSweeper(self._asweep)
        else:
            self._sweeper = _lg_sweeper.ThreadSweeper(self.sweep_ttl)
        if isinstance(self.memory, AsyncMemory):
            self._batcher = Batcher(self._abatch_now)
            try:  # built in async code: sync calls from other threads run on this loop
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                pass

    # -- namespaces and scopes ----------------------------------------------------------
    def scope_of(self, namespace: tuple[str, ...]) -> str:
        """The scope path of ``namespace`` (``InvalidNamespaceError`` if it cannot be one). A
        label is any non-empty string without ``.`` (LangGraph's rule); the characters a
        scope segment cannot hold are escaped (``("alice\\n",)`` is scope ``alice%0A``)."""
        for label in namespace:
            if not isinstance(label, str) or not label or "." in label:
                raise InvalidNamespaceError(f"namespace label {label!r} in {namespace!r} must be a non-empty "
                                            "string without '.'")
        path = "/".join(_lg_namespaces.to_segment(label) for label in namespace)
        if self.root:
            path = f"{self.root}/{path}" if path else self.root
        try:
            return _scopes.check_path(path, "namespace")
        except InvalidInputError as exc:
            raise InvalidNamespaceError(str(exc)) from None

    def user_of(self, namespace: tuple[str, ...]) -> str | None:
        """Whose the items of ``namespace`` are (the ``user_id`` the store was given)."""
        if self.user_id is None or isinstance(self.user_id, str):
            return self.user_id
        return check.identifier(self.user_id(tuple(namespace)), "user_id", allow_none=True)

    def _prefix(self, namespace: tuple[str, ...]) -> str | None:
        return self.scope_of(namespace) if namespace else self.root

    def namespace_of(self, scope: str) -> tuple[str, ...]:
        if self.root:
            scope = scope[len(self.root) + 1:] if scope != self.root else ""
        return tuple(_lg_namespaces.to_label(s) for s in scope.split("/")) if scope else ()

    def item_subject(self, namespace: tuple[str, ...], key: str) -> str:
        """The subject of the item's facts, for ``memory.history``."""
        return store.item_subject(self.scope_of(namespace), key)

    def history(self, namespace: tuple[str, ...], key: str) -> list[dict[str, Any]]:
        """Every value the item ever had, oldest first: ``{id, value, valid_from, valid_to,
        recorded_at, invalidated_at, reason}`` (``valid_to`` is when a later put replaced it
        or its TTL ended; ``reason`` is ``forgotten`` for a deleted value)."""
        if isinstance(self._items, AsyncItemStore):
            raise ConfigurationError("history() needs a Memory; on an AsyncMemory use ahistory()")
        return [asdict(v) for v in self._items.history(self.scope_of(namespace), key)]

    async def ahistory(self, namespace: tuple[str, ...], key: str) -> list[dict[str, Any]]:
        """``history`` for async code."""
        if not isinstance(self._items, AsyncItemStore):
            return await asyncio.to_thread(self.history, namespace, key)
        return [asdict(v) for v in await self._items.history(self.scope_of(namespace), key)]

    # -- TTL sweeping (on an AsyncMemory, coroutines, as on LangGraph's async stores) ---
    def sweep_ttl(self) -> Any:
        """Delete for good the store's expired items (under its ``scope`` root), each with its
        history; returns how many items went."""
        return self._items.sweep(self.root)

    async def _asweep(self) -> int:
        assert isinstance(self._items, AsyncItemStore)
        return await self._items.sweep(self.root)

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> Any:
        """Run ``sweep_ttl`` every ``sweep_interval_minutes`` (default: the ``ttl`` config's
        ``sweep_interval_minutes``, else 5) until ``stop_ttl_sweeper``; returns a future
        (over an AsyncMemory: a task) that ends when the sweeper does. A running sweeper is
        kept (its future returned)."""
        minutes = _lg_sweeper.interval(sweep_interval_minutes, self.ttl_config)  # type: ignore[arg-type]
        return self._sweeper.start(minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> Any:
        """Stop the sweeper, waiting up to ``timeout`` seconds (None: as long as a sweep
        takes); True once it has stopped or when none ran."""
        return self._sweeper.stop(timeout)

    # -- batch --------------------------------------------------------------------------
    def _plan(self, ops: Iterable[Op]) -> tuple[list[Op], list[ItemRead], list[PutOp]]:
        ops = list(ops)
        gets = [op for op in ops if isinstance(op, GetOp)]
        refresh = any(op.refresh_ttl for op in gets)  # one get of the batch asking restarts them all
        reads: list[ItemRead] = [ItemGet(self.scope_of(op.namespace), op.key, refresh) for op in gets]
        for op in ops:
            if isinstance(op, SearchOp):
                _lg_filters.check(op.filter)  # refused before anything is read
                # a filter runs here, on the prefix's items: then the query fetches them all
                unfiltered = not op.filter and op.offset >= 0 and op.limit >= 0
                limit = min(op.offset + op.limit, store.MAX_SEARCH) if unfiltered else store.MAX_SEARCH
                reads.append(ItemSearch(self._prefix(op.namespace_prefix), limit, query=op.query,
                                        refresh=op.refresh_ttl))
            elif isinstance(op, ListNamespacesOp):
                reads.append(ItemScopes(self._namespaces_prefix(op)))
            elif isinstance(op, PutOp):
                if not op.namespace:
                    raise InvalidNamespaceError("a put needs a non-empty namespace")
                self.scope_of(op.namespace)
            elif not isinstance(op, GetOp):
                raise ValueError(f"unknown store operation {type(op).__name__}")
        last: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, PutOp):
                last[(tuple(op.namespace), op.key)] = op  # the last write of a key wins
        return ops, reads, list(last.values())

    def _namespaces_prefix(self, op: ListNamespacesOp) -> str | None:
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix" and condition.path and "*" not in condition.path:
                return self.scope_of(tuple(condition.path))
        return self.root

    def _texts(self, op: PutOp) -> tuple[str, bool, list[str]]:
        """The item's text (its indexed texts joined), whether it is embedded, and the
        indexed texts: each field's, each element of a path like ``key[*].text``."""
        if op.index is False:
            return json.dumps(op.value, ensure_ascii=False, default=str), False, []
        fields = self.fields if op.index is None else [(p, p if p == "$" else tokenize_path(p)) for p in op.index]
        texts = [t for _, path in fields for t in get_text_at_path(op.value, path) if t.strip()]
        joined = "\n".join(texts)
        return joined or json.dumps(op.value, ensure_ascii=False, default=str), True, texts

    def _writes(self, puts: list[PutOp]) -> list[ItemWrite]:
        writes: list[ItemWrite] = []
        for op in puts:
            scope = self.scope_of(op.namespace)
            if op.value is None:
                writes.append(ItemDelete(scope, op.key))
                continue
            user_id = self.user_of(op.namespace)
            store.value_json(op.value)  # refused here, before a field of it is read or embedded
            text, embed, texts = self._texts(op)
            if len(texts) > store.MAX_FIELD_TEXTS:
                raise InvalidInputError("value", f"has {len(texts):,} indexed texts (fields and path elements); "
                                                 f"the limit is {store.MAX_FIELD_TEXTS}")
            writes.append(ItemPut(
                scope, op.key, op.value, text=text, embed=embed,
                field_texts=texts if embed and len(texts) > 1 else None,  # scored by its best text, each embedded
                ttl=None if isinstance(op.ttl, NotProvided) else op.ttl, user_id=user_id))
        return writes

    @staticmethod
    def _documents(writes: list[ItemWrite]) -> list[str]:
        """What the store's own embedder embeds for ``writes``: each text, then its field texts."""
        return [t for w in writes if isinstance(w, ItemPut) and w.embed and w.text is not None
                for t in [w.text, *(w.field_texts or ())]]

    @staticmethod
    def _place(writes: list[ItemWrite], vectors: list[list[float]]) -> list[ItemWrite]:
        """``writes`` with the store's own embedder's ``vectors`` (of ``_documents``) in them."""
        wanted = len(GraphMemStore._documents(writes))
        if len(vectors) != wanted:
            raise InvalidInputError("embed", f"returned {len(vectors)} vectors for {wanted} texts")
        it = iter(vectors)
        placed: list[ItemWrite] = []
        for w in writes:
            if isinstance(w, ItemPut) and w.embed and w.text is not None:
                w = replace(w, embedding=next(it),
                            field_vectors=[next(it) for _ in w.field_texts] if w.field_texts else None)
            placed.append(w)
        return placed

    def _results(self, ops: list[Op], results: ItemResults) -> list[Result]:
        out: list[Result] = []
        got, found, scopes = iter(results.got), iter(results.found), iter(results.scopes)
        for op in ops:
            if isinstance(op, GetOp):
                item = next(got)
                out.append(None if item is None else self._item(item))
            elif isinstance(op, SearchOp):
                items = [self._item(i, search=bool(op.query)) for i in next(found)]
                if op.filter:
                    items = [i for i in items if _lg_filters.matches(i.value, op.filter)]
                out.append(items[op.offset: op.offset + op.limit])
            elif isinstance(op, ListNamespacesOp):
                out.append(self._namespaces(op, next(scopes)))
            else:
                out.append(None)
        return out

    def _item(self, stored: StoredItem, *, search: bool | None = None) -> Item:
        fields: dict[str, Any] = dict(namespace=self.namespace_of(stored.scope), key=stored.key,
                                      value=stored.value, created_at=stored.created, updated_at=stored.updated)
        if search is None:
            return Item(**fields)
        similarity = stored.similarity
        score = None if not search or similarity is None else 2.0 * similarity - 1.0  # back to a cosine
        return SearchItem(**fields, score=score)

    def _namespaces(self, op: ListNamespacesOp, scopes: list[str]) -> list[tuple[str, ...]]:
        found = [self.namespace_of(s) for s in scopes if self.root is None or s.startswith(self.root + "/")]
        found = [ns for ns in found if all(_namespace_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            found = sorted({ns[: op.max_depth] for ns in found})
        else:
            found = sorted(set(found))
        return found[op.offset: op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in one transaction (see the class docstring)."""
        if isinstance(self._items, AsyncItemStore):
            return self._from_sync_to_loop(ops)
        ops, reads, puts = self._plan(ops)
        writes = self._writes(puts)
        if self.embeddings is not None:
            reads = [replace(r, vector=self.embeddings.embed_query(r.query))
                     if isinstance(r, ItemSearch) and r.query else r for r in reads]
            documents = self._documents(writes)
            if documents:
                writes = self._place(writes, self.embeddings.embed_documents(documents))
        return self._results(ops, self._items.batch(reads, writes))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` for async graphs (a ``Memory`` runs in a worker thread). On an
        ``AsyncMemory``, concurrent calls are merged into shared transactions (identical
        reads asked once, the last put of a key wins; a merged batch that fails is run
        again call by call, so an error is only its own call's)."""
        if self._batcher is None:
            return await asyncio.to_thread(self.batch, list(ops))
        self._loop = asyncio.get_running_loop()
        return await self._batcher.submit(list(ops))

    async def _abatch_now(self, ops: list[Op]) -> list[Result]:
        """One transaction for ``ops`` (the batcher's merged calls) on the AsyncMemory."""
        assert isinstance(self._items, AsyncItemStore)
        ops, reads, puts = self._plan(ops)
        writes = self._writes(puts)
        if self.embeddings is not None:
            reads = [replace(r, vector=await self.embeddings.aembed_query(r.query))
                     if isinstance(r, ItemSearch) and r.query else r for r in reads]
            documents = self._documents(writes)
            if documents:
                writes = self._place(writes, await self.embeddings.aembed_documents(documents))
        return self._results(ops, await self._items.batch(reads, writes))

    def _from_sync_to_loop(self, ops: Iterable[Op]) -> list[Result]:
        """A sync call on a store over an AsyncMemory: run it on the memory's event loop
        from another thread (as LangGraph runs sync nodes of an async graph)."""
        loop = self._loop
        if loop is None or not loop.is_running():
            raise ConfigurationError("a sync call on a GraphMemStore over an AsyncMemory runs on the event loop "
                                     "the store was built in, and there is none running: build the store in "
                                     "async code (or make one async call first), or give it a Memory")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise EventLoopThreadError("sync store calls from the event loop's own thread would block it: "
                                       "use aget/aput/asearch/adelete/alist_namespaces/abatch")
        return asyncio.run_coroutine_threadsafe(self.abatch(list(ops)), loop).result()


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path) if condition.match_type == "prefix" else zip(reversed(namespace), reversed(path))
    return all(p == "*" or n == p for n, p in pairs)

