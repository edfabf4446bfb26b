"""Corrections of agent output against a real Neo4j: the Correction node and its run
episode, contradiction of machine-made records in the same transaction (never a
person's), relevance-floored lookup, the context section, regression cases and counts."""

from __future__ import annotations

import pytest

from graphmem import Correction, InvalidInputError, Memory
from tests.integration.helpers import Clock, utc

SCOPE = "support/ann"


@pytest.fixture
def mem(neo4j, schema, embedder, tenant):
    # the hashing embedder is lexical: 0.6 makes close restatements contradictions
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                contradiction_threshold=0.6) as m:
        yield m


def count(driver, tenant: str, label: str) -> int:
    records, _, _ = driver.execute_query(f"MATCH (n:{label} {{tenant: $t}}) RETURN count(n) AS n", {"t": tenant})
    return records[0]["n"]


def test_a_correction_is_stored_about_its_run_and_contradicts_machine_records_only(mem, driver):
    run = mem.add_episode("Agent: Ann's order ships to Paris", scope=SCOPE, role="assistant")
    wrong = mem.remember("Ann's order ships to Paris", scope=SCOPE, provenance="extraction")
    said = mem.remember("Ann's order ships to Paris", scope=SCOPE, provenance="user")
    typed = mem.remember("Ann's order ships to Paris", scope=SCOPE, provenance="manual")
    sibling = mem.remember("Ann's order ships to Paris", scope="support/bob", provenance="extraction")
    unrelated = mem.remember("The warehouse closes at six", scope=SCOPE, provenance="extraction")
    insight = mem.add_insight("Ann's order ships to Paris soon", cites=[said], scope=SCOPE)
    cited = mem.add_insight("Ann ships orders abroad", cites=[wrong], scope=SCOPE)
    fix = mem.record_correction(
        "shipping-bot", "Paris", "Ann's order ships to Lyon", field="destination", reason="she moved",
        entity_key="order-17", original_input="Where does Ann's order ship?", run_id=run.id, session_id="s1",
        user_id="ann", scope=SCOPE)
    assert isinstance(fix, Correction)
    assert (fix.provenance.value, fix.status.value, fix.agent_id, fix.text) == (
        "human-correction", "active", "shipping-bot", "Ann's order ships to Lyon")
    assert (fix.original_value, fix.corrected_value, fix.field, fix.entity_key, fix.run_id) == (
        "Paris", "Ann's order ships to Lyon", "destination", "order-17", run.id)
    assert mem.get(fix.id) == fix
    records, _, _ = driver.execute_query(
        "MATCH (:Correction {tenant: $t, id: $id})-[:ABOUT]->(e:Episode) RETURN e.id AS id",
        {"t": mem.tenant, "id": fix.id})
    assert [r["id"] for r in records] == [run.id]
    contradicted = mem.get(wrong.id)
    assert contradicted.invalidation_reason == "contradicted"
    assert [(s.by, s.reason) for s in contradicted.superseded_by] == [(fix.id, "contradicted")]
    assert mem.get(insight.id).invalidation_reason == "contradicted"  # machine-made insight, same claim
    # what rested on the contradicted fact loses salience in the same transaction
    assert mem.get(cited.id).salience == 1
    for kept in (said, typed, sibling, unrelated, run):
        assert mem.get(kept.id).believed, kept.text


@pytest.mark.parametrize("kwargs, field", [
    ({"agent": ""}, "agent"),
    ({"original_value": "  "}, "original_value"),
    ({"corrected_value": 7}, "corrected_value"),
    ({"field": ""}, "field"),
    ({"reason": 3}, "reason"),
    ({"entity_key": ""}, "entity_key"),
    ({"original_input": ""}, "original_input"),
    ({"run_id": "no-such-episode"}, "run_id"),
    ({"session_id": ""}, "session_id"),
    ({"user_id": 5}, "user_id"),
    ({"scope": "a//b"}, "scope"),
])
def test_bad_corrections_are_refused_and_nothing_is_written(mem, driver, kwargs, field):
    wrong = mem.remember("Ann's order ships to Paris", scope=SCOPE, provenance="extraction")
    args = {"agent": "bot", "original_value": "Paris", "corrected_value": "Ann's order ships to Lyon", "scope": SCOPE,
            **kwargs}
    with pytest.raises(InvalidInputError) as info:
        mem.record_correction(args.pop("agent"), args.pop("original_value"), args.pop("corrected_value"), **args)
    assert info.value.field == field
    assert count(driver, mem.tenant, "Correction") == 0
    assert mem.get(wrong.id).believed


def test_run_id_must_be_an_episode_visible_in_scope(mem, driver):
    fact = mem.remember("Ann likes tea", scope=SCOPE)
    other = mem.add_episode("Agent: hello Bob", scope="support/bob", role="assistant")
    for run_id in (fact.id, other.id):
        with pytest.raises(InvalidInputError) as info:
            mem.record_correction("bot", "tea", "Ann likes coffee", run_id=run_id, scope=SCOPE)
        assert info.value.field == "run_id"
    assert count(driver, mem.tenant, "Correction") == 0


def test_corrections_are_found_by_relevance_and_filtered(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 1, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        old = m.record_correction("bot", "9 EUR", "Shipping to France costs 12 EUR", field="price",
                                  entity_key="shipping-fr", scope=SCOPE)
        clock.tick(days=2)
        new = m.record_correction("bot", "Monday", "Refunds are paid within 5 working days", field="delay",
                                  entity_key="refunds", original_input="When do I get my refund?", scope=SCOPE)
        clock.tick(days=1)
        other = m.record_correction("other-bot", "10 EUR", "Shipping to France costs 12 EUR incl. VAT",
                                    field="price", entity_key="shipping-fr", scope=SCOPE)
        hidden = m.record_correction("bot", "x", "Shipping to France costs 12 EUR", scope="support/bob")
        found = m.corrections("How much does shipping to France cost?", scope=SCOPE)
        assert {c.id for c in found} == {old.id, other.id}  # the refund correction is below the floor
        assert hidden.id not in {c.id for c in found}
        assert [c.id for c in m.corrections("shipping to France", agent="bot", scope=SCOPE)] == [old.id]
        assert [c.id for c in m.corrections("refund", entity_key="refunds", scope=SCOPE)] == [new.id]
        assert m.corrections("shipping to France", since=utc(2025, 1, 2), agent="bot", scope=SCOPE) == []
        assert m.corrections("quantum chromodynamics lecture", scope=SCOPE) == []
        assert [c.id for c in m.corrections(scope=SCOPE, k=2)] == [other.id, new.id]  # newest first
        assert [c.id for c in m.corrections(scope=SCOPE, agent="bot")] == [new.id, old.id]
        with pytest.raises(InvalidInputError) as info:
            m.corrections("x", scope=SCOPE, k=0)
        assert info.value.field == "k"
        with pytest.raises(InvalidInputError) as info:
            m.corrections(scope=SCOPE, since="yesterday")
        assert info.value.field == "since"


def test_context_shows_corrections_first(mem):
    mem.remember("Shipping to France costs 9 EUR", scope=SCOPE, provenance="user")
    mem.record_correction("bot", "9 EUR", "Shipping to France costs 12 EUR", field="price", reason="new tariff",
                          scope=SCOPE)
    block = mem.context("shipping to France cost", scope=SCOPE)
    assert block.startswith("## Corrections\n- [human-correction] price: not '9 EUR' but "
                            "'Shipping to France costs 12 EUR' (new tariff)")
    assert "## Facts" in block
    assert "## Corrections" not in mem.context("shipping to France cost", scope=SCOPE, sections=["facts"])


def test_eval_cases_and_stats(mem):
    a = mem.record_correction("bot", "Paris", "Lyon", field="city", entity_key="ann",
                              original_input="Where does Ann live?", scope=SCOPE)
    mem.record_correction("bot", "red", "blue", field="colour", entity_key="ann", scope=SCOPE)
    c = mem.record_correction("bot", "3", "4", field="city", entity_key="bob", original_input="How many?", scope=SCOPE)
    mem.record_correction("other", "x", "y", scope=SCOPE)
    cases = mem.correction_eval_cases(scope=SCOPE, agent="bot")
    assert sorted(cases, key=lambda c: c["correction_id"]) == sorted([
        {"input": "Where does Ann live?", "expected": "Lyon", "field": "city", "correction_id": a.id},
        {"input": "How many?", "expected": "4", "field": "city", "correction_id": c.id},
    ], key=lambda c: c["correction_id"])
    assert [x["correction_id"] for x in mem.correction_eval_cases(scope=SCOPE, entity_key="bob")] == [c.id]
    stats = mem.correction_stats(scope=SCOPE, agent="bot")
    assert stats.total == 3
    assert stats.by_entity_key == {"ann": 2, "bob": 1} and stats.by_field == {"city": 2, "colour": 1}
    everyone = mem.correction_stats(scope=SCOPE)
    assert everyone.total == 4 and everyone.by_field[None] == 1
    assert mem.correction_stats(scope="support/bob").total == 0
