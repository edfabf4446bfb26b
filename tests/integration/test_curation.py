"""The curator against a real Neo4j: exact duplicates, near-duplicates merged by a
scripted chat model, pruning and purging, statistics, ``curate`` (idempotent, resumable)
and the trust rule: nothing a person said is merged away, pruned or invalidated."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

from graphmem import CurationReport, InvalidInputError, Memory, ModelError
from tests.fakes import scripted, tool_answer
from tests.integration.helpers import Clock, utc

PLANTED = itertools.count()  # explicit ids: remember() would return the first copy instead
SCOPE = "crm"


@pytest.fixture
def clocked(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 1, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m, clock


def merged(text: str):
    return tool_answer("MergedMemory", {"text": text})


def test_dedupe_keeps_the_most_trusted_and_oldest(clocked):
    m, clock = clocked
    first = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    clock.tick(minutes=1)
    later = m.remember("zorblat prefers invoices by email!", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    said = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user")
    clock.tick(minutes=1)
    said_again = m.remember("Zorblat prefers invoices by email.", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user")
    below = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope="crm/eu", provenance="extraction")
    twin_below = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope="crm/eu", provenance="reflection")
    other_time = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction",
                            valid_from=utc(2020), valid_to=utc(2021))
    elsewhere = m.remember("Zorblat prefers invoices by email", id=f"planted-{next(PLANTED)}", scope="hr", provenance="extraction")
    assert m.dedupe(scope=SCOPE) == 3  # a later restatement is a duplicate: same text, both still valid
    for gone, by in ((first, said), (later, said), (twin_below, below)):
        record = m.get(gone.id)
        assert record.invalidation_reason == "duplicate", gone.text
        assert [(s.by, s.reason) for s in record.superseded_by] == [(by.id, "duplicate")]
        assert record.provenance == gone.provenance  # provenance kept
    for kept in (said, said_again, below, other_time, elsewhere):
        assert m.get(kept.id).believed
    assert m.dedupe(scope=SCOPE) == 0  # idempotent
    assert m.dedupe(scope="hr") == 0


def test_dedupe_in_small_batches_finishes_the_same_work(clocked):
    m, _ = clocked
    for i in range(5):
        for _ in range(3):
            m.remember(f"Quuxbot item {i} is on the shelf", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    assert m.dedupe(scope=SCOPE, batch=2) == 10
    assert m.stats(scope=SCOPE).believed == 5
    with pytest.raises(InvalidInputError) as info:
        m.dedupe(scope=SCOPE, batch=0)
    assert info.value.field == "batch"


def test_consolidate_merges_machine_near_duplicates_with_the_model(clocked, driver):
    m, _ = clocked
    a = m.remember("Florbix ordered twelve blue widgets for the Lyon depot", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction",
                   subject="florbix", predicate="ordered", object="widgets", tags=["orders"])
    b = m.remember("Florbix ordered twelve blue widgets for the Lyon depot today", id=f"planted-{next(PLANTED)}", scope=SCOPE,
                   provenance="extraction", subject="florbix", predicate="ordered", object="widgets",
                   importance=0.9)
    said = m.remember("Florbix ordered twelve blue widgets for the Lyon depot, confirmed", id=f"planted-{next(PLANTED)}", scope=SCOPE,
                      provenance="user")
    far = m.remember("The Lyon depot closes in August", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    llm = scripted(merged("Florbix ordered twelve blue widgets for the Lyon depot"))
    facts = m.consolidate(scope=SCOPE, llm=llm, threshold=0.8)
    assert len(facts) == 1 and llm.calls == 1
    new = facts[0]
    assert (new.text, new.provenance.value, new.subject, new.predicate, new.object, new.importance, new.tags) == (
        "Florbix ordered twelve blue widgets for the Lyon depot", "extraction", "florbix", "ordered", "widgets",
        0.9, ("orders",))
    for original in (a, b):
        record = m.get(original.id)
        assert record.invalidation_reason == "merged"
        assert [(s.by, s.reason) for s in record.superseded_by] == [(new.id, "merged")]
    records, _, _ = driver.execute_query(
        "MATCH (:Fact {tenant: $t, id: $id})-[:DERIVED_FROM]->(o) RETURN o.id AS id", {"t": m.tenant, "id": new.id})
    assert {r["id"] for r in records} == {a.id, b.id}
    assert m.get(said.id).believed and m.get(far.id).believed  # a person's record is never merged
    assert m.consolidate(scope=SCOPE, llm=scripted(), threshold=0.8) == []  # nothing left: no model call


def test_consolidate_refuses_bad_input_and_writes_nothing_when_the_model_fails(clocked):
    m, _ = clocked
    a = m.remember("Grumwald ships pallets from Bremen every Monday", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    b = m.remember("Grumwald ships pallets from Bremen every Monday morning", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    for kwargs, field in (({"llm": None}, "llm"), ({"llm": "gpt"}, "llm"), ({"threshold": 1.5}, "threshold"),
                          ({"max_merges": 0}, "max_merges"), ({"scope": "a//b"}, "scope")):
        with pytest.raises(InvalidInputError) as info:
            m.consolidate(**{"scope": SCOPE, "llm": scripted(), "threshold": 0.8, **kwargs})
        assert info.value.field == field
    with pytest.raises(ModelError):
        m.consolidate(scope=SCOPE, llm=scripted(*[merged("   ")] * 3), threshold=0.8)
    assert m.get(a.id).believed and m.get(b.id).believed
    assert m.stats(scope=SCOPE).total == 2


def test_prune_and_purge_touch_old_machine_records_only(clocked):
    m, clock = clocked
    old = m.remember("Old extracted note about Plimsoll", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    old_user = m.remember("Old note the user gave about Plimsoll", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user")
    old_manual = m.remember("Old note typed in about Plimsoll", id=f"planted-{next(PLANTED)}", scope="crm/eu", provenance="manual")
    forgotten = m.remember("Plimsoll's old phone number", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    m.forget(scope=SCOPE, id=forgotten.id)
    superseded = m.remember("A duplicate Plimsoll note", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    m.remember("A duplicate Plimsoll note", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user")
    m.dedupe(scope=SCOPE)
    insight = m.add_insight("Plimsoll keeps old notes", cites=[old_user], scope=SCOPE)
    validated = m.add_insight("Plimsoll is a long-time customer", cites=[old_user], scope=SCOPE)
    m.validate(validated.id)
    clock.tick(days=100)
    recent = m.remember("Recent extracted note about Plimsoll", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    counters = {s["path"]: s["memories"] for s in m.scopes()}
    result = m.prune(scope=SCOPE, older_than=clock.now - timedelta(days=30))
    assert result == {"pruned": 2, "purged": 0}
    assert m.get(old.id).invalidation_reason == "pruned" and m.get(insight.id).invalidation_reason == "pruned"
    for kept in (old_user, old_manual, validated, recent):
        assert m.get(kept.id).believed, kept.text
    clock.tick(days=60)
    result = m.prune(scope=SCOPE, older_than=clock.now - timedelta(days=30), purge=True)
    # pruned: the recent note, now old too; purged: the pruned fact and insight and the
    # superseded duplicate (the note pruned just now is not yet old enough); the tombstone stays
    assert result == {"pruned": 1, "purged": 3}
    assert m.get(old.id) is None and m.get(insight.id) is None and m.get(superseded.id) is None
    assert m.get(forgotten.id).invalidation_reason == "forgotten"
    assert m.get(recent.id).invalidation_reason == "pruned" and m.get(old_user.id).believed
    after = {s["path"]: s["memories"] for s in m.scopes()}
    assert after[SCOPE] == counters[SCOPE] - 3
    for field, kwargs in (("provenance", {"provenance": "user"}), ("provenance", {"provenance": ["extraction", "manual"]}),
                          ("older_than", {"older_than": "last year"}), ("purge", {"purge": "yes"})):
        with pytest.raises(InvalidInputError) as info:
            m.prune(**{"scope": SCOPE, "older_than": clock.now, **kwargs})
        assert info.value.field == field
    assert m.get(old_user.id).believed and m.get(old_manual.id).believed


def test_stats_and_curate_report_are_idempotent(clocked):
    m, clock = clocked
    for _ in range(3):
        m.remember("Wibblecorp renews in March", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    m.remember("Wibblecorp renews in March", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user")
    m.remember("Snorkelco pays late most months now", id=f"planted-{next(PLANTED)}", scope="crm/eu", provenance="extraction")
    m.remember("Snorkelco pays late most months now, again", id=f"planted-{next(PLANTED)}", scope="crm/eu", provenance="extraction")
    stale = m.remember("Stale Wibblecorp rumour", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    clock.tick(days=10)
    before = m.stats(scope=SCOPE)
    assert (before.total, before.believed, before.by_kind, before.by_provenance) == (
        7, 7, {"fact": 7}, {"extraction": 6, "user": 1})
    llm = scripted(merged("Snorkelco pays late most months"))
    report = m.curate(scope=SCOPE, llm=llm, older_than=clock.now - timedelta(days=5), threshold=0.8)
    assert isinstance(report, CurationReport)
    assert (report.deduplicated, report.consolidated, report.merged, report.pruned, report.purged,
            report.model_calls) == (3, 1, 2, 1, 0, 1)
    assert report.before == before
    assert (report.after.total, report.after.believed) == (8, 2)
    assert report.after.by_reason == {"duplicate": 3, "merged": 2, "pruned": 1}
    assert m.get(stale.id).invalidation_reason == "pruned"
    assert set(report.seconds) >= {"dedupe", "consolidate", "prune", "total"}
    again = m.curate(scope=SCOPE, llm=scripted(), older_than=clock.now - timedelta(days=5), threshold=0.8)
    assert (again.deduplicated, again.consolidated, again.merged, again.pruned, again.model_calls) == (0, 0, 0, 0, 0)
    assert again.after == report.after


def test_no_curation_step_touches_what_a_person_said(clocked):
    m, clock = clocked
    people = [
        m.remember("Yonder Ltd wants paper invoices", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user"),
        m.remember("Yonder Ltd wants paper invoices", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="user"),
        m.remember("Yonder Ltd wants paper invoices please", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="manual"),
        m.remember("Yonder Ltd wants paper invoices", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="human-correction"),
        m.record_correction("bot", "email", "Yonder Ltd wants paper invoices, not email", scope=SCOPE),
        m.log_decision("bot", "Send paper invoices to Yonder Ltd", reasoning="asked", decision_type="billing",
                       scope=SCOPE),
        m.add_episode("Yonder Ltd: we want paper invoices", scope=SCOPE),
    ]
    machine = m.remember("Yonder Ltd wants paper invoices", id=f"planted-{next(PLANTED)}", scope=SCOPE, provenance="extraction")
    clock.tick(days=400)
    llm = scripted(*[merged("Yonder Ltd wants paper invoices")] * 5)
    m.curate(scope=SCOPE, llm=llm, older_than=clock.now, purge=True, threshold=0.5)
    for record in people:
        stored = m.get(record.id)
        assert stored is not None and stored.believed, record.text
    assert m.get(machine.id) is None or not m.get(machine.id).believed
