"""Conversations: a session's episodes in reading order, the sessions
of a scope, and forgetting one session. Chat-history integrations build on these.
``graphmem/_sync/sessions.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.models import Episode
from .._base.records import IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._recall.context import estimate_tokens
from .._working import sessions as _sessions
from .backend import AsyncStore
from .executor import AsyncTx
from .facts import after_invalidation

MAX_MESSAGES = 10_000


@instrument("graphmem", names=("messages", "sessions", "clear_session"))
class AsyncSessions:
    """A tenant's conversations: a session's episodes, the sessions of a scope, clearing one (``AsyncMemory`` hands these calls to it)."""

    def __init__(self, store: AsyncStore) -> None:
        self._store = store

    """A session is the set of episodes written with one ``session_id`` (``ingest`` or
    ``add_episode``); it is read where it is visible, like every memory (contract §5)."""

    async def messages(
        self,
        session_id: str,
        *,
        scope: str,
        max_messages: int = 50,
        max_tokens: int | None = None,
    ) -> list[Episode]:
        """The believed episodes of ``session_id`` visible in ``scope``, oldest first: the
        newest ``max_messages`` of them, cut further (oldest dropped first) to fit
        ``max_tokens`` when given (estimated as characters / 4, like ``context``)."""
        check.identifier(session_id, "session_id")
        chain = scopes.chain(scopes.check_path(scope))
        limit = check.count(max_messages, "max_messages", most=MAX_MESSAGES)
        budget = None if max_tokens is None else check.count(max_tokens, "max_tokens")
        rows = await self._store.run.read_as(NodeRow, "session_messages", tenant=self._store.core.tenant,
                                             sessionId=session_id, chain=chain, limit=limit)
        newest_first = [record_of(Episode, r.node) for r in rows]
        if budget is not None:
            kept, used = [], 0
            for episode in newest_first:
                used += estimate_tokens(episode.text)
                if used > budget:
                    break
                kept.append(episode)
            newest_first = kept
        return newest_first[::-1]

    async def sessions(self, *, scope: str, user_id: str | None = None) -> list[dict[str, Any]]:
        """The sessions with believed episodes visible in ``scope`` (of ``user_id`` when
        given): ``{session_id, first, last, count}``, most recently active first."""
        chain = scopes.chain(scopes.check_path(scope))
        rows = await self._store.run.read_as(_sessions.SessionRow, "session_list", tenant=self._store.core.tenant,
                                             chain=chain, userId=check.identifier(user_id, "user_id", allow_none=True))
        return [asdict(r) for r in rows]  # {session_id, first, last, count}

    async def clear_session(self, session_id: str, *, scope: str) -> int:
        """Forget the session's believed episodes visible in ``scope``: like ``forget``,
        they are invalidated (reason 'forgotten') and kept as tombstones, so the session
        reads as empty while the audit trail stays; facts extracted from them are kept
        (forget those with ``forget``, or hard-delete with ``erase``). Returns how many
        episodes were forgotten."""
        check.identifier(session_id, "session_id")
        chain = scopes.chain(scopes.check_path(scope))
        now = self._store.core.now()
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> int:
            ids = [r.id for r in await tx.run_as(IdRow, "session_clear", tenant=tenant, sessionId=session_id,
                                                 chain=chain, now=now)]
            await after_invalidation(tx, self._store.core.tenant, ids, ids, now)
            tx.emit("invalidated", ids, reason="forgotten", scope=chain[-1])
            tx.emit("forgotten", ids, scope=chain[-1], detail={"session": True})
            return len(ids)

        return await self._store.run.write(work)

