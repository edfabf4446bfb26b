"""The decision log against a real Neo4j: decisions DERIVED_FROM their session's
episodes, outcomes (a later one replaces an earlier, which is logged), listing, search,
tool calls and decision quality."""

from __future__ import annotations

import pytest

from graphmem import Decision, InvalidInputError, Memory, NotFoundError
from tests.integration.helpers import Clock, utc

SCOPE = "shop/agents"


def count(driver, tenant: str) -> int:
    records, _, _ = driver.execute_query("MATCH (n:Decision {tenant: $t}) RETURN count(n) AS n", {"t": tenant})
    return records[0]["n"]


@pytest.fixture
def clocked(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 3, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m, clock


def test_a_decision_derives_from_its_sessions_episodes_and_records_outcomes(clocked, driver):
    m, clock = clocked
    asked = m.add_episode("Customer asks for a refund of a dented kettle", scope=SCOPE, session_id="s1")
    shown = m.add_episode("Photo shows the dent", scope=SCOPE, session_id="s1", role="tool")
    m.add_episode("Unrelated chat", scope=SCOPE, session_id="s2")
    m.add_episode("Other shop, same session id", scope="other", session_id="s1")
    clock.tick(minutes=1)
    d = m.log_decision("refund-bot", "Refund the kettle in full", reasoning="damage is visible on the photo",
                       decision_type="refund", context="order A1, 30 EUR", alternatives=["replace", "partial refund"],
                       confidence=0.8, importance=0.7, session_id="s1", scope=SCOPE)
    assert isinstance(d, Decision)
    assert (d.agent_id, d.text, d.reasoning, d.decision_type, d.context, d.alternatives, d.confidence) == (
        "refund-bot", "Refund the kettle in full", "damage is visible on the photo", "refund", "order A1, 30 EUR",
        ("replace", "partial refund"), 0.8)
    assert (d.outcome, d.quality, d.outcome_at, d.provenance.value) == (None, None, None, "manual")
    records, _, _ = driver.execute_query(
        "MATCH (:Decision {tenant: $t, id: $id})-[:DERIVED_FROM]->(e:Episode) RETURN e.id AS id",
        {"t": m.tenant, "id": d.id})
    assert {r["id"] for r in records} == {asked.id, shown.id}
    clock.tick(days=1)
    first = m.record_decision_outcome(d.id, "customer happy", quality="good")
    assert (first.outcome, first.quality, first.outcome_at, first.outcome_log) == ("customer happy", "good",
                                                                                   clock.now, ())
    clock.tick(days=30)
    second = m.record_decision_outcome(d.id, "kettle was resold: fraud", quality="bad")
    assert (second.outcome, second.quality, second.outcome_at) == ("kettle was resold: fraud", "bad", clock.now)
    assert second.outcome_log == ("2025-03-02T00:01:00+00:00 good: customer happy",)
    assert m.get(d.id) == second


@pytest.mark.parametrize("kwargs, field", [
    ({"agent": ""}, "agent"),
    ({"decision": ""}, "decision"),
    ({"reasoning": None}, "reasoning"),
    ({"decision_type": ""}, "decision_type"),
    ({"context": ""}, "context"),
    ({"alternatives": "replace"}, "alternatives"),
    ({"alternatives": ["ok", ""]}, "alternatives[1]"),
    ({"confidence": 1.5}, "confidence"),
    ({"confidence": True}, "confidence"),
    ({"importance": 2}, "importance"),
    ({"session_id": ""}, "session_id"),
    ({"scope": ""}, "scope"),
])
def test_bad_decisions_are_refused_and_nothing_is_written(memory, driver, kwargs, field):
    args = {"agent": "bot", "decision": "Refund", "reasoning": "dented", "decision_type": "refund", "scope": SCOPE,
            **kwargs}
    with pytest.raises(InvalidInputError) as info:
        memory.log_decision(args.pop("agent"), args.pop("decision"), **args)
    assert info.value.field == field
    assert count(driver, memory.tenant) == 0


def test_bad_outcomes_are_refused(memory):
    d = memory.log_decision("bot", "Refund", reasoning="dented", decision_type="refund", scope=SCOPE)
    fact = memory.remember("Ann likes tea", scope=SCOPE)
    with pytest.raises(InvalidInputError) as info:
        memory.record_decision_outcome(d.id, "fine", quality="great")
    assert info.value.field == "quality"
    with pytest.raises(InvalidInputError) as info:
        memory.record_decision_outcome(d.id, "  ", quality="good")
    assert info.value.field == "outcome"
    with pytest.raises(InvalidInputError) as info:
        memory.record_decision_outcome(fact.id, "fine", quality="good")
    assert info.value.field == "id"
    with pytest.raises(NotFoundError):
        memory.record_decision_outcome("no-such-decision", "fine", quality="good")
    assert memory.get(d.id).outcome is None


def test_listing_search_tool_calls_and_quality(clocked):
    m, clock = clocked
    made = []
    for i, (agent, kind, text) in enumerate([
        ("refund-bot", "refund", "Refund the dented kettle"),
        ("refund-bot", "refund", "Refuse the refund for a used blender"),
        ("ship-bot", "shipping", "Ship the order by express courier"),
        ("refund-bot", "escalation", "Escalate the angry customer to a human"),
    ]):
        clock.tick(minutes=1)
        made.append(m.log_decision(agent, text, reasoning=f"reason {i}", decision_type=kind,
                                   session_id="s1" if i < 2 else "s2", scope=SCOPE))
    clock.tick(minutes=1)
    call = m.log_tool_call("ship-bot", "track_parcel", {"parcel": "P-9"}, {"status": "delivered"}, session_id="s2",
                           scope=SCOPE)
    assert (call.decision_type, call.text, call.context, call.reasoning) == (
        "tool_call", 'track_parcel({"parcel": "P-9"})', '{"status": "delivered"}', "called track_parcel")
    with pytest.raises(InvalidInputError) as info:
        m.log_tool_call("ship-bot", "track_parcel", ["P-9"], scope=SCOPE)
    assert info.value.field == "args"
    assert [d.id for d in m.decisions("refund-bot", scope=SCOPE)] == [made[3].id, made[1].id, made[0].id]
    assert [d.id for d in m.decisions("refund-bot", session_id="s1", scope=SCOPE, limit=1)] == [made[1].id]
    assert [d.id for d in m.decisions(scope=SCOPE, limit=2)] == [call.id, made[3].id]
    assert m.decisions("refund-bot", scope="elsewhere") == []
    with pytest.raises(InvalidInputError) as info:
        m.decisions("refund-bot", scope=SCOPE, limit=0)
    assert info.value.field == "limit"
    found = m.search_decisions("refund for the kettle", scope=SCOPE)
    assert found[0].id == made[0].id
    assert [d.id for d in m.search_decisions("courier", agent="ship-bot", decision_type="shipping", scope=SCOPE)] == [
        made[2].id]
    m.record_decision_outcome(made[0].id, "customer happy", quality="good")
    m.record_decision_outcome(made[1].id, "chargeback lost", quality="bad")
    m.record_decision_outcome(made[2].id, "arrived late", quality="bad")
    by_type = {q.key: q for q in m.decision_quality(scope=SCOPE)}
    assert set(by_type) == {"refund", "shipping", "escalation", "tool_call"}
    assert (by_type["refund"].decisions, by_type["refund"].good, by_type["refund"].bad, by_type["refund"].bad_share) == (
        2, 1, 1, 0.5)
    assert by_type["shipping"].bad_share == 1.0 and by_type["escalation"].bad_share is None
    by_agent = {q.key: q for q in m.decision_quality(scope=SCOPE, by="agent")}
    assert (by_agent["ship-bot"].decisions, by_agent["ship-bot"].with_outcome, by_agent["ship-bot"].bad) == (2, 1, 1)
    with pytest.raises(InvalidInputError) as info:
        m.decision_quality(scope=SCOPE, by="colour")
    assert info.value.field == "by"
    block = m.context("kettle refund", scope=SCOPE, sections=["decisions"])
    assert block.startswith("## Decisions\n") and "Refund the dented kettle -> good: customer happy" in block
