"""Key-value items of a memory object (what the LangGraph store keeps; ``graphmem/_memory/store.py``
says what an item is, how it is stored and what the reads and writes below take and return).
``graphmem/_sync/store.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.records import IdRow
from .._memory import store
from .._memory.facts import FactRow
from .._memory.store import (
    FoundRow,
    ItemDelete,
    ItemGet,
    ItemHistoryRow,
    ItemPut,
    ItemRead,
    ItemResults,
    ItemRow,
    ItemScopes,
    ItemSearch,
    ItemVersion,
    ItemWrite,
    NamespaceRow,
    SweepRow,
)
from .backend import AsyncStore
from .executor import AsyncTx
from .facts import AsyncFacts, after_invalidation

if TYPE_CHECKING:
    from .memory import AsyncMemory

Put = tuple[ItemPut, str, list[str]]
"""A checked put: the write, its value as JSON and its texts scored one by one (or none)."""


class AsyncItemStore:
    """The key-value items of one ``AsyncMemory``: the core surface that
    ``graphmem.integrations.langgraph`` (and any other key-value adapter) is meant to call.
    It speaks scopes, keys and JSON values, not a framework's operations, and is not in
    ``graphmem.__all__``."""

    def __init__(self, memory: AsyncMemory) -> None:
        self.memory = memory
        self._items: AsyncItems = memory._items

    async def batch(self, reads: Sequence[ItemRead] = (), writes: Sequence[ItemWrite] = ()) -> ItemResults:
        """Run ``reads`` and then ``writes`` (at most one per scope and key) in one
        transaction: the reads see the state before the writes. With nothing to write, the
        reads run as read queries, and only reads that restart TTLs write."""
        return await self._items.batch(reads, writes)

    async def history(self, scope: str, key: str) -> list[ItemVersion]:
        """Every value the item ``key`` at ``scope`` ever had, oldest first."""
        return await self._items.history(scope, key)

    async def sweep(self, prefix: str | None = None) -> int:
        """Delete for good the items at ``prefix`` or below it (None: the whole tenant) whose
        current value's TTL has run out, each with every value it ever had (its history);
        returns how many items went. Without a sweep an expired item is only never read."""
        return await self._items.sweep(prefix)


class AsyncItems:
    """The I/O of ``AsyncItemStore``: key-value items as facts of one tenant (adapters go through that class)."""

    def __init__(self, store: AsyncStore, facts: AsyncFacts) -> None:
        self._store = store
        self._facts = facts

    async def batch(self, reads: Sequence[ItemRead], writes: Sequence[ItemWrite]) -> ItemResults:
        tenant = self._store.core.tenant
        now = self._store.core.now()
        gets = [read for read in reads if isinstance(read, ItemGet)]
        keyed = [{"i": n, "scope": get.scope, "subject": store.item_subject(get.scope, get.key)}
                 for n, get in enumerate(gets)]
        queries = [(read, *await self._item_query(read, i, now))
                   for i, read in enumerate(reads) if not isinstance(read, ItemGet)]
        searches = [read for read in reads if isinstance(read, ItemSearch)]
        puts, deletes = self._item_writes(writes)
        if any(put.embedding is not None or put.field_vectors is not None for put, *_ in puts):
            await self._store.known_dimension()
        rows = [store.item_row(put, encoded, tenant=tenant, now=now, dimension=self._store.known.dimension)
                for put, encoded, _ in puts]
        embed = [n for n, (put, *_) in enumerate(puts) if put.embed and put.embedding is None]
        await self._store.embed([rows[n] for n in embed], ["value"] * len(embed))
        await self._item_field_vectors(puts, rows)

        async def read(run: Any) -> tuple[ItemResults, list[str]]:
            results = ItemResults(got=[None] * len(gets))
            if gets:
                for r in await run(ItemRow, "store_get", tenant=tenant, rows=keyed, now=now):
                    results.got[r.i] = store.stored_item(r)
            for query, name, params in queries:
                if isinstance(query, ItemScopes):
                    results.scopes.append([r.scope for r in await run(NamespaceRow, name, **params)])
                else:
                    results.found.append([store.stored_item(r) for r in await run(FoundRow, name, **params)])
            return results, _to_refresh(gets, searches, results)

        async def work(tx: AsyncTx) -> ItemResults:
            results, refresh = await read(tx.run_as)
            if refresh:
                await tx.run("store_refresh", tenant=tenant, ids=refresh, now=now)
            if rows:
                keys = [{"i": n, "scope": r["props"]["scope"], "subject": r["props"]["subject"]} for n, r in enumerate(rows)]
                current = {r.i: r for r in await tx.run_as(ItemRow, "store_get", tenant=tenant, rows=keys, now=now)}
                for n, row in enumerate(rows):  # an item was created by its first put
                    row["props"]["storeCreatedAt"] = current[n].created if n in current else now
                await self._facts.create_facts(tx, rows, now)
            if deletes:
                gone = [r.id for r in await tx.run_as(IdRow, "store_forget", tenant=tenant, rows=deletes, now=now)]
                await after_invalidation(tx, self._store.core.tenant, gone, gone, now)
                tx.emit("invalidated", gone, reason="forgotten")
                tx.emit("forgotten", gone)
            return results

        if writes:
            return await self._store.run.write(work)
        results, refresh = await read(self._store.run.read_as)
        if refresh:  # only reads of items with a TTL pay for a write
            await self._store.run.write_one("store_refresh", tenant=tenant, ids=refresh, now=now)
        return results

    @staticmethod
    def _item_writes(writes: Sequence[ItemWrite]) -> tuple[list[Put], list[dict[str, str]]]:
        """The checked puts, and the ``store_forget`` rows of the deletes."""
        puts: list[Put] = []
        deletes: list[dict[str, str]] = []
        seen = set()
        for i, write in enumerate(writes):
            if not isinstance(write, (ItemPut, ItemDelete)):
                raise InvalidInputError(f"writes[{i}]", f"must be an ItemPut or an ItemDelete, got {type(write).__name__}")
            scope = scopes.check_path(write.scope, f"writes[{i}].scope")
            key = store.check_key(write.key)
            if (scope, key) in seen:
                raise InvalidInputError(f"writes[{i}].key", f"{key!r} is written twice at {scope!r} in one batch")
            seen.add((scope, key))
            if isinstance(write, ItemDelete):
                deletes.append({"scope": scope, "subject": store.item_subject(scope, key)})
            else:
                encoded = store.value_json(write.value)
                puts.append((write, encoded, store.field_texts(write.field_texts, f"writes[{i}].field_texts") or []))
        return puts, deletes

    async def _item_field_vectors(self, puts: list[Put], rows: list[FactRow]) -> None:
        """``storeVectors`` of the puts with several indexed texts: their own vectors, else
        the memory's embedder's, in one call (an item is scored by its best text)."""
        several = [n for n, (put, _, texts) in enumerate(puts) if texts and put.embed]
        vectors = {n: puts[n][0].field_vectors for n in several if puts[n][0].field_vectors is not None}
        todo = [n for n in several if n not in vectors]
        if todo and self._store.core.embedder is not None:
            texts = [t for n in todo for t in puts[n][2]]
            got = await self._store.core.embedder.aembed_documents(texts)
            if len(got) != len(texts):
                raise InvalidInputError("embedder", f"returned {len(got)} vectors for {len(texts)} texts")
            it = iter(got)
            for n in todo:
                vectors[n] = [next(it) for _ in puts[n][2]]
        if not vectors:
            return
        dimension = await self._store.known_dimension()
        for n, given in vectors.items():
            rows[n]["props"]["storeVectors"] = store.flat_vectors(given, len(puts[n][2]), dimension, "field_vectors")

    async def history(self, scope: str, key: str) -> list[ItemVersion]:
        subject = store.item_subject(scopes.check_path(scope), key)
        rows = await self._store.run.read_as(ItemHistoryRow, "store_history", tenant=self._store.core.tenant,
                                             subject=subject, scope=scope)
        return [store.item_version(r) for r in rows]

    async def sweep(self, prefix: str | None) -> int:
        if prefix is not None:
            prefix = scopes.check_path(prefix, "prefix")
        tenant, now = self._store.core.tenant, self._store.core.now()
        items = facts = 0
        while True:  # batches of SWEEP_BATCH items, each landing whole
            rows = await self._store.run.write_one_as(SweepRow, "store_sweep", tenant=tenant, prefix=prefix, now=now,
                                                      limit=store.SWEEP_BATCH)
            done = int(rows[0].items) if rows else 0
            items, facts = items + done, facts + (int(rows[0].facts) if rows else 0)
            if done < store.SWEEP_BATCH:
                break
        if facts:
            self._store.events.emit("erased", scope=prefix, reason="expired", detail={"total": facts, "fact": facts})
        return items

    async def _item_query(self, read: ItemRead, i: int, now: datetime) -> tuple[str, dict[str, Any]]:
        """Check a search or a scope listing, embed its query; return the template and parameters."""
        tenant = self._store.core.tenant
        if not isinstance(read, (ItemSearch, ItemScopes)):
            raise InvalidInputError(f"reads[{i}]", f"must be an ItemGet, ItemSearch or ItemScopes, got {type(read).__name__}")
        if read.prefix is not None:
            scopes.check_path(read.prefix, f"reads[{i}].prefix")
        if isinstance(read, ItemScopes):
            return "store_namespaces", {"tenant": tenant, "prefix": read.prefix, "now": now}
        limit: Any = read.limit
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= store.MAX_SEARCH:
            raise InvalidInputError(f"reads[{i}].limit", f"must be an integer from 0 to {store.MAX_SEARCH}")
        vector = read.vector
        if vector is None and read.query and self._store.core.embedder is not None:
            vector = await self._store.core.embedder.aembed_query(check.text(read.query, "query"))
        if vector is not None:
            vector = check.embedding(vector, "query embedding", await self._store.known_dimension())
        return "store_search", {"tenant": tenant, "prefix": read.prefix, "vector": vector, "limit": limit, "now": now}


def _to_refresh(gets: list[ItemGet], searches: list[ItemSearch], results: ItemResults) -> list[str]:
    """Ids of the items with a TTL that reads asking for a refresh returned."""
    read = [item for get, item in zip(gets, results.got) if get.refresh]
    read += [item for search, found in zip(searches, results.found) if search.refresh for item in found]
    return sorted({item.id for item in read if item is not None and item.ttl is not None})
