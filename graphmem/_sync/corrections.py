# Generated from graphmem/_async/corrections.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Corrections of agent output on ``Memory`` (contract §10): record one, find the
relevant ones for a new input, turn them into regression cases, count them.
This file is generated from ``graphmem/_async/corrections.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Correction
from .._base.records import IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._learning import corrections as _corrections
from .._learning.corrections import CorrectionStats
from .._memory.facts import AUTOMATIC
from .._recall import plan
from .backend import Store
from .executor import Tx
from .facts import after_invalidation
from .recall import Recall

_ALL = 100_000  # corrections read for regression cases: every one, within reason


@instrument("graphmem", names=("record_correction", "corrections", "correction_eval_cases", "correction_stats"))
class Corrections:
    """Corrections a person made, kept as memories and replayed as evaluation cases (``Memory`` hands the public calls to it)."""

    def __init__(self, store: Store, recall: Recall) -> None:
        self._store = store
        self._recall = recall

    def record_correction(
        self,
        agent: str,
        original_value: str,
        corrected_value: str,
        *,
        scope: str,
        field: str | None = None,
        reason: str | None = None,
        entity_key: str | None = None,
        original_input: str | None = None,
        run_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> Correction:
        """A person corrected what ``agent`` produced: ``original_value`` was wrong,
        ``corrected_value`` is right. Stored as a ``Correction`` (provenance
        human-correction, embedded as the corrected value), ABOUT the run's episode when
        ``run_id`` names one (an episode visible in ``scope``). In the same transaction,
        believed machine-made facts, insights and procedures stored in ``scope`` itself (a
        write changes nothing in another scope, an ancestor's included) whose
        embedding has cosine similarity >= the contradiction threshold with it are
        invalidated (reason ``contradicted``, SUPERSEDES from the correction); a person's
        records never are."""
        tenant = self._store.core.tenant
        props = _corrections.correction_props(
            tenant, agent, original_value, corrected_value, field=field, reason=reason, entity_key=entity_key,
            original_input=original_input, run_id=run_id, session_id=session_id, user_id=user_id, scope=scope,
        )
        chain = _scopes.chain(props["scope"])
        row = {"props": props}
        self._store.embed([row], ["corrected_value"])
        now = self._store.core.now()
        run = props["runId"]

        def work(tx: Tx) -> Correction:
            if run is not None:
                found = tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[run])
                if not found or found[0].node["kind"] != "episode":
                    raise InvalidInputError("run_id", f"{run!r} names no episode in this tenant")
                if found[0].node["scope"] not in chain:
                    raise InvalidInputError("run_id", f"{run!r} lives in scope {found[0].node['scope']!r}, not visible here")
            tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
            created = tx.run_as(NodeRow, "correction_create", tenant=tenant, props=props, runId=run, now=now)
            invalidated = [r.id for r in tx.run_as(
                IdRow, "correction_collisions", tenant=tenant, id=props["id"],
                kinds=_corrections.CONTRADICTABLE, automatic=AUTOMATIC,
                threshold=self._store.core.neo4j_similarity(), now=now)]
            after_invalidation(tx, self._store.core.tenant, invalidated, invalidated, now)
            tx.emit("invalidated", invalidated, reason="corrected", scope=props["scope"])
            return record_of(Correction, created[0].node)

        return self._store.run.write(work)

    def corrections(
        self,
        query: str | None = None,
        *,
        scope: str,
        agent: str | None = None,
        entity_key: str | None = None,
        since: datetime | None = None,
        k: int = 10,
    ) -> list[Correction]:
        """The believed corrections visible in ``scope`` (of ``agent``, about ``entity_key``,
        recorded since ``since``, when given). With ``query`` (a new input), the ``k`` most
        relevant by recall, keeping only those with a full-text match or cosine similarity
        >= ``_corrections.MIN_RELEVANCE`` (0.35); without one, the ``k`` newest."""
        scope = _scopes.check_path(scope)
        k = plan.check_k(k)
        agent = check.identifier(agent, "agent", allow_none=True)
        key = None if entity_key is None else check.name(entity_key, "entity_key")
        since_t = _corrections.since(since)
        if query is None:
            rows = self._store.run.read_as(NodeRow, "correction_list", tenant=self._store.core.tenant,
                                                 chain=_scopes.chain(scope), agent=agent, entityKey=key, since=since_t,
                                                 withInput=False, limit=k)
            return [record_of(Correction, r.node) for r in rows]
        results = self._recall.recall(query, scope=scope, k=min(1000, max(50, 4 * k)), kinds=["correction"])
        return _corrections.relevant(results, agent=agent, entity_key=key, since_t=since_t, k=k)

    def correction_eval_cases(
        self,
        *,
        scope: str,
        agent: str | None = None,
        entity_key: str | None = None,
        since: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Regression cases for the agent: ``{input, expected, field, correction_id}`` for
        every believed correction visible in ``scope`` that has an original input, newest
        first."""
        rows = self._store.run.read_as(
            NodeRow, "correction_list", tenant=self._store.core.tenant, chain=_scopes.chain(_scopes.check_path(scope)),
            agent=check.identifier(agent, "agent", allow_none=True),
            entityKey=None if entity_key is None else check.name(entity_key, "entity_key"),
            since=_corrections.since(since), withInput=True, limit=_ALL)
        return _corrections.eval_cases(record_of(Correction, r.node) for r in rows)

    def correction_stats(
        self,
        *,
        scope: str,
        agent: str | None = None,
        since: datetime | None = None,
    ) -> CorrectionStats:
        """How many believed corrections visible in ``scope`` (of ``agent``, since ``since``)
        there are, by entity key and by field."""
        rows = self._store.run.read_as(
            _corrections.CorrectionStatsRow, "correction_stats", tenant=self._store.core.tenant, chain=_scopes.chain(_scopes.check_path(scope)),
            agent=check.identifier(agent, "agent", allow_none=True), since=_corrections.since(since))
        return _corrections.stats(rows)
