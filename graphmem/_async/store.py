"""Key-value items on ``AsyncMemory`` (the records behind the LangGraph store; see
``graphmem/_store.py`` for their shape). ``graphmem/_sync/store.py`` is generated from this
file by ``tools/unasync.py``."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from typing import Any

from .. import _facts, _scopes, _store
from .. import _validate as check
from .._errors import InvalidInputError
from .._models import Provenance
from .executor import AsyncTx
from .host import AsyncHost


class AsyncStoreMixin(AsyncHost):
    """``_store_batch`` is the one primitive of ``graphmem.integrations.langgraph``; it is
    private because its operations are shaped for that store."""

    async def _store_batch(self, reads: list[dict[str, Any]], writes: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """Run ``reads`` and then ``writes`` in one transaction (a read transaction when
        there is nothing to write); the reads see the state before the writes.

        reads: ``{"op": "get", "items": [(scope, key), ...], "refresh": bool}``,
        ``{"op": "search", "prefix": scope | None, "query": str | None, "vector": list | None,
        "limit": int, "refresh": bool}`` (the query is embedded with the memory's embedder
        unless a vector is given) or ``{"op": "namespaces", "prefix": scope | None}``.
        writes: ``{"scope", "key", "value": dict | None (delete), "text": str | None,
        "embed": bool, "embedding": list | None, "ttl": minutes | None, "user_id": str | None}``, at most one per
        (scope, key); optionally ``"field_texts": [str, ...]`` (two or more: the item is scored
        by its best text, each embedded by the memory's embedder unless ``"field_vectors"``
        gives their vectors). An item with a TTL is valid until that many minutes after it was
        written or (``refresh``) last read. Returns one list of rows per read: ``{id, scope,
        key, value (dict), created, updated, similarity, ttl}`` (namespaces: ``{scope}``)."""
        tenant = self._core.tenant
        now = self._core.now()
        plans = [await self._store_read_plan(op, i, now) for i, op in enumerate(reads)]
        puts, deletes, seen = [], [], set()
        for i, w in enumerate(writes):
            scope = _scopes.check_path(w.get("scope"), f"writes[{i}].scope")
            key = _store.check_key(w.get("key"))
            if (scope, key) in seen:
                raise InvalidInputError(f"writes[{i}].key", f"{key!r} is written twice at {scope!r} in one batch")
            seen.add((scope, key))
            subject = _store.item_subject(scope, key)
            if w.get("value") is None:
                deletes.append({"scope": scope, "subject": subject})
                continue
            encoded = _store.value_json(w["value"])
            w = {**w, "field_texts": _store.field_texts(w.get("field_texts"), f"writes[{i}].field_texts")}
            puts.append((w, scope, key, subject, encoded))
        if any(w.get("embedding") is not None or w.get("field_vectors") is not None for w, *_ in puts):
            await self._known_dimension()
        rows = []
        for w, scope, key, subject, encoded in puts:
            ttl = _ttl(w.get("ttl"))
            row = _facts.row({
                "text": _store.record_text(w.get("text"), encoded), "scope": scope, "subject": subject,
                "predicate": _store.ITEM_PREDICATE, "object": "pending", "single_valued": True, "valid_from": now,
                "valid_to": None if ttl is None else now + timedelta(minutes=ttl),
                "provenance": Provenance.MANUAL, "embedding": w.get("embedding"), "user_id": w.get("user_id"),
            }, tenant=self._core.tenant, now=now, single_valued=self._core.single_valued_predicates,
                dimension=self._core.dimension)
            props = row["props"]
            props["storeTtl"] = ttl
            props["object"] = props["id"]  # every version differs from the one it replaces
            props["storeKey"] = key
            props["valueJson"] = encoded
            rows.append(row)
        embed = [i for i, (w, *_) in enumerate(puts) if w.get("embed", True) and w.get("embedding") is None]
        await self._embed([rows[i] for i in embed], ["value"] * len(embed))
        await self._store_field_vectors(puts, rows)

        async def work(tx: AsyncTx) -> list[list[dict[str, Any]]]:
            results = [await self._store_read(tx.run, plan) for plan in plans]
            refresh = _to_refresh(plans, results)
            if refresh:
                await tx.run("store_refresh", tenant=tenant, ids=refresh, now=now)
            if rows:
                keyed = [{"i": n, "scope": r["props"]["scope"], "subject": r["props"]["subject"]} for n, r in enumerate(rows)]
                current = {r["i"]: r for r in await tx.run("store_get", tenant=tenant, rows=keyed, now=now)}
                for n, row in enumerate(rows):
                    row["props"]["storeCreatedAt"] = current[n]["created"] if n in current else now
                await self._create_facts(tx, rows, now)
            if deletes:
                gone = [r["id"] for r in await tx.run("store_forget", tenant=tenant, rows=deletes, now=now)]
                await self._after_invalidation(tx, gone, gone, now)
                tx.emit("invalidated", gone, reason="forgotten")
            return results

        if writes:
            return await self._run.write(work)
        results = [await self._store_read(self._read_one, plan) for plan in plans]
        refresh = _to_refresh(plans, results)
        if refresh:  # only reads of items with a TTL pay for a write
            await self._run.write_one("store_refresh", tenant=tenant, ids=refresh, now=now)
        return results

    async def _store_field_vectors(self, puts: list[tuple[Any, ...]], rows: list[Any]) -> None:
        """``storeVectors`` of the puts with several indexed texts: their own vectors, else
        the memory's embedder's, in one call (an item is scored by its best text)."""
        several = [n for n, (w, *_) in enumerate(puts) if w["field_texts"] and w.get("embed", True)]
        todo = [n for n in several if puts[n][0].get("field_vectors") is None]
        if todo and self._core.embedder is not None:
            texts = [t for n in todo for t in puts[n][0]["field_texts"]]
            got = await self._core.embedder.aembed_documents(texts)
            if len(got) != len(texts):
                raise InvalidInputError("embedder", f"returned {len(got)} vectors for {len(texts)} texts")
            vectors = iter(got)
            for n in todo:
                puts[n][0]["field_vectors"] = [next(vectors) for _ in puts[n][0]["field_texts"]]
        if not several:
            return
        dimension = await self._known_dimension()
        for n in several:
            w = puts[n][0]
            if w.get("field_vectors") is not None:
                rows[n]["props"]["storeVectors"] = _store.flat_vectors(
                    w["field_vectors"], len(w["field_texts"]), dimension, "field_vectors")

    async def _store_history(self, scope: str, key: str) -> list[dict[str, Any]]:
        """Every value of the item ``key`` at ``scope``, oldest first: ``{id, value,
        valid_from, valid_to, recorded_at, invalidated_at, reason}``."""
        subject = _store.item_subject(_scopes.check_path(scope), key)
        rows = await self._run.read("store_history", tenant=self._core.tenant, subject=subject, scope=scope)
        return [{"id": r["id"], "value": json.loads(r["value"]), "valid_from": r["validFrom"],
                 "valid_to": r["validTo"], "recorded_at": r["recordedAt"], "invalidated_at": r["invalidatedAt"],
                 "reason": r["reason"]} for r in rows]

    async def _read_one(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._run.read(name, **params)

    async def _store_read_plan(self, op: dict[str, Any], i: int, now: datetime) -> dict[str, Any]:
        """Validate one read and embed its query; return the template and parameters."""
        tenant = self._core.tenant
        kind = op.get("op")
        if kind == "get":
            rows = [{"i": n, "scope": scope, "subject": _store.item_subject(scope, key)}
                    for n, (scope, key) in enumerate(op["items"])]
            return {"op": kind, "name": "store_get", "n": len(rows), "refresh": bool(op.get("refresh")),
                    "params": {"tenant": tenant, "rows": rows, "now": now}}
        prefix = op.get("prefix")
        if prefix is not None:
            _scopes.check_path(prefix, f"reads[{i}].prefix")
        if kind == "namespaces":
            return {"op": kind, "name": "store_namespaces", "refresh": False,
                    "params": {"tenant": tenant, "prefix": prefix, "now": now}}
        if kind != "search":
            raise InvalidInputError(f"reads[{i}].op", f"{kind!r} is not one of 'get', 'search', 'namespaces'")
        limit = op.get("limit")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= _store.MAX_SEARCH:
            raise InvalidInputError(f"reads[{i}].limit", f"must be an integer from 0 to {_store.MAX_SEARCH}")
        vector = op.get("vector")
        if vector is None and op.get("query") and self._core.embedder is not None:
            vector = await self._core.embedder.aembed_query(check.text(op["query"], "query"))
        if vector is not None:
            vector = check.embedding(vector, "query embedding", await self._known_dimension())
        return {"op": kind, "name": "store_search", "refresh": bool(op.get("refresh")),
                "params": {"tenant": tenant, "prefix": prefix, "vector": vector, "limit": limit, "now": now}}

    async def _store_read(self, run: Any, plan: dict[str, Any]) -> list[dict[str, Any]]:
        if plan["op"] == "get" and not plan["n"]:
            return []
        rows: list[dict[str, Any]] = await run(plan["name"], **plan["params"])
        if plan["op"] == "namespaces":
            return rows
        out = [{**r, "value": json.loads(r["value"]), "similarity": r.get("similarity")} for r in rows]
        if plan["op"] == "get":  # one row per asked item, None where there is no current value
            found = {r["i"]: r for r in out}
            return [found.get(n) for n in range(plan["n"])]  # type: ignore[misc]  # None marks a missing item
        return out


_MAX_TTL = 100 * 366 * 24 * 60  # a century, in minutes: any end of valid time a datetime can hold


def _ttl(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError("ttl", f"must be a positive number of minutes, got {value!r}")
    if value > _MAX_TTL:
        raise InvalidInputError("ttl", f"is {value:g} minutes; the limit is {_MAX_TTL:,} (a century)")
    return float(value)


def _to_refresh(plans: list[dict[str, Any]], results: list[list[Any]]) -> list[str]:
    """Ids of the items with a TTL that reads asking for a refresh returned."""
    return sorted({r["id"] for plan, rows in zip(plans, results) if plan["refresh"]
                   for r in rows if r is not None and r.get("ttl") is not None})
