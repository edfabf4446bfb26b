"""Insights and status changes on ``AsyncMemory`` (contract §2, §3, §6, §7.3).
``graphmem/_sync/insights.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import props as _props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, NotFoundError
from .._base.models import AUTOMATIC, Insight, MemoryRecord, Record, Status
from .._base.records import HistoryRow, NodeRow, record_of, to_record
from .._base.traced import instrument
from .._learning import insights as _insights
from .._learning.prompts import REFLECT_SYSTEM, Reflection, evidence_block
from .._learning.settings import LearningSettings
from .._memory.graph import GraphRow
from .backend import AsyncStore
from .executor import AsyncTx
from .llm import AsyncLlmCaller, check_llm


@instrument("graphmem", names=("add_insight", "reflect", "maintain", "evidence", "validate", "reject"))
class AsyncInsights:
    """Insights of one tenant: written with their citations, reflected by a model, kept up, validated or rejected (``AsyncMemory`` hands the public calls to it)."""

    def __init__(self, store: AsyncStore, llm: AsyncLlmCaller, learning: LearningSettings) -> None:
        self._store = store
        self._llm = llm
        self._learning = learning

    async def add_insight(
        self,
        text: str,
        *,
        cites: Iterable[str | MemoryRecord],
        scope: str,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
        id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> Insight:
        """Store a higher-order observation resting on ``cites``: existing facts or episodes
        visible in ``scope`` and currently believed (otherwise ``InvalidInputError`` naming
        the citation, and nothing is written). It lands with provenance ``reflection``,
        status ``quarantined``, salience 2 and a CITES edge to each record, and is at least
        as sensitive as what it cites. An insight that restates a believed one citing the
        same evidence corroborates it instead (salience + 1) and that one is returned."""
        wanted = _insights.cite_ids(cites)
        props = _insights.insight_props(
            self._store.core.tenant, text, scope=scope, importance=importance, sensitivity=sensitivity, tags=tags,
            id=id, user_id=user_id, agent_id=agent_id, session_id=session_id,
        )
        row = {"props": props}
        await self._store.embed([row], ["text"])
        now = self._store.core.now()

        async def work(tx: AsyncTx) -> Insight:
            insight, how = await self._write_insight(tx, row, wanted, now, allow_rejected_twin=True)
            if insight is None:  # only reflect() skips a rejected twin
                raise InvalidInputError("text", f"cannot be written ({how})")
            return insight

        return await self._store.run.write(work)

    async def _write_insight(
        self, tx: AsyncTx, row: dict[str, Any], wanted: list[str], now: datetime, *, allow_rejected_twin: bool,
    ) -> tuple[Insight | None, str]:
        """Write (or corroborate) one insight inside ``tx``; say which it was."""
        tenant = self._store.core.tenant
        props = row["props"]
        found = {r.node["id"]: r.node
                 for r in await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[props["id"], *wanted])}
        if props["id"] in found:
            _props.expect_record(found.pop(props["id"]), "insight", props)
            return record_of(Insight, await self._node(tx, props["id"])), "existing"
        evidence = _insights.check_evidence(wanted, list(found.values()), props["scope"])
        _insights.at_least_as_sensitive(props, evidence)
        twins = await tx.run_as(
            _insights.TwinRow, "insight_twin", tenant=tenant, cites=wanted, scope=props["scope"],
            textKey=props["textKey"], embedding=props["embedding"],
            threshold=self._store.core.neo4j_similarity(self._learning.corroboration_threshold),
            **{owner: props[owner] for owner in _props.OWNERS},
        )
        if twins and twins[0].status == Status.REJECTED.value and not allow_rejected_twin:
            return None, "rejected"
        if twins and twins[0].status != Status.REJECTED.value:
            if not set(wanted) - set(twins[0].cites):  # nothing new: restating is not corroborating
                return record_of(Insight, await self._node(tx, twins[0].id)), "known"
            rows = await tx.run_as(NodeRow, "insight_corroborate", tenant=tenant, id=twins[0].id, cites=wanted, now=now)
            if rows:
                return record_of(Insight, rows[0].node), "corroborated"
        await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
        rows = await tx.run_as(NodeRow, "insight_create", tenant=tenant, props=props, cites=wanted, now=now)
        return record_of(Insight, rows[0].node), "created"

    async def _node(self, tx: AsyncTx, id: str) -> dict[str, Any]:
        rows = await tx.run_as(HistoryRow, "memory_get", tenant=self._store.core.tenant, id=id)
        return rows[0].node

    async def reflect(
        self,
        *,
        scope: str,
        llm: Any,
        since: datetime | None = None,
        max_insights: int = 5,
    ) -> _insights.ReflectionReport:
        """Ask ``llm`` (any langchain-core chat model) for at most ``max_insights``
        observations over the recent facts and episodes visible in ``scope``, each citing
        the ids it rests on. Citations the model invents are removed and an observation
        left without one is not written (the report says what was dropped and why); the
        rest land like ``add_insight`` in one transaction. One model call,
        retried on failure up to ``LearningSettings.model_retries`` times, then
        ``ModelError`` with nothing written."""
        scope = _scopes.check_path(scope)
        if isinstance(max_insights, bool) or not isinstance(max_insights, int) or max_insights < 1:
            raise InvalidInputError("max_insights", "must be an integer >= 1")
        check_llm(llm)
        now = self._store.core.now()
        since_t = _insights.since_instant(since, now)
        evidence = await self._store.run.read_as(
            _insights.EvidenceRow, "reflect_evidence", tenant=self._store.core.tenant, chain=_scopes.chain(scope), since=since_t,
            limit=self._learning.reflect_evidence, asOf=now, validAt=now, automatic=AUTOMATIC,
        )
        if not evidence:
            return _insights.ReflectionReport()
        messages = [
            ("system", REFLECT_SYSTEM.format(max_insights=max_insights)),
            ("human", "Memories (newest first):\n" + evidence_block(evidence)),
        ]
        answer = await self._llm.ask(llm, Reflection, messages, purpose="reflect")
        kept, dropped = _insights.usable_drafts(answer.insights, {r.id for r in evidence}, max_insights)
        rows, usable = [], []
        for draft, cites in kept:
            try:
                props = _insights.insight_props(
                    self._store.core.tenant, draft.text, scope=scope, importance=_insights.clamp(draft.importance),
                    sensitivity=None, tags=(), id=None, user_id=None, agent_id=None, session_id=None,
                )
            except InvalidInputError as exc:
                dropped.append(_insights.DroppedInsight(text=draft.text[:200], reason=str(exc)))
                continue
            rows.append(({"props": props}, cites))
            usable.append((draft, cites))
        kept = usable
        await self._store.embed([r for r, _ in rows], ["text"] * len(rows))

        async def work(tx: AsyncTx) -> tuple[list[Insight], list[Any]]:
            out, skipped = [], []
            for (row, cites), (draft, _) in zip(rows, kept):
                try:
                    insight, _how = await self._write_insight(tx, row, cites, now, allow_rejected_twin=False)
                except InvalidInputError as exc:  # evidence invalidated since it was read
                    skipped.append(_insights.DroppedInsight(text=draft.text, reason=exc.message))
                    continue
                if insight is None:
                    skipped.append(_insights.DroppedInsight(text=draft.text, reason="a person rejected this insight before"))
                else:
                    out.append(insight)
            return out, skipped

        written, late = await self._store.run.write(work)
        return _insights.ReflectionReport(insights=tuple(written), dropped=(*dropped, *late))

    async def maintain(self, scope: str) -> _insights.MaintenanceReport:
        """The salience pass over the insights stored at ``scope`` and below, in one
        transaction: new facts that share an insight's evidence and agree with it
        corroborate it (+1 each, counted once); insights at salience <= 0, or with no
        believed evidence left, are invalidated with reason ``pruned``."""
        scope = _scopes.check_path(scope)
        now = self._store.core.now()
        args = {"tenant": self._store.core.tenant, "scope": scope, "prefix": scope + "/", "now": now}
        threshold = self._store.core.neo4j_similarity(self._learning.corroboration_threshold)

        async def work(tx: AsyncTx) -> _insights.MaintenanceReport:
            raised = await tx.run_as(_insights.CorroboratedRow, "insight_fact_corroboration",
                                     threshold=threshold, **args)
            pruned = await tx.run_as(_insights.InsightPrunedRow, "insight_prune", **args)
            tx.emit("pruned", [r.id for r in pruned if not r.unsupported], reason="pruned", scope=scope)
            tx.emit("pruned", [r.id for r in pruned if r.unsupported], reason="unsupported", scope=scope)
            return _insights.MaintenanceReport(
                corroborated={r.id: r.points for r in raised},
                pruned=tuple(r.id for r in pruned if not r.unsupported),
                unsupported=tuple(r.id for r in pruned if r.unsupported),
            )

        return await self._store.run.write(work)

    async def evidence(self, id: str) -> Any:
        """The evidence trail of a memory as a ``networkx.DiGraph``: nodes are memory ids
        (attributes ``record``, ``kind``, ``text``), edges point from a record to its
        evidence (``CITES``, ``DERIVED_FROM``, up to three hops), from corroborating facts
        (``CORROBORATES``) and from the records that superseded anything on the trail
        (``SUPERSEDES``, with ``reason``); every edge has ``type`` and, where known, ``at``."""
        check.identifier(id, "id")
        rows = await self._store.run.read_as(GraphRow, "memory_evidence", tenant=self._store.core.tenant, id=id)
        if not rows:
            raise NotFoundError(f"id: no memory {id!r} in tenant {self._store.core.tenant!r}")
        return _insights.trail_graph(rows[0].nodes, rows[0].edges)

    # -- status -----------------------------------------------------------------------
    async def validate(self, id: str, *, note: str | None = None) -> Record:
        """Promote a quarantined (or rejected) record to ``active``, recording when (and
        ``note``) in its ``status_log``; returns the updated record."""
        return await self._set_status(id, Status.ACTIVE, "validated", note)

    async def reject(self, id: str, *, note: str | None = None) -> Record:
        """Demote a record to ``rejected``: kept for the record, never recalled, and
        reflection does not propose it again."""
        return await self._set_status(id, Status.REJECTED, "rejected", note)

    async def _set_status(self, id: str, to: Status, verb: str, note: str | None) -> Record:
        check.identifier(id, "id")
        if note is not None:
            check.text(note, "note")
        tenant = self._store.core.tenant
        now = self._store.core.now()

        async def work(tx: AsyncTx) -> Record:
            rows = await tx.run_as(HistoryRow, "memory_get", tenant=tenant, id=id)
            if not rows:
                raise NotFoundError(f"id: no memory {id!r} in tenant {tenant!r}")
            node = rows[0].node
            if node.get("invalidatedAt") is not None:
                raise InvalidInputError("id", f"{id!r} is no longer believed ({node.get('invalidationReason')}); it cannot be {verb}")
            if node["status"] == to.value:
                return to_record(node)
            entry = _insights.status_entry(now, node["status"], to.value, verb, note)
            changed = await tx.run_as(NodeRow, "memory_status", tenant=tenant, id=id, to=to.value, now=now, entry=entry,
                                          fromStatuses=[node["status"]])
            if not changed:
                raise InvalidInputError("id", f"{id!r} changed concurrently; try again")
            return to_record(changed[0].node)

        return await self._store.run.write(work)
