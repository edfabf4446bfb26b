"""ingest()'s write planned without a database (graphmem/_learning/ingest_write.py): what each
planned fact does to the stored facts about its subject, and the facts kept for the write."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from graphmem._base import validate as check
from graphmem._learning.ingest import PendingEntity, Skipped, resolved
from graphmem._learning.ingest_write import (
    Batch,
    CandidateRow,
    Doubt,
    Retire,
    Retirement,
    Skip,
    decide,
    judged,
    kept_facts,
    landed_rows,
    question,
    retirements,
)
from graphmem._learning.prompts import FactDraft
from graphmem._learning.settings import LearningSettings

NOW = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
LEARNING = LearningSettings()  # duplicate 0.97, judge 0.6
SCOPE = "crm/ana"  # where the planned facts are written


def planned(text="Ana lives in Porto", predicate="lives_in", object="Porto", single_valued=True, **draft):
    plan = {"text": text, "subject": "e-ana", "predicate": predicate, "object": object, "single_valued": single_valued}
    return FactDraft(subject="Ana", predicate=predicate, object=None if isinstance(object, PendingEntity) else object,
                     text=text, **draft), plan


def stored(i=0, id="f1", text="Ana lives in Lisbon", predicate="lives_in", object="Lisbon", single_valued=True,
           cosine=0.5, provenance="extraction", scope=SCOPE):
    """A fact_candidates row: ``similarity`` is Neo4j's, (1 + cosine) / 2."""
    return CandidateRow(i=i, id=id, predicate=predicate, object=object, single_valued=single_valued,
                        provenance=provenance, text_key=check.text_key(text), text=text, scope=scope,
                        similarity=(1 + cosine) / 2)


def test_a_restatement_is_skipped_and_its_other_candidates_no_longer_matter():
    plans = [planned(corrects=True)]
    decisions, doubts = decide([stored(id="f1", text="Ana lives in Porto", object="Porto"), stored(id="f2"),
                                stored(id="f3", text="Ana is homeless", predicate="status", cosine=0.7)],
                               plans, LEARNING, scope=SCOPE)
    assert decisions == {0: Skip("restates f1")} and doubts == []
    # the same value (case aside) or a near-identical sentence also restate
    assert decide([stored(object="porto")], [planned()], LEARNING, scope=SCOPE)[0] == {0: Skip("restates f1")}
    assert decide([stored(cosine=0.98)], [planned()], LEARNING, scope=SCOPE)[0] == {0: Skip("restates f1")}


def test_the_rules_retire_a_corrected_machine_made_value_and_leave_a_change_to_supersession():
    decisions, doubts = decide([stored(id="f1"), stored(id="f2", object="Braga")], [planned(corrects=True)], LEARNING, scope=SCOPE)
    assert decisions == {0: Retire((Retirement("f1", "corrected"), Retirement("f2", "corrected")))} and doubts == []
    assert decide([stored()], [planned()], LEARNING, scope=SCOPE) == ({}, [])  # a change of value, not a correction
    assert decide([stored(provenance="manual")], [planned(corrects=True)], LEARNING, scope=SCOPE) == ({}, [])  # a person's word


def test_a_fact_of_another_scope_is_restated_but_never_retired():
    """A stored fact of an ancestor scope is visible where the facts are written: saying it
    again restates it, but a correction, a contradiction or a replacement never retires it
    (a write changes nothing outside its own scope)."""
    parent = {"scope": "crm"}
    assert decide([stored(object="porto", **parent)], [planned()], LEARNING, scope=SCOPE)[0] == {0: Skip("restates f1")}
    assert decide([stored(**parent)], [planned(corrects=True)], LEARNING, scope=SCOPE) == ({}, [])
    likes = planned("Ana likes tea now", "likes", "tea", single_valued=False, replaces=True)
    old = stored(text="Ana likes coffee", predicate="likes", object="coffee", single_valued=False, **parent)
    assert decide([old], [likes], LEARNING, scope=SCOPE) == ({}, [])
    works = planned("Ana works at Acme", "works_at", "Acme", single_valued=False)
    near = stored(text="Ana is unemployed", predicate="status", object=None, cosine=0.7, **parent)
    assert decide([near], [works], LEARNING, scope=SCOPE) == ({}, [])
    # the same candidates in the write's own scope are retired or put to the model
    assert decide([stored()], [planned(corrects=True)], LEARNING, scope=SCOPE)[0] == {
        0: Retire((Retirement("f1", "corrected"),))}
    assert len(decide([replace(near, scope=SCOPE)], [works], LEARNING, scope=SCOPE)[1]) == 1


def test_doubtful_pairs_go_to_the_model_with_the_retirement_they_would_make():
    likes = planned("Ana likes tea now", "likes", "tea", single_valued=False, replaces=True)
    old = stored(text="Ana likes coffee", predicate="likes", object="coffee", single_valued=False)
    assert decide([old], [likes], LEARNING, scope=SCOPE) == ({}, [
        Doubt(fact=0, retirement=Retirement("f1", "changed"), old_text="Ana likes coffee", new_text="Ana likes tea now")])
    works = planned("Ana works at Acme", "works_at", "Acme", single_valued=False)
    near = stored(text="Ana is unemployed", predicate="status", object=None, cosine=0.7)
    assert decide([near], [works], LEARNING, scope=SCOPE)[1][0].retirement == Retirement("f1", "contradicted")
    assert decide([replace(near, similarity=(1 + 0.5) / 2)], [works], LEARNING, scope=SCOPE) == ({}, [])  # below judge_threshold
    assert decide([replace(near, provenance="manual")], [works], LEARNING, scope=SCOPE) == ({}, [])


def test_an_entity_the_write_will_create_is_never_the_value_of_a_stored_fact():
    plan = planned("Ana knows Bo", "knows", PendingEntity(1), single_valued=False)
    old = stored(text="Ana knows Al", predicate="knows", object="e-al", single_valued=False, cosine=0.1)
    assert decide([old], [plan], LEARNING, scope=SCOPE) == ({}, [])


def test_the_models_verdicts_retire_only_the_confirmed_pairs_and_never_a_skipped_fact():
    decisions = {0: Retire((Retirement("f1", "corrected"),)), 2: Skip("restates f9")}
    doubts = [Doubt(0, Retirement("f2", "contradicted"), "a", "b"), Doubt(1, Retirement("f3", "changed"), "c", "d"),
              Doubt(0, Retirement("f4", "contradicted"), "e", "f"), Doubt(2, Retirement("f5", "contradicted"), "g", "h")]
    assert question(doubts[:2]) == "1. existing: a\n   new: b\n2. existing: c\n   new: d"
    out = judged(decisions, doubts, {1, 3, 4})
    assert out == {0: Retire((Retirement("f1", "corrected"), Retirement("f2", "contradicted"),
                              Retirement("f4", "contradicted"))), 2: Skip("restates f9")}
    assert decisions[0] == Retire((Retirement("f1", "corrected"),))  # the decisions given are left as they were
    assert retirements(out[0])[1].old_id == "f2" and retirements(out[2]) == () and retirements(None) == ()


def test_kept_facts_carry_the_landed_entity_ids_and_the_others_say_why_not():
    facts = [planned("Ana knows Bo", "knows", PendingEntity(1)), planned("Ana knows Cy", "knows", PendingEntity(2)),
             planned("Ana lives in Porto"), planned("Ana is 30", "age", "30")]
    batch = Batch(entities=[], entity_rows=[], plans=facts, decisions={2: Skip("restates f1"), 3: Retire(())},
                  msgs=[], episode_ids=[], scope="acme", chain=["acme"], now=NOW, who={"user_id": "u1"}, skipped=[],
                  notes=[], tally=[])
    kept, skipped = kept_facts(batch, ["e-ana", "e-bo", None])
    assert [(i, item["object"], item["scope"], item["user_id"]) for i, item in kept] == [
        (0, "e-bo", "acme", "u1"), (3, "30", "acme", "u1")]
    assert skipped == [Skipped(kind="fact", text="Ana knows Cy", reason="its entity was forgotten by the user"),
                       Skipped(kind="fact", text="Ana lives in Porto", reason="restates f1")]


def test_resolving_replaces_only_pending_entities():
    plan = {"subject": PendingEntity(0), "object": "PendingEntity(1)", "text": "x"}
    assert resolved(plan, ["e-0", "e-1"]) == {"subject": "e-0", "object": "PendingEntity(1)", "text": "x"}
    assert plan["subject"] == PendingEntity(0)  # the plan itself is kept for a retry of the write
    assert resolved(plan, [None]) is None


def test_each_row_lands_as_itself_once_or_says_what_became_of_it():
    rows = [{"id": "a", "text": "Dana likes tea"}, {"id": "b", "text": "Dana likes tea"},
            {"id": "c", "text": "Dana likes coffee"}, {"id": "d", "text": "Dana likes jazz"}]
    node_a, stored = {"id": "a", "text": "Dana likes tea"}, {"id": "s1", "text": "Dana likes coffee"}
    landed, skipped = landed_rows(rows, [node_a, node_a, stored, None])
    assert landed == [node_a]
    assert skipped == [Skipped(kind="fact", text="Dana likes tea", reason="restates a"),
                       Skipped(kind="fact", text="Dana likes coffee", reason="restates s1"),
                       Skipped(kind="fact", text="Dana likes jazz", reason="forgotten by the user")]
