"""Any memory, whatever its kind: get one, list the scopes, forget
(tombstones) and erase (hard delete, with what was derived only from the erased records).
``graphmem/_sync/records.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Record
from .._base.records import HistoryRow, IdRow, to_record
from .._base.scopes import ScopePrunedRow, ScopeRow
from .._base.traced import instrument
from .._memory import entities
from .._memory import erase as _erase
from .._memory.erase import (
    DeletedRow,
    DerivedRow,
    EntitiesRow,
    EraseReport,
    RestoredRow,
    ScrubbedRow,
    SelectedRow,
)
from .backend import AsyncStore
from .executor import AsyncTx
from .facts import after_invalidation

_ERASE_BATCH = 5_000


@instrument("graphmem", names=("get", "scopes", "forget", "erase"))
class AsyncRecords:
    """Get, list, forget and erase any memory of one tenant, whatever its kind (``AsyncMemory`` hands these calls to it)."""

    def __init__(self, store: AsyncStore) -> None:
        self._store = store

    async def get(self, id: str) -> Record | None:
        """The memory of any kind with this id in this tenant, with ``superseded_by`` filled
        in, or None."""
        check.identifier(id, "id")
        rows = await self._store.run.read_as(HistoryRow, "memory_get", tenant=self._store.core.tenant, id=id)
        if not rows:
            return None
        return to_record(rows[0].node, superseded_by=rows[0].superseded_by)

    async def scopes(self) -> list[dict[str, Any]]:
        """The tenant's scope tree: each path, its parent and its number of memories."""
        rows = await self._store.run.read_as(ScopeRow, "scope_tree", tenant=self._store.core.tenant)
        return [{"path": r.path, "parent": r.parent, "memories": r.memories} for r in rows]

    async def forget(
        self,
        *,
        scope: str,
        id: str | None = None,
        text: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> int:
        """Forget what the user asked to forget: believed memories visible in ``scope``
        matching every given selector are invalidated (reason 'forgotten') and kept as
        tombstones, so extraction never restates them. ``subject`` may name an entity by
        name or alias. Returns how many were forgotten."""
        chain = _scopes.chain(_scopes.check_path(scope))
        if id is None and text is None and subject is None and predicate is None:
            raise InvalidInputError("id", "forget() needs at least one of id, text, subject, predicate")
        params = {
            "id": check.identifier(id, "id", allow_none=True),
            "textKey": None if text is None else check.text_key(check.text(text, "text")),
            **entities.subject_params(subject, required=False),
            "predicate": check.predicate(predicate),
        }
        now = self._store.core.now()
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> int:
            ids = [r.id for r in await tx.run_as(IdRow, "memory_forget", tenant=tenant, chain=chain, now=now, **params)]
            await after_invalidation(tx, self._store.core.tenant, ids, ids, now)
            tx.emit("invalidated", ids, reason="forgotten", scope=chain[-1])
            tx.emit("forgotten", ids, scope=chain[-1])
            return len(ids)

        return await self._store.run.write(work)

    async def erase(
        self, *, id: str | None = None, user_id: str | None = None, session_id: str | None = None,
        scope: str | None = None,
    ) -> EraseReport:
        """Hard delete (data-protection requests): the memories matching every given selector
        (``scope`` means that scope and all below it; ``user_id`` also names the core notes
        filed under that owner; ``session_id`` every record written in that conversation,
        whoever it names) with their edges, embeddings and episode windows, and what
        only they gave rise to: records derived over CITES / DERIVED_FROM from erased records
        alone, entities nothing else refers to, scopes left empty. No id of an erased record
        stays in a surviving one. A surviving fact that an erased one had superseded is
        given back its times, as if the erased fact had never been said: current again, or
        ended where a surviving later fact says (counted in ``restored``). Large erases run in transactions of about 5,000 memories,
        each landing whole; calling again after an interruption finishes the job. Returns
        an ``EraseReport``: counts by kind, ``total`` (or ``int(report)``) the memories."""
        if id is None and user_id is None and session_id is None and scope is None:
            raise InvalidInputError("id", "erase() needs at least one of id, user_id, session_id, scope")
        params = {
            "id": check.identifier(id, "id", allow_none=True),
            "userId": check.identifier(user_id, "user_id", allow_none=True),
            "sessionId": check.identifier(session_id, "session_id", allow_none=True),
            "scope": None if scope is None else _scopes.check_path(scope),
        }
        tenant = self._store.core.tenant
        limit = _ERASE_BATCH

        async def batch(tx: AsyncTx) -> tuple[bool, EraseReport]:
            marked = (await tx.run_as(SelectedRow, "erase_mark_selected", tenant=tenant, limit=limit, **params))[0]
            await tx.run_as(DerivedRow, "erase_mark_derived", tenant=tenant, **params)
            await tx.run_as(EntitiesRow, "erase_mark_entities", tenant=tenant, personal=_erase.PERSONAL)
            # what an erased fact superseded is current again (or ends where a survivor says)
            restored = (await tx.run_as(RestoredRow, "erase_restore", tenant=tenant))[0].restored
            if restored:
                await tx.run("fact_relates_sync", tenant=tenant, ids=restored)
            await tx.run_as(ScrubbedRow, "erase_scrub", tenant=tenant)
            rows = await tx.run_as(DeletedRow, "erase_delete", tenant=tenant)
            more = marked.selected >= limit or marked.orphans >= limit
            return more, _erase.batch_report(rows[0] if rows else None) + EraseReport(restored=len(restored))

        report = EraseReport()
        more = True
        while more:  # each batch lands whole, so a repeated erase simply continues
            more, done = await self._store.run.write(batch)
            report += done
        # scopes left empty go too: a path can carry a person's name
        pruned = await self._store.run.write_one_as(ScopePrunedRow, "scope_prune", tenant=tenant)
        report += EraseReport(scope=pruned[0].pruned if pruned else 0)
        self._store.events.emit("erased", scope=params["scope"], detail={
            "total": report.total, **{kind: n for kind, n in report.model_dump().items() if n}})
        return report
