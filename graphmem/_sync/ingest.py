# Generated from graphmem/_async/ingest.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""``ingest``: from conversation turns to entities, facts and relations, with entity
resolution and scoped contradiction handling (contract §2-§7).
This file is generated from ``graphmem/_async/ingest.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .. import _dates, _entities, _episodes, _facts, _ingest, _profile, _props, _scopes
from .. import _validate as check
from .._errors import ConflictError, InvalidInputError, ModelError
from .._facts import AUTOMATIC
from .._models import Entity, Episode, Provenance
from .._prompts import (
    EXTRACT_SYSTEM,
    JUDGE_SYSTEM,
    EntityDraft,
    Extraction,
    Judgement,
    messages_block,
)
from .._records import record_of
from .executor import Tx
from .host import Host
from .llm import check_llm

_KNOWN_ENTITIES = 50
_PENDING = "\x00pending-entity:"  # stands for an entity the write transaction will create


class IngestMixin(Host):
    def ingest(
        self,
        messages: Iterable[Any],
        *,
        scope: str,
        llm: Any,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        timezone: str = "UTC",
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> _ingest.IngestResult:
        """Store each message as an Episode, then -- with ``llm``, any langchain-core chat
        model -- extract entities, facts and relations with one structured-output call and
        land them in one transaction with DERIVED_FROM / MENTIONS provenance.

        Entities are resolved before anything is created: normalised name and aliases,
        then name-embedding similarity among visible entities of the type (merge above
        ``LearningSettings.entity_merge_threshold``, a ``SAME_AS`` candidate in the grey
        band). Time expressions are resolved in code against each message's time in
        ``timezone``. Only facts about the same subject are contradiction candidates;
        single-valued ones supersede by rule, restatements are skipped, and the model is
        asked (one more call) only about grey-band pairs. Only ``extraction`` records are
        retired automatically; forgotten statements are not re-extracted. If the model
        fails after its retries, the episodes are kept and the error is reported in the
        result. ``llm=None`` stores the episodes only. With ``user_id``, what the user
        says about themself fills their profile (``profile()``) by the same call, with
        provenance ``extraction``: a value a person gave is never replaced."""
        scope = _scopes.check_path(scope)
        check_llm(llm, allow_none=True)
        if not isinstance(timezone, str):
            raise InvalidInputError("timezone", "must be an IANA timezone name")
        tz = _dates.zone(timezone)
        for name, value in (("session_id", session_id), ("user_id", user_id), ("agent_id", agent_id)):
            check.identifier(value, name, allow_none=True)
        now = self._core.now()
        msgs = _ingest.messages(messages, check.instant(occurred_at, "occurred_at"), now)
        episodes = [
            _episodes.row(
                m["content"], tenant=self._core.tenant, scope=scope, role=m["role"], occurred_at=m["occurred_at"], source="ingest",
                id=m["id"], user_id=user_id, agent_id=agent_id, session_id=session_id, importance=None,
                sensitivity=None, tags=(), now=now,
            ) for m in msgs
        ]
        windows = _episodes.chunks(episodes)
        self._embed([*episodes, *windows], [f"messages[{i}].content" for i in range(len(episodes))]
                          + ["messages[].content"] * len(windows))
        tenant = self._core.tenant

        def store(tx: Tx) -> list[Episode]:
            ids = [e["props"]["id"] for e in episodes]
            seen = {r["node"]["id"]: r["node"] for r in tx.run("memory_existing", tenant=tenant, ids=ids)}
            for i, rid in enumerate(ids):
                if rid in seen:
                    _props.expect_record(seen[rid], "episode", episodes[i]["props"], f"messages[{i}].id")
            # a message stored before (same id, or same scope, session, role, time and text) is kept once
            fresh = list({e["props"]["id"]: e for e in episodes if e["props"]["id"] not in seen}.values())
            if fresh:
                tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([scope] * len(fresh)))
                for r in tx.run("episode_create", tenant=tenant, rows=fresh, now=now):
                    seen[r["node"]["id"]] = r["node"]
                new = {e["props"]["id"] for e in fresh}
                if any(w["episodeId"] in new for w in windows):
                    tx.run("episode_chunks_create", tenant=tenant, now=now,
                                 rows=[w for w in windows if w["episodeId"] in new])
                if session_id is not None:
                    in_order = sorted(fresh, key=lambda e: (e["props"]["occurredAt"], ids.index(e["props"]["id"])))
                    tx.run("episode_link_next", tenant=tenant, ids=[e["props"]["id"] for e in in_order])
            return [record_of(Episode, seen[rid]) for rid in ids]

        stored = self._run.write(store)
        if llm is None:
            return _ingest.IngestResult(episodes=tuple(stored), notes=("no model given: episodes only",))
        return self._extract_reported(llm, msgs, stored, scope, tz, now,
                                            {"user_id": user_id, "agent_id": agent_id, "session_id": session_id})

    def extract(
        self,
        *,
        scope: str,
        llm: Any,
        session_id: str | None = None,
        since: datetime | None = None,
        timezone: str = "UTC",
        limit: int = 200,
    ) -> _ingest.IngestResult:
        """Extraction over episodes already stored ("store now, extract later"): the
        episodes stored at ``scope`` (of conversation ``session_id``, or since ``since``;
        at least one of the two), oldest first, at most ``limit``, go to ``llm`` as one
        conversation, exactly as ``ingest`` would have sent them. Statements extracted
        before are recognised as restatements and skipped."""
        scope = _scopes.check_path(scope)
        check_llm(llm)
        if session_id is None and since is None:
            raise InvalidInputError("session_id", "extract() needs session_id or since")
        check.identifier(session_id, "session_id", allow_none=True)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise InvalidInputError("limit", "must be an integer from 1 to 10000")
        if not isinstance(timezone, str):
            raise InvalidInputError("timezone", "must be an IANA timezone name")
        tz = _dates.zone(timezone)
        rows = self._run.read("episode_stored", tenant=self._core.tenant, scope=scope, sessionId=session_id,
                                    since=check.instant(since, "since"), limit=limit)
        stored = [record_of(Episode, r["node"]) for r in rows]
        if not stored:
            return _ingest.IngestResult(notes=("no stored episodes matched",))
        msgs = [{"role": e.role, "content": e.text, "occurred_at": e.occurred_at, "id": e.id} for e in stored]
        who = {"user_id": stored[0].user_id, "agent_id": stored[0].agent_id, "session_id": session_id}
        return self._extract_reported(llm, msgs, stored, scope, tz, self._core.now(), who)

    def _extract_reported(self, llm: Any, msgs: list[dict[str, Any]], stored: list[Episode], scope: str,
                                tz: Any, now: datetime, who: dict[str, Any]) -> _ingest.IngestResult:
        """``_extract`` with a model failure reported in the result, episodes kept."""
        tally: list[str] = []
        try:
            result = self._extract(llm, msgs, [e.id for e in stored], scope, tz, now, tally, who)
        except ModelError as exc:
            self._events.emit("extraction_failed", [e.id for e in stored], scope=scope, error=str(exc),
                              detail={"purpose": "ingest", "model_calls": len(tally)})
            return _ingest.IngestResult(episodes=tuple(stored), model_calls=len(tally), error=str(exc))
        return result.model_copy(update={"episodes": tuple(stored)})

    def _extract(self, llm: Any, msgs: list[dict[str, Any]], episode_ids: list[str], scope: str, tz: Any,
                       now: datetime, tally: list[str], who: dict[str, Any]) -> _ingest.IngestResult:
        tenant = self._core.tenant
        chain = _scopes.chain(scope)
        known = self._run.read("entity_known", tenant=tenant, chain=chain, limit=_KNOWN_ENTITIES)
        prompt = "Known entities:\n" + ("\n".join(
            f"- {k['name']} ({k['type']}{'; also ' + ', '.join(k['aliases']) if k['aliases'] else ''})" for k in known
        ) or "(none)") + "\n\nMessages:\n" + messages_block([(m["role"], m["content"]) for m in msgs])
        extraction = self._llm.ask(llm, Extraction, [("system", EXTRACT_SYSTEM), ("human", prompt)],
                                           purpose="ingest", tally=tally)
        entities, skipped = _ingest.unique_entities(extraction)
        entity_rows, usable = [], []
        for d in entities:
            try:
                entity_rows.append({"props": _entities.props(
                    d.name, tenant=self._core.tenant, type=d.type, scope=scope, aliases=d.aliases, properties=None, id=None, importance=None,
                    sensitivity=None, provenance=Provenance.EXTRACTION)})
                usable.append(d)
            except InvalidInputError as exc:
                skipped.append(_ingest.Skipped(kind="entity", text=d.name[:200], reason=str(exc)))
        entities = usable
        names = _ingest.name_index(entities)
        self._embed(entity_rows, ["entities"] * len(entity_rows))

        # resolution as it stands now (read only), to find the contradiction candidates
        existing = [self._resolve(None, row, chain) for row in entity_rows]
        ids_now = [(node or {}).get("id") if how in ("found", "similar") else None for how, node, _ in existing]
        plans, notes = [], []
        for draft in extraction.facts:
            plan, note, skip = _ingest.fact_plan(
                draft, names=names, entity_ids=[i or f"{_PENDING}{n}" for n, i in enumerate(ids_now)], episodes=msgs,
                episode_ids=episode_ids, tz=tz, single_valued=self._core.single_valued_predicates)
            notes += note
            if plan is not None:
                plans.append((draft, plan))
            elif skip is not None:
                skipped.append(skip)
        fact_rows = [{"props": {"text": p["text"], "embedding": None}} for _, p in plans]
        self._embed(fact_rows, ["facts"] * len(fact_rows))
        for (_, plan), row in zip(plans, fact_rows):
            plan["embedding"] = row["props"]["embedding"]
        decisions = self._contradictions(llm, plans, chain, now, tally)
        profile_rows = self._profile_rows(extraction, who, scope, episode_ids, now)

        def work(tx: Tx) -> _ingest.IngestResult:
            result = self._land(tx, entities, entity_rows, plans, decisions, msgs, episode_ids, scope, chain,
                                      now, who, list(skipped), list(notes), tally)
            if not profile_rows:
                return result
            learned = self._create_facts(tx, profile_rows, now)
            asked = {r["props"]["id"] for r in profile_rows}
            return result.model_copy(update={"profile": tuple(_profile.field_of(f) for f in learned if f.id in asked)})

        try:
            return self._run.write(work)
        except ConflictError:  # a concurrent ingest created one of these entities first: resolve again
            return self._run.write(work)

    def _profile_rows(self, extraction: Extraction, who: dict[str, Any], scope: str, episode_ids: list[str],
                            now: datetime) -> list[Any]:
        """The facts that fill the profile of ``who["user_id"]`` with what the extraction
        found about them (none without a user, or for fields a person gave)."""
        user_id = who.get("user_id")
        if user_id is None or extraction.profile is None or not _profile.learned(extraction.profile, {}):
            return []  # nothing usable found: no need to read the profile
        current = _profile.chosen(self.facts(scope=scope, subject=_profile.subject(user_id)))
        fields = _profile.learned(extraction.profile, current)
        if not fields:
            return []
        items = _profile.items(user_id, fields, scope=scope, provenance=Provenance.EXTRACTION, valid_from=None,
                               derived_from=episode_ids)
        rows = _facts.rows(items, tenant=self._core.tenant, now=now, single_valued=self._core.single_valued_predicates,
                           dimension=self._core.dimension)
        self._embed(rows, ["profile"] * len(rows))
        return rows

    def _resolve(self, tx: Tx | None, row: dict[str, Any], chain: list[str]) -> tuple[str, Any, float]:
        """How one extracted entity resolves: ('found', node) by name or alias, ('similar',
        node, cosine) above the merge threshold, ('candidate', node, cosine) in the grey
        band, or ('new', None)."""
        props = row["props"]
        tenant = self._core.tenant
        run = self._run.read if tx is None else tx.run
        keys = _entities.lookup_keys(props)
        match = run("entity_find", tenant=tenant, chain=chain, type=props["type"], keys=keys)
        if match:
            return "found", match[0]["node"], 1.0
        if props["embedding"] is not None:
            near = run("entity_similar", tenant=tenant, chain=chain, type=props["type"],
                             embedding=props["embedding"],
                             threshold=self._core.neo4j_similarity(self._learning.entity_candidate_threshold))
            if near:
                cosine = 2.0 * near[0]["similarity"] - 1.0
                how = "similar" if cosine >= self._learning.entity_merge_threshold else "candidate"
                return how, near[0]["node"], cosine
        return "new", None, 0.0

    def _contradictions(self, llm: Any, plans: list[tuple[Any, dict[str, Any]]], chain: list[str],
                              now: datetime, tally: list[str]) -> dict[int, Any]:
        """Per fact index: ('skip', reason) for restatements, or ('retire', [(id, reason)]):
        reason 'corrected' or 'contradicted' invalidates the old record, 'changed' ends its
        valid time (a new statement that replaces a value of a many-valued predicate)."""
        rows = [{"i": i, "subject": p["subject"], "embedding": p["embedding"]}
                for i, (_, p) in enumerate(plans) if not p["subject"].startswith(_PENDING) and p["embedding"]]
        if not rows:
            return {}
        found = self._run.read("fact_candidates", tenant=self._core.tenant, chain=chain, rows=rows, now=now)
        decisions: dict[int, Any] = {}
        grey: list[tuple[int, dict[str, Any], str]] = []
        for old in found:
            i = old["i"]
            draft, plan = plans[i]
            if decisions.get(i, ("",))[0] == "skip":
                continue
            cosine = 2.0 * old["similarity"] - 1.0
            same_predicate = old["predicate"] == plan["predicate"]
            same_value = same_predicate and (old["object"] or "").casefold() == (plan["object"] or "").casefold()
            automatic = old["provenance"] in AUTOMATIC
            if old["textKey"] == check.text_key(plan["text"]) or (same_value and old["object"] is not None) \
                    or cosine >= self._learning.duplicate_threshold:
                decisions[i] = ("skip", f"restates {old['id']}")
            elif draft.corrects and same_predicate and automatic and plan["single_valued"] and old["singleValued"]:
                decisions.setdefault(i, ("retire", []))[1].append((old["id"], "corrected"))
            elif same_predicate and plan["single_valued"] and old["singleValued"]:
                continue  # a change of value: supersession (contract §7.1) handles it
            elif draft.replaces and same_predicate and automatic and not old["singleValued"]:
                grey.append((i, old, "changed"))  # "switched to": the model says which value it replaced
            elif automatic and (cosine >= self._learning.judge_threshold or (draft.corrects and same_predicate)):
                grey.append((i, old, "contradicted"))  # for a multi-valued correction, the model says which value was wrong
        if grey:
            pairs = "\n".join(f"{n}. existing: {old['text']}\n   new: {plans[i][1]['text']}"
                              for n, (i, old, _) in enumerate(grey, 1))
            verdict = self._llm.ask(llm, Judgement, [("system", JUDGE_SYSTEM), ("human", pairs)],
                                            purpose="ingest (contradiction check)", tally=tally)
            contradicted = {v.pair for v in verdict.verdicts if v.contradicts}
            for n, (i, old, reason) in enumerate(grey, 1):
                if n in contradicted and decisions.get(i, ("",))[0] != "skip":
                    decisions.setdefault(i, ("retire", []))[1].append((old["id"], reason))
        return decisions

    def _land(self, tx: Tx, entities: list[EntityDraft], entity_rows: list[dict[str, Any]],
                    plans: list[tuple[Any, dict[str, Any]]], decisions: dict[int, Any], msgs: list[dict[str, Any]],
                    episode_ids: list[str], scope: str, chain: list[str], now: datetime, who: dict[str, Any],
                    skipped: list[_ingest.Skipped], notes: list[str], tally: list[str]) -> _ingest.IngestResult:
        """The extraction's one write transaction."""
        tenant = self._core.tenant
        created: list[Entity] = []
        merged: list[Entity] = []
        same_as: list[_ingest.SameAsCandidate] = []
        ids: list[str | None] = []
        for draft, row in zip(entities, entity_rows):
            props = row["props"]
            how, node, cosine = self._resolve(tx, row, chain)
            if how in ("found", "similar"):
                entity = self._merge_entity(tx, node, props)
                merged.append(entity)
                ids.append(entity.id)
                continue
            if tx.run("entity_forgotten", tenant=tenant, scope=scope, chain=chain, prefix=scope + "/",
                            type=props["type"], keys=_entities.lookup_keys(props)):
                skipped.append(_ingest.Skipped(kind="entity", text=draft.name, reason="forgotten by the user"))
                ids.append(None)
                continue
            entity, new = self._create_entity(tx, props, chain, now)
            (created if new else merged).append(entity)
            ids.append(entity.id)
            if new and how == "candidate":
                same_as.append(_ingest.SameAsCandidate(entity=entity.id, candidate=node["id"], similarity=round(cosine, 4)))
        items, kept = [], []
        for i, (_draft, plan) in enumerate(plans):
            decision = decisions.get(i)
            if decision and decision[0] == "skip":
                skipped.append(_ingest.Skipped(kind="fact", text=plan["text"], reason=decision[1]))
                continue
            item = _remap(plan, ids)
            if item is None:
                skipped.append(_ingest.Skipped(kind="fact", text=plan["text"], reason="its entity was forgotten by the user"))
                continue
            items.append({**item, "scope": scope, **who})
            kept.append(i)
        effects: dict[str, list[str]] = {}
        facts = []
        to_retire = [old for i in kept if (d := decisions.get(i)) and d[0] == "retire" for old, _ in d[1]]
        if items:
            rows = _facts.rows(items, tenant=tenant, now=now, single_valued=self._core.single_valued_predicates,
                               dimension=self._core.dimension)
            facts = self._create_facts(tx, rows, now, effects, exclude=to_retire)
        by_text = {f.id: f for f in facts}
        written = {rows[n]["props"]["id"]: kept[n] for n in range(len(kept))} if items else {}
        for rid, i in written.items():
            if rid not in by_text:
                skipped.append(_ingest.Skipped(kind="fact", text=plans[i][1]["text"], reason="forgotten by the user"))
        retired: list[str] = []
        replaced: list[str] = []
        for rid, i in written.items():
            decision = decisions.get(i)
            if rid in by_text and decision and decision[0] == "retire":
                for old_id, reason in decision[1]:
                    if reason == "changed":
                        replaced += [r["id"] for r in tx.run(
                            "fact_close", tenant=tenant, id=old_id, by=rid, automatic=AUTOMATIC, now=now)]
                        continue
                    retired += [r["id"] for r in tx.run(
                        "memory_invalidate", tenant=tenant, ids=[old_id], reason=reason, by=rid, note=None, now=now)]
        if retired or replaced:
            self._after_invalidation(tx, retired + replaced, retired, now)
            tx.emit("superseded", replaced, reason="changed", scope=scope)
            for reason in ("corrected", "contradicted"):
                tx.emit("invalidated", [old for i in kept if (d := decisions.get(i)) and d[0] == "retire"
                                        for old, why in d[1] if why == reason and old in retired],
                        reason=reason, scope=scope)
        effects.setdefault("closed", []).extend(replaced)
        links = _ingest.mentions(entities, ids, msgs, episode_ids, items)
        if links:
            tx.run("episode_links", tenant=tenant, rows=links, created=[e.id for e in created])
        if same_as:
            tx.run("entity_same_as", tenant=tenant, now=now, rows=[
                {"id": s.entity, "candidate": s.candidate, "similarity": s.similarity} for s in same_as])
        batch = set(by_text)
        return _ingest.IngestResult(
            entities_created=tuple(created), entities_merged=tuple(merged),
            same_as=tuple(same_as), facts=tuple(facts),
            superseded=tuple(sorted(set(effects.get("closed", [])) - batch - set(retired))),
            invalidated=tuple(sorted(set(retired) | set(effects.get("replaced", [])))),
            skipped=tuple(skipped), notes=tuple(notes), model_calls=len(tally),
        )


def _remap(plan: dict[str, Any], ids: list[str | None]) -> dict[str, Any] | None:
    """Replace the placeholder ids of entities new at planning time by the ids the write
    transaction resolved them to; None if one of them was not written."""
    item = dict(plan)
    for key in ("subject", "object"):
        value = item.get(key)
        if isinstance(value, str) and value.startswith(_PENDING):
            resolved = ids[int(value[len(_PENDING):])]
            if resolved is None:
                return None
            item[key] = resolved
    return item
