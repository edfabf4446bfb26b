# Generated from graphmem/_async/procedures.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Procedures on ``Memory``: author-defined rules, workflows induced from
trajectories, suggestion, binding and outcomes (contract §2, §6).
This file is generated from ``graphmem/_async/procedures.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from .._base import props as _props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, NotFoundError
from .._base.models import Episode, Procedure, Provenance, Status
from .._base.records import HistoryRow, IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._learning import procedures
from .._learning.insights import status_entry
from .._learning.prompts import INDUCE_SYSTEM, ProcedureDraft, trajectory_block
from .._learning.settings import LearningSettings
from .._memory import embedded
from .._memory import episodes as _episodes
from .._memory.facts import AUTOMATIC
from .._recall import plan
from .backend import Store
from .executor import Tx
from .llm import LlmCaller, check_llm
from .recall import Recall
from .records import Records


@instrument("graphmem", names=("add_procedure", "induce_procedure", "suggest_procedures", "bind", "record_outcome"))
class Procedures:
    """Procedures of one tenant: written or induced from a trajectory, quarantined until validated, suggested, bound and scored by outcome (``Memory`` hands the public calls to it)."""

    def __init__(self, store: Store, recall: Recall, records: Records, llm: LlmCaller, learning: LearningSettings) -> None:
        self._store = store
        self._recall = recall
        self._records = records
        self._llm = llm
        self._learning = learning

    def add_procedure(
        self,
        text: str,
        *,
        scope: str,
        trigger: str | None = None,
        condition: str | None = None,
        priority: int = 0,
        steps: Iterable[str] | None = None,
        variables: Iterable[str] | None = None,
        success_criteria: str | None = None,
        provenance: Provenance | str = Provenance.MANUAL,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
        id: str | None = None,
    ) -> Procedure:
        """Store a standing rule or workflow. ``steps`` may hold ``{variable}`` placeholders
        (``variables`` defaults to those, in order). Author-defined procedures (``manual``,
        ``user``) are ``active``; machine-made ones land ``quarantined``."""
        props = procedures.procedure_props(
            self._store.core.tenant, text, scope=scope, trigger=trigger, condition=condition, priority=priority,
            steps=steps, variables=variables, success_criteria=success_criteria, provenance=provenance,
            importance=importance, sensitivity=sensitivity, tags=tags, id=id,
        )
        row = {"props": props, "embedText": embedded.kind_text("procedure", props)}
        self._store.embed([row], ["text"])
        now = self._store.core.now()
        tenant = self._store.core.tenant

        def work(tx: Tx) -> Procedure:
            found = tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[props["id"]])
            if found:
                _props.expect_kind(found[0].node, "procedure")
                return record_of(Procedure, (tx.run_as(HistoryRow, "memory_get", tenant=tenant, id=props["id"]))[0].node)
            tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
            rows = tx.run_as(NodeRow, "procedure_create", tenant=tenant, props=props, cites=[], now=now)
            return record_of(Procedure, rows[0].node)

        return self._store.run.write(work)

    def induce_procedure(
        self,
        trajectory: Iterable[Any],
        *,
        scope: str,
        llm: Any = None,
        text: str | None = None,
        trigger: str | None = None,
        condition: str | None = None,
        priority: int = 0,
        session_id: str | None = None,
    ) -> Procedure:
        """Learn a reusable workflow from one successful trajectory: tool calls
        (``{"tool", "args", "result"}`` mappings, stored first as ``tool`` episodes) or the
        ids of episodes already stored (visible in ``scope``, in order). With ``llm`` the
        model writes value-abstracted steps (checked: every concrete argument value replaced
        by a declared ``{variable}``; retried, then ``ModelError``); without one the
        deterministic inducer turns argument values into variables, one per recurring
        value. The procedure CITES the trajectory's episodes and lands ``induction`` /
        ``quarantined``; if a believed procedure visible in ``scope`` has the same steps
        (or near-identical ones), the new one supersedes it (reason ``merged``) and carries
        over its citations, outcome counts and validated status."""
        scope = _scopes.check_path(scope)
        check_llm(llm, allow_none=True)
        calls, episode_ids = procedures.split_trajectory(trajectory)
        if episode_ids:
            chain = _scopes.chain(scope)
            nodes = {r.node["id"]: r.node for r in self._store.run.read_as(
                NodeRow, "memory_existing", tenant=self._store.core.tenant, ids=episode_ids)}
            calls = [procedures.parse_episode(record_of(Episode, _visible_episode(nodes.get(eid), eid, i, chain)), f"trajectory[{i}]")
                     for i, eid in enumerate(episode_ids)]
        return self.induce(calls, episode_ids, scope=scope, llm=llm, text=text, trigger=trigger,
                                  condition=condition, priority=priority, session_id=session_id)

    def induce(self, calls: list[procedures.ToolCall], episode_ids: list[str], *, scope: str, llm: Any, text: str | None,
                      trigger: str | None, condition: str | None, priority: int, session_id: str | None) -> Procedure:
        """``induce_procedure`` for checked ``calls``: citing ``episode_ids`` (stored episodes
        that show the calls), or, when there are none, the calls stored as tool episodes."""
        tenant = self._store.core.tenant
        chain = _scopes.chain(scope)
        now = self._store.core.now()
        episodes = [] if episode_ids else [
            _episodes.row(
                call.content(), tenant=tenant, scope=scope, role="tool", occurred_at=now + timedelta(microseconds=i),
                source="trajectory", id=None, user_id=None, agent_id=None, session_id=session_id,
                importance=None, sensitivity=None, tags=(), now=now,
            ) for i, call in enumerate(calls)
        ]
        if llm is None:
            draft = procedures.induce(calls)
        else:
            messages = [("system", INDUCE_SYSTEM), ("human", "Trajectory:\n" + trajectory_block([c.model_dump() for c in calls]))]
            draft = self._llm.ask(llm, ProcedureDraft, messages, purpose="induce_procedure",
                                          check=lambda d: procedures.check_draft(d, calls))
        props = procedures.procedure_props(
            self._store.core.tenant, text or draft.text, scope=scope, trigger=trigger or draft.trigger, condition=condition,
            priority=priority, steps=draft.steps, variables=draft.variables,
            success_criteria=draft.success_criteria, provenance=Provenance.INDUCTION, importance=None,
            sensitivity=None, tags=(), id=None,
        )
        row = {"props": props, "embedText": embedded.kind_text("procedure", props)}
        self._store.embed([row, *episodes], ["trajectory"] * (1 + len(episodes)))
        cites = episode_ids or [e["props"]["id"] for e in episodes]
        threshold = self._store.core.neo4j_similarity(self._learning.procedure_merge_threshold)

        def work(tx: Tx) -> Procedure:
            if episode_ids:  # the trajectory must still be believed when the procedure lands
                found = {r.node["id"]: r.node
                         for r in tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=episode_ids)}
                for i, eid in enumerate(episode_ids):
                    _visible_episode(found.get(eid), eid, i, chain)
            tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([scope] * (1 + len(episodes))))
            if episodes:
                tx.run_as(NodeRow, "episode_create", tenant=tenant, rows=episodes, now=now)
            twins = tx.run_as(NodeRow, "procedure_twin", tenant=tenant, scope=scope, stepsKey=props["stepsKey"],
                                    stepCount=len(props["steps"]), embedding=props["embedding"], threshold=threshold,
                                    automatic=AUTOMATIC)
            merged_from = None
            node = dict(props)  # a retried transaction function starts from the same values
            if twins:
                old = twins[0].node
                merged_from = old["id"]
                node.update(procedures.carried_over(old, now))
            created = tx.run_as(NodeRow, "procedure_create", tenant=tenant, props=node,
                                      cites=list(dict.fromkeys([*cites, *(twins[0].node["cites"] if twins else [])])), now=now)
            if merged_from is not None:
                tx.run_as(IdRow, "memory_invalidate", tenant=tenant, ids=[merged_from], reason="merged",
                                by=node["id"], note=None, now=now)
                tx.emit("invalidated", [merged_from], reason="merged", scope=scope)
            return record_of(Procedure, created[0].node)

        return self._store.run.write(work)

    def suggest_procedures(
        self,
        task: str,
        *,
        scope: str,
        k: int = 3,
        purpose: str = "act",
        min_similarity: float = 0.3,
    ) -> list[procedures.SuggestedProcedure]:
        """Procedures visible in ``scope`` whose text, trigger or condition matches ``task``
        (a full-text match, or cosine similarity >= ``min_similarity``), ranked by
        relevance, success rate and priority. ``purpose="act"`` (the default) returns only
        active procedures; ``"inform"`` includes quarantined ones, marked."""
        check.text(task, "task")
        k = plan.check_k(k)
        if isinstance(min_similarity, bool) or not isinstance(min_similarity, (int, float)) or not -1.0 <= min_similarity <= 1.0:
            raise InvalidInputError("min_similarity", "must be a cosine similarity in [-1, 1]")
        results = self._recall.recall(task, scope=scope, k=min(1000, max(20, 4 * k)), kinds=["procedure"], purpose=purpose)
        return procedures.rank_suggestions(results, k=k, min_similarity=float(min_similarity))

    def bind(self, procedure: Procedure | str, **values: Any) -> list[str]:
        """The procedure's steps with each ``{variable}`` replaced by the value given for
        it; a missing or unknown variable raises ``InvalidInputError`` naming it."""
        if not isinstance(procedure, Procedure):
            procedure = self._procedure(check.identifier(procedure, "procedure"), "procedure")
        return procedures.bind(procedure, values)

    def _procedure(self, id: str, field: str) -> Procedure:
        record = self._records.get(id)
        if record is None:
            raise NotFoundError(f"{field}: no procedure {id!r} in tenant {self._store.core.tenant!r}")
        if not isinstance(record, Procedure):
            raise InvalidInputError(field, f"{id!r} is a {record.kind}, not a procedure")
        return record

    def record_outcome(self, procedure_id: str, success: bool, *, episode_id: str | None = None) -> Procedure:
        """Count one use of a procedure (success or failure, ``lastUsedAt``), linked to the
        episode that shows it when given. An active procedure whose failure rate passes
        ``LearningSettings.max_failure_rate`` after ``min_outcomes`` uses is demoted to
        quarantined."""
        check.identifier(procedure_id, "procedure_id")
        if not isinstance(success, bool):
            raise InvalidInputError("success", "must be True or False")
        check.identifier(episode_id, "episode_id", allow_none=True)
        tenant = self._store.core.tenant
        now = self._store.core.now()
        bound = self._learning.max_failure_rate
        entry = status_entry(now, Status.ACTIVE.value, Status.QUARANTINED.value, "demoted",
                             f"failure rate above {bound:g}")

        def work(tx: Tx) -> Procedure:
            found = {r.node["id"]: r.node for r in tx.run_as(
                NodeRow, "memory_existing", tenant=tenant, ids=[procedure_id, *([episode_id] if episode_id else [])])}
            node = found.get(procedure_id)
            if node is None:
                raise NotFoundError(f"procedure_id: no procedure {procedure_id!r} in tenant {tenant!r}")
            if node["kind"] != "procedure":
                raise InvalidInputError("procedure_id", f"{procedure_id!r} is a {node['kind']}, not a procedure")
            if node.get("invalidatedAt") is not None:
                raise InvalidInputError("procedure_id", f"{procedure_id!r} is no longer believed ({node.get('invalidationReason')})")
            if episode_id is not None and (episode_id not in found or found[episode_id]["kind"] != "episode"):
                raise InvalidInputError("episode_id", f"{episode_id!r} names no episode in this tenant")
            rows = tx.run_as(procedures.OutcomeRow, "procedure_outcome", tenant=tenant, id=procedure_id,
                                   success=success, now=now, episodeId=episode_id,
                                   minOutcomes=self._learning.min_outcomes, maxFailureRate=bound, entry=entry)
            if rows[0].demoted:
                tx.emit("demoted", [procedure_id], reason=f"failure rate above {bound:g}", scope=node["scope"])
            return record_of(Procedure, rows[0].node)

        return self._store.run.write(work)


def _visible_episode(node: dict[str, Any] | None, eid: str, i: int, chain: list[str]) -> dict[str, Any]:
    field = f"trajectory[{i}]"
    if node is None:
        raise InvalidInputError(field, f"{eid!r} names no memory in this tenant")
    if node["kind"] != "episode":
        raise InvalidInputError(field, f"{eid!r} is a {node['kind']}, not an episode")
    if node["scope"] not in chain:
        raise InvalidInputError(field, f"{eid!r} lives in scope {node['scope']!r}, not visible here")
    if node.get("invalidatedAt") is not None:
        raise InvalidInputError(field, f"{eid!r} is no longer believed ({node.get('invalidationReason')})")
    return node
