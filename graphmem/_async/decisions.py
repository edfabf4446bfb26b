"""The decision log on ``AsyncMemory`` (contract §10): decisions and tool calls, their
outcomes, listing, search and quality by decision type.
``graphmem/_sync/decisions.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, NotFoundError
from .._base.models import Decision
from .._base.records import NodeRow, record_of
from .._base.traced import instrument
from .._learning import decisions as _decisions
from .._learning.decisions import DecisionQuality
from .._memory import embedded
from .._recall import plan
from .backend import AsyncStore
from .executor import AsyncTx
from .recall import AsyncRecall


@instrument("graphmem", names=("log_decision", "log_tool_call", "record_decision_outcome", "decisions", "search_decisions", "decision_quality"))
class AsyncDecisions:
    """Decisions and tool calls an agent logged, their outcomes and quality (``AsyncMemory`` hands the public calls to it)."""

    def __init__(self, store: AsyncStore, recall: AsyncRecall) -> None:
        self._store = store
        self._recall = recall

    async def log_decision(
        self,
        agent: str,
        decision: str,
        *,
        reasoning: str,
        decision_type: str,
        scope: str,
        context: str | None = None,
        alternatives: Iterable[str] = (),
        confidence: float | None = None,
        importance: float | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> Decision:
        """Record a decision ``agent`` took, why (``reasoning``), of which ``decision_type``,
        with the ``alternatives`` it weighed and its ``confidence`` (0..1). Stored as a
        ``Decision`` (provenance manual, embedded as decision and reasoning) that is
        DERIVED_FROM every episode of ``session_id`` visible in ``scope`` at that moment."""
        props = _decisions.decision_props(
            self._store.core.tenant, agent, decision, reasoning=reasoning, decision_type=decision_type, context=context,
            alternatives=alternatives, confidence=confidence, importance=importance, session_id=session_id,
            user_id=user_id, scope=scope,
        )
        return await self._write_decision(props)

    async def log_tool_call(
        self,
        agent: str,
        tool: str,
        args: dict[str, Any] | None = None,
        result: Any = None,
        *,
        scope: str,
        reasoning: str | None = None,
        confidence: float | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> Decision:
        """Record a tool call as a decision of type ``tool_call``: its text is
        ``tool(args as JSON)``, its context the result (JSON unless a string)."""
        text, context = _decisions.tool_call(tool, args, result)
        props = _decisions.decision_props(
            self._store.core.tenant, agent, text, reasoning=reasoning or f"called {tool}", decision_type=_decisions.TOOL_CALL,
            context=context, alternatives=(), confidence=confidence, importance=None, session_id=session_id,
            user_id=user_id, scope=scope,
        )
        return await self._write_decision(props)

    async def _write_decision(self, props: dict[str, Any]) -> Decision:
        row = {"props": props, "embedText": embedded.kind_text("decision", props)}
        await self._store.embed([row], ["decision"])
        now = self._store.core.now()
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> Decision:
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
            rows = await tx.run_as(NodeRow, "decision_create", tenant=tenant, props=props, sessionId=props["sessionId"],
                                   chain=_scopes.chain(props["scope"]), now=now)
            return record_of(Decision, rows[0].node)

        return await self._store.run.write(work)

    async def record_decision_outcome(self, id: str, outcome: str, quality: str = "neutral") -> Decision:
        """Record how decision ``id`` turned out: ``outcome`` (text), ``quality`` (``good``,
        ``bad`` or ``neutral``) and the time (``outcome_at``). A later outcome replaces the
        earlier one, which stays in ``outcome_log``."""
        check.identifier(id, "id")
        text = check.text(outcome, "outcome")
        judged = _decisions.quality(quality)
        tenant = self._store.core.tenant
        now = self._store.core.now()

        async def work(tx: AsyncTx) -> Decision:
            found = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[id])
            if not found:
                raise NotFoundError(f"id: no decision {id!r} in tenant {tenant!r}")
            node = found[0].node
            if node["kind"] != "decision":
                raise InvalidInputError("id", f"{id!r} is a {node['kind']}, not a decision")
            if node.get("invalidatedAt") is not None:
                raise InvalidInputError("id", f"{id!r} is no longer believed ({node.get('invalidationReason')})")
            previous = None
            if node.get("outcome") is not None:
                previous = _decisions.outcome_entry(node["outcomeAt"], node["quality"], node["outcome"])
            rows = await tx.run_as(NodeRow, "decision_outcome", tenant=tenant, id=id, outcome=text, quality=judged,
                                   previous=previous, now=now)
            return record_of(Decision, rows[0].node)

        return await self._store.run.write(work)

    async def decisions(
        self,
        agent: str | None = None,
        *,
        scope: str,
        session_id: str | None = None,
        limit: int = 50,
    ) -> list[Decision]:
        """The believed decisions visible in ``scope`` (of ``agent`` and ``session_id`` when
        given), newest first, at most ``limit``."""
        rows = await self._store.run.read_as(
            NodeRow, "decision_list", tenant=self._store.core.tenant, chain=_scopes.chain(_scopes.check_path(scope)),
            agent=check.identifier(agent, "agent", allow_none=True),
            sessionId=check.identifier(session_id, "session_id", allow_none=True), limit=_decisions.limit(limit))
        return [record_of(Decision, r.node) for r in rows]

    async def search_decisions(
        self,
        query: str,
        *,
        scope: str,
        agent: str | None = None,
        decision_type: str | None = None,
        k: int = 10,
    ) -> list[Decision]:
        """The decisions visible in ``scope`` that best match ``query`` (recall over
        decisions; of ``agent`` and ``decision_type`` when given)."""
        k = plan.check_k(k)
        agent = check.identifier(agent, "agent", allow_none=True)
        kind = check.identifier(decision_type, "decision_type", allow_none=True)
        results = await self._recall.recall(query, scope=scope, k=min(1000, max(50, 4 * k)), kinds=["decision"])
        out = [r.record for r in results if isinstance(r.record, Decision)
               and (agent is None or r.record.agent_id == agent)
               and (kind is None or r.record.decision_type == kind)]
        return out[:k]

    async def decision_quality(self, *, scope: str, by: str = "decision_type") -> list[DecisionQuality]:
        """How the decisions visible in ``scope`` turned out, per decision type (or per
        agent, ``by="agent"``): counts of good, bad and neutral outcomes and the share of
        bad ones among those with an outcome."""
        rows = await self._store.run.read_as(_decisions.QualityRow, "decision_quality", tenant=self._store.core.tenant,
                                             chain=_scopes.chain(_scopes.check_path(scope)), by=_decisions.group(by))
        return _decisions.summary(rows)
