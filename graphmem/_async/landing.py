"""Landing an extraction: a model's entities and facts resolved against the store (entity
resolution, scoped contradiction judged by the model, profile fields), then written in one
transaction with what they retire (contract §2-§7).
``graphmem/_sync/landing.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Entity, Fact, Provenance
from .._base.records import IdRow, NodeRow, record_of
from .._learning import ingest as _ingest
from .._learning import profile
from .._learning.ingest import PendingEntity
from .._learning.ingest_write import (
    Batch,
    CandidateRow,
    SimilarEntityRow,
    Verdict,
    decide,
    judged,
    kept_facts,
    landed_rows,
    question,
    retirements,
)
from .._learning.prompts import (
    JUDGE_SYSTEM,
    EntityDraft,
    Extraction,
    FactDraft,
    Judgement,
)
from .._learning.settings import LearningSettings
from .._learning.usage import Tally
from .._memory import embedded
from .._memory import entities as _entities
from .._memory import facts as _facts
from .._memory.facts import AUTOMATIC
from .._memory.mentions import ForgottenRow
from .backend import AsyncStore
from .entities import AsyncEntities
from .executor import AsyncTx
from .facts import AsyncFacts, after_invalidation
from .llm import AsyncLlmCaller

CANDIDATES_PER_FACT = 10
"""Stored facts weighed against each new one (``fact_candidates``): exact matches, then the
most similar; the judge sees at most ``ingest_write.DOUBTS_PER_FACT`` of them."""


class AsyncLanding:
    """Lands what a model extracted from a batch of messages (``AsyncExtractions`` hands it
    each extraction)."""

    def __init__(self, store: AsyncStore, facts: AsyncFacts, entities: AsyncEntities, llm: AsyncLlmCaller,
                 learning: LearningSettings) -> None:
        self._store = store
        self._facts = facts
        self._entities = entities
        self._llm = llm
        self._learning = learning

    async def land_extraction(self, llm: Any, extraction: Extraction, msgs: list[dict[str, Any]], episode_ids: list[str],
                       scope: str, tz: Any, now: datetime, tally: Tally, who: dict[str, Any]) -> _ingest.IngestResult:
        """Plan and land one extraction: resolve its entities, plan its facts, settle their
        contradictions (a second model request only for doubtful pairs), write it all."""
        chain = _scopes.chain(scope)
        entities, skipped = _ingest.unique_entities(extraction)
        entity_rows, usable = [], []
        for d in entities:
            try:
                entity_rows.append({"props": _entities.props(
                    d.name, tenant=self._store.core.tenant, type=d.type, scope=scope, aliases=d.aliases, properties=None, id=None, importance=None,
                    sensitivity=None, provenance=Provenance.EXTRACTION)})
                usable.append(d)
            except InvalidInputError as exc:
                skipped.append(_ingest.Skipped(kind="entity", text=d.name[:200], reason=str(exc)))
        entities = usable
        names = _ingest.name_index(entities)
        await self._store.embed(entity_rows, ["entities"] * len(entity_rows))

        # resolution as it stands now (read only), to find the contradiction candidates
        existing = [await self._resolve(None, row, chain) for row in entity_rows]
        ids_now: list[str | PendingEntity] = [node["id"] if how in ("found", "similar") else PendingEntity(n)
                                              for n, (how, node, _) in enumerate(existing)]
        plans: list[tuple[FactDraft, dict[str, Any]]] = []
        notes: list[str] = []
        for draft in extraction.facts:
            plan, note, skip = _ingest.fact_plan(
                draft, names=names, entity_ids=ids_now, episodes=msgs,
                episode_ids=episode_ids, tz=tz, single_valued=self._store.core.single_valued_predicates)
            notes += note
            if plan is not None:
                plans.append((draft, plan))
            elif skip is not None:
                skipped.append(skip)
        # an extracted fact is embedded from its text alone (what the contradiction band was
        # measured with), and says so on its node (_memory/embedded.py)
        fact_rows = [{"props": {"text": p["text"], "embedding": None}} for _, p in plans]
        await self._store.embed(fact_rows, ["facts"] * len(fact_rows))
        for (_, plan), row in zip(plans, fact_rows):
            plan["embedding"] = row["props"]["embedding"]
        decisions = await self._contradictions(llm, plans, chain, now, tally)
        batch = Batch(entities=entities, entity_rows=entity_rows, plans=plans, decisions=decisions, msgs=msgs,
                      episode_ids=episode_ids, scope=scope, chain=chain, now=now, who=who, skipped=skipped,
                      notes=notes, tally=tally)
        profile_rows = await self._profile_rows(extraction, who, scope, episode_ids, now)

        async def work(tx: AsyncTx) -> _ingest.IngestResult:
            result = await self._land(_Landing(tx, batch, skipped=list(batch.skipped)))
            if not profile_rows:
                return result
            learned = await self._facts.create_facts(tx, profile_rows, now)
            asked = {r["props"]["id"] for r in profile_rows}
            return result.model_copy(update={"profile": tuple(profile.field_of(f) for f in learned if f.id in asked)})

        # A concurrent ingest that created one of these entities first makes this write trip
        # a uniqueness constraint: the executor runs ``work`` again (its conflict retries),
        # and the entities then resolve to the winner's.
        return await self._store.run.write(work)

    async def _profile_rows(self, extraction: Extraction, who: dict[str, Any], scope: str, episode_ids: list[str],
                            now: datetime) -> list[Any]:
        """The facts that fill the profile of ``who["user_id"]`` with what the extraction
        found about them (none without a user, or for fields a person gave)."""
        user_id = who.get("user_id")
        if user_id is None or extraction.profile is None or not profile.learned(extraction.profile, {}):
            return []  # nothing usable found: no need to read the profile
        current = profile.chosen(await self._facts.facts(scope=scope, subject=profile.subject(user_id)))
        fields = profile.learned(extraction.profile, current)
        if not fields:
            return []
        items = profile.items(user_id, fields, scope=scope, provenance=Provenance.EXTRACTION, valid_from=None,
                               derived_from=episode_ids)
        rows = _facts.rows(items, tenant=self._store.core.tenant, now=now, single_valued=self._store.core.single_valued_predicates,
                           dimension=self._store.known.dimension)
        await self._store.embed(rows, ["profile"] * len(rows))
        return rows

    async def _resolve(self, tx: AsyncTx | None, row: dict[str, Any], chain: list[str]) -> tuple[str, Any, float]:
        """How one extracted entity resolves: ('found', node) by name or alias, ('similar',
        node, cosine) above the merge threshold, ('candidate', node, cosine) in the grey
        band, or ('new', None)."""
        props = row["props"]
        tenant = self._store.core.tenant
        run_as = self._store.run.read_as if tx is None else tx.run_as
        keys = _entities.lookup_keys(props)
        match = await run_as(NodeRow, "entity_find", tenant=tenant, chain=chain, type=props["type"], keys=keys)
        if match:
            return "found", match[0].node, 1.0
        if props["embedding"] is not None:
            near = await run_as(SimilarEntityRow, "entity_similar", tenant=tenant, chain=chain, type=props["type"],
                                embedding=props["embedding"],
                                threshold=self._store.core.neo4j_similarity(self._learning.entity_candidate_threshold))
            if near:
                cosine = 2.0 * near[0].similarity - 1.0
                how = "similar" if cosine >= self._learning.entity_merge_threshold else "candidate"
                return how, near[0].node, cosine
        return "new", None, 0.0

    async def _contradictions(self, llm: Any, plans: list[tuple[FactDraft, dict[str, Any]]], chain: list[str],
                              now: datetime, tally: Tally) -> dict[int, Verdict]:
        """Per planned fact (by index), what the write does besides writing it: skip it as a
        restatement, or retire the stored facts it corrects, contradicts or replaces
        (``_ingest_write``). The rules decide alone where they can; the model is asked,
        in one call, about the doubtful pairs."""
        # an entity the write has yet to create has no stored facts to compare with
        rows = [{"i": i, "subject": p["subject"], "embedding": p["embedding"], "predicate": p["predicate"],
                 "object": None if isinstance(p["object"], PendingEntity) else p["object"],
                 "textKey": check.text_key(p["text"]), "flagged": bool(d.corrects or d.replaces)}
                for i, (d, p) in enumerate(plans) if not isinstance(p["subject"], PendingEntity) and p["embedding"]]
        if not rows:
            return {}
        found = await self._store.run.read_as(CandidateRow, "fact_candidates", tenant=self._store.core.tenant,
                                              chain=chain, rows=rows, asOf=now, validAt=now, automatic=AUTOMATIC,
                                              floor=self._store.core.neo4j_similarity(self._learning.judge_threshold),
                                              limit=CANDIDATES_PER_FACT)
        decisions, doubts = decide(found, plans, self._learning, scope=chain[-1])
        if not doubts:
            return decisions
        verdict = await self._llm.ask(llm, Judgement, [("system", JUDGE_SYSTEM), ("human", question(doubts))],
                                        purpose="ingest (contradiction check)", tally=tally)
        return judged(decisions, doubts, {v.pair for v in verdict.verdicts if v.contradicts})

    async def _land(self, land: _Landing) -> _ingest.IngestResult:
        """The extraction's one write transaction: the entities, the facts, the stored facts
        those retire, then the episodes' MENTIONS and the SAME_AS candidates."""
        tx, batch = land.tx, land.batch
        for draft, row in zip(batch.entities, batch.entity_rows):
            land.entity_ids.append(await self._land_entity(land, draft, row))
        kept, skipped = kept_facts(batch, land.entity_ids)
        land.skipped += skipped
        facts, written = await self._land_facts(land, kept)
        landed = {f.id for f in facts}  # the facts written as themselves
        retired = await self._retire(land, kept, written, landed)
        links = _ingest.mentions(batch.entities, land.entity_ids, batch.msgs, batch.episode_ids,
                                 [item for _, item in kept])
        if links:
            await tx.run("episode_links", tenant=self._store.core.tenant, rows=links, created=[e.id for e in land.created])
        if land.same_as:
            await tx.run("entity_same_as", tenant=self._store.core.tenant, now=batch.now, rows=[
                {"id": s.entity, "candidate": s.candidate, "similarity": s.similarity} for s in land.same_as])
        return _ingest.IngestResult(
            entities_created=tuple(land.created), entities_merged=tuple(land.merged),
            same_as=tuple(land.same_as), facts=tuple(facts),
            superseded=tuple(sorted(set(land.closed) - landed - set(retired))),
            invalidated=tuple(sorted(set(retired) | set(land.replaced))),
            skipped=tuple(land.skipped), notes=tuple(batch.notes), model_calls=len(batch.tally),
        )

    async def _land_entity(self, land: _Landing, draft: EntityDraft, row: dict[str, Any]) -> str | None:
        """One extracted entity, resolved again inside the write (another write may have
        created it since the plan), merged into the one it is or created; its id, or None
        if the user asked to forget it."""
        tx, batch, props = land.tx, land.batch, row["props"]
        how, node, cosine = await self._resolve(tx, row, batch.chain)
        if how in ("found", "similar"):
            entity = await self._entities.merge_entity(tx, node, props)
            land.merged.append(entity)
            return entity.id
        if await tx.run_as(ForgottenRow, "entity_forgotten", tenant=self._store.core.tenant, scope=batch.scope,
                           chain=batch.chain, prefix=batch.scope + "/", type=props["type"],
                           keys=_entities.lookup_keys(props)):
            land.skip("entity", draft.name, "forgotten by the user")
            return None
        entity, new = await self._entities.create_entity(tx, props, batch.chain, batch.now)
        (land.created if new else land.merged).append(entity)
        if new and how == "candidate":
            land.same_as.append(_ingest.SameAsCandidate(entity=entity.id, candidate=node["id"],
                                                        similarity=round(cosine, 4)))
        return entity.id

    async def _land_facts(self, land: _Landing, kept: list[tuple[int, dict[str, Any]]]) -> tuple[list[Fact], dict[str, int]]:
        """Write the kept facts; returns those that landed as themselves (once each) and, per
        row id, the index of the planned fact the row came from. A row folded into another
        record, or left out as a forgotten fact's restatement, is noted as skipped."""
        if not kept:
            return [], {}
        batch = land.batch
        rows = _facts.rows([item for _, item in kept], tenant=self._store.core.tenant, now=batch.now,
                           single_valued=self._store.core.single_valued_predicates, dimension=self._store.known.dimension)
        for row in rows:
            row["props"]["embeddedFrom"] = embedded.TEXT_ONLY
        # the stored facts these retire are left to _retire, not superseded on the way
        retiring = [r.old_id for i, _ in kept for r in retirements(batch.decisions.get(i))]
        result = await self._facts.create_fact_rows(land.tx, rows, batch.now, exclude=retiring)
        land.closed += result.superseded.closed
        land.replaced += result.superseded.replaced
        landed, skipped = landed_rows([row["props"] for row in rows], result.nodes)
        land.skipped += skipped
        return [record_of(Fact, node) for node in landed], {row["props"]["id"]: i for row, (i, _) in zip(rows, kept)}

    async def _retire(self, land: _Landing, kept: list[tuple[int, dict[str, Any]]], written: dict[str, int],
                      landed: set[str]) -> list[str]:
        """Retire what the landed facts correct or contradict (invalidated) or replace (valid
        time closed, noted in ``land.closed``); returns the ids invalidated."""
        tx, batch, tenant = land.tx, land.batch, self._store.core.tenant
        retired: list[str] = []
        replaced: list[str] = []
        for rid, i in written.items():
            if rid not in landed:
                continue  # not written: it retires nothing
            for old in retirements(batch.decisions.get(i)):
                if old.reason == "changed":
                    replaced += [r.id for r in await tx.run_as(
                        IdRow, "fact_close", tenant=tenant, id=old.old_id, by=rid, automatic=AUTOMATIC, now=batch.now)]
                    continue
                retired += [r.id for r in await tx.run_as(
                    IdRow, "memory_invalidate", tenant=tenant, ids=[old.old_id], reason=old.reason, by=rid, note=None,
                    now=batch.now)]
        if retired or replaced:
            await after_invalidation(tx, self._store.core.tenant, retired + replaced, retired, batch.now)
            tx.emit("superseded", replaced, reason="changed", scope=batch.scope)
            for reason in ("corrected", "contradicted"):
                tx.emit("invalidated", [old.old_id for i, _ in kept for old in retirements(batch.decisions.get(i))
                                        if old.reason == reason and old.old_id in retired],
                        reason=reason, scope=batch.scope)
        land.closed += replaced
        return retired



@dataclass
class _Landing:
    """One attempt at the write: its transaction, its batch, and what it has written and
    skipped so far (a retry starts a new one, so nothing leaks from a failed attempt)."""

    tx: AsyncTx
    batch: Batch
    skipped: list[_ingest.Skipped]
    created: list[Entity] = field(default_factory=list)
    merged: list[Entity] = field(default_factory=list)
    same_as: list[_ingest.SameAsCandidate] = field(default_factory=list)
    entity_ids: list[str | None] = field(default_factory=list)
    """Per extracted entity, the id it landed as; None if the user asked to forget it."""
    closed: list[str] = field(default_factory=list)
    """The ids whose valid time supersession or a replacement closed."""
    replaced: list[str] = field(default_factory=list)
    """The ids supersession invalidated."""

    def skip(self, kind: str, text: str, reason: str) -> None:
        self.skipped.append(_ingest.Skipped(kind=kind, text=text, reason=reason))
