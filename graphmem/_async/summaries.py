"""Session summaries on ``AsyncMemory``: the messages that fell out of a session's window
become a ``:Summary`` that cites them (contract §10). ``graphmem/_sync/summaries.py`` is
generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import ConflictError
from .._base.models import Summary
from .._base.records import HistoryRow, IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._working import summaries as _summaries
from .._working.summaries import DEFAULT_MAX_COUNT, DEFAULT_WINDOW, SummaryDraft
from .backend import AsyncStore
from .executor import AsyncTx
from .llm import AsyncLlmCaller, check_llm
from .sessions import MAX_MESSAGES, AsyncSessions


@instrument("graphmem", names=("summarize", "summaries"))
class AsyncSummaries:
    """Summaries of a session's conversation, made by a model and folded as it grows (``AsyncMemory`` hands the public calls to it)."""

    def __init__(self, store: AsyncStore, sessions: AsyncSessions, llm: AsyncLlmCaller) -> None:
        self._store = store
        self._sessions = sessions
        self._llm = llm

    async def summarize(self, session_id: str, *, scope: str, llm: Any, window: int = DEFAULT_WINDOW,
                        max_count: int = DEFAULT_MAX_COUNT) -> Summary | None:
        """Summarise the messages of ``session_id`` (visible in ``scope``) that are older than
        its newest ``window`` and not yet covered by a summary: one structured call to
        ``llm`` (any langchain-core chat model), stored in ``scope`` as a ``:Summary`` that
        CITES each episode it covers. When the session already has ``max_count`` current
        summaries, the same call merges the two oldest into one that cites all their
        episodes and supersedes both (reason 'folded'). Returns the new summary, or None
        when nothing has fallen out of the window since the last one (no model call)."""
        check.identifier(session_id, "session_id")
        path = _scopes.check_path(scope)
        size = check.count(window, "window")
        most = check.count(max_count, "max_count", least=2)
        check_llm(llm)
        messages = await self._sessions.messages(session_id, scope=path, max_messages=MAX_MESSAGES)
        current = await self.summaries(session_id, scope=path)
        covered = {c for s in current for c in s.cites}
        new = _summaries.uncovered(messages, size, covered)
        if not new:
            return None
        fold = current[:2] if len(current) >= most else []
        draft = await self._llm.ask(
            llm, SummaryDraft, _summaries.prompt(new, fold), purpose="summarize",
            check=lambda d: _summaries.check_draft(d, fold=bool(fold)),
        )
        tenant = self._store.core.tenant
        rows = [{"props": _summaries.props(tenant, draft.text, scope=path, session_id=session_id, covers=new),
                 "cites": [m.id for m in new]}]
        if fold:
            rows.insert(0, {"props": _summaries.props(tenant, draft.folded or "", scope=path, session_id=session_id,
                                                      covers=fold),
                            "cites": sorted({c for s in fold for c in s.cites})})
        await self._store.embed(rows, ["llm output"] * len(rows))
        now = self._store.core.now()
        planned = [s.id for s in current]

        async def work(tx: AsyncTx) -> Summary:
            await tx.run("scope_ensure", tenant=tenant, scopes=[{**s, "n": 0} for s in _scopes.parents([path])])
            locked = [r.node["id"] for r in await tx.run_as(NodeRow, "summary_current", tenant=tenant, scope=path,
                                                             sessionId=session_id)]
            if locked != planned:
                raise ConflictError(f"session_id: the summaries of {session_id!r} changed during summarize; "
                                    "call it again")
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([path] * len(rows)))
            created = [record_of(Summary, (await tx.run_as(NodeRow, "summary_create", tenant=tenant, props=row["props"],
                                                           cites=row["cites"], now=now))[0].node)
                       for row in rows]
            if fold:
                await tx.run_as(IdRow, "memory_invalidate", tenant=tenant, ids=[s.id for s in fold], reason="folded",
                                by=created[0].id, note=None, now=now)
                tx.emit("invalidated", [s.id for s in fold], reason="folded", scope=path)
            tx.emit("summary_created", [c.id for c in reversed(created)], scope=path,
                    detail={"session_id": session_id, "covers": len(created[-1].cites)})
            return created[-1]

        return await self._store.run.write(work)

    async def summaries(self, session_id: str, *, scope: str, include_folded: bool = False) -> list[Summary]:
        """The summaries of ``session_id`` stored in ``scope``, oldest coverage first, each
        with the episode ids it cites (with ``include_folded``, also those folded into a
        later one, with what superseded them)."""
        check.identifier(session_id, "session_id")
        rows = await self._store.run.read_as(HistoryRow, "summary_list", tenant=self._store.core.tenant,
                                             scope=_scopes.check_path(scope), sessionId=session_id,
                                             includeFolded=bool(include_folded))
        return [record_of(Summary, r.node, superseded_by=r.superseded_by) for r in rows]
