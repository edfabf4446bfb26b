"""Every ordering of two values of one single-valued predicate, dated or only observed,
learned in or out of order, through remember, remember_many and ingest: after both, the
right value is current and each value is true at the right past instants."""

from __future__ import annotations

from datetime import timedelta

import pytest
from langchain_core.messages import AIMessage

from graphmem import Memory
from tests.fakes import scripted, tool_answer
from tests.integration.helpers import Clock, utc

NOV_1, NOV_20 = utc(2026, 11, 1, 9), utc(2026, 11, 20, 9)
OCT_1, DEC_1 = utc(2026, 10, 1), utc(2026, 12, 1)

# (name, first (city, stated start or None, learned at), second (...), expected now,
#  {instant: expected city or None})
CASES = [
    ("undated, then a dated move before it", ("Austin", None, NOV_1), ("Denver", OCT_1, NOV_20), "Denver",
     {utc(2026, 9, 15): "Austin", utc(2026, 10, 15): "Denver", utc(2026, 11, 10): "Denver"}),
    ("undated, then a dated move on the same day", ("Austin", None, NOV_1), ("Denver", utc(2026, 11, 1), NOV_20),
     "Denver", {utc(2026, 10, 15): "Austin", utc(2026, 11, 10): "Denver"}),
    ("undated, then a dated move after it", ("Austin", None, NOV_1), ("Denver", DEC_1, NOV_20), "Austin",
     {utc(2026, 11, 10): "Austin", utc(2026, 12, 10): "Denver"}),
    ("undated, then undated", ("Austin", None, NOV_1), ("Denver", None, NOV_20), "Denver",
     {utc(2026, 11, 10): "Austin", utc(2026, 11, 25): "Denver"}),
    ("dated, then a later dated move", ("Austin", OCT_1, NOV_1), ("Denver", utc(2026, 11, 5), NOV_20), "Denver",
     {utc(2026, 10, 15): "Austin", utc(2026, 11, 10): "Denver"}),
    ("dated, learned after a later dated move (out of order)", ("Denver", utc(2026, 11, 5), NOV_1),
     ("Austin", OCT_1, NOV_20), "Denver", {utc(2026, 10, 15): "Austin", utc(2026, 11, 10): "Denver"}),
    ("dated, then undated", ("Austin", OCT_1, NOV_1), ("Denver", None, NOV_20), "Denver",
     {utc(2026, 10, 15): "Austin", utc(2026, 11, 25): "Denver"}),
    ("same stated day twice: the later statement corrects", ("Austin", OCT_1, NOV_1), ("Denver", OCT_1, NOV_20),
     "Denver", {utc(2026, 10, 15): "Denver"}),
]


def _remember(memory: Memory, clock: Clock, city: str, start, learned, *, batch: bool) -> None:
    clock.now = learned
    item = {"text": f"Carol lives in {city}", "scope": "crm/carol", "subject": "carol", "predicate": "lives_in",
            "object": city, "valid_from": start, "provenance": "user"}
    if batch:
        memory.remember_many([item])
    else:
        memory.remember(**item)


def _city(memory: Memory, **when) -> str | None:
    found = memory.facts(scope="crm/carol", subject="carol", predicate="lives_in", **when)
    assert len(found) <= 1, [f.text for f in found]
    return found[0].object if found else None


@pytest.mark.parametrize("batch", [False, True], ids=["remember", "remember_many"])
@pytest.mark.parametrize("name, first, second, now_city, past", CASES, ids=[c[0] for c in CASES])
def test_every_ordering_of_two_values(neo4j, schema, embedder, tenant, batch, name, first, second, now_city, past):
    clock = Clock(NOV_1)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        _remember(memory, clock, *first, batch=batch)
        _remember(memory, clock, *second, batch=batch)
        clock.now = utc(2026, 11, 25, 12)
        assert _city(memory) == now_city
        for instant, city in past.items():
            assert _city(memory, valid_at=instant) == city, instant
        assert memory.recall("where does Carol live?", scope="crm/carol", k=1)[0].record.object == now_city


def test_an_unknown_start_is_recorded_with_the_observation_kept(neo4j, schema, embedder, tenant):
    clock = Clock(NOV_1)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        austin = memory.remember("I live in Austin", scope="crm/carol", subject="carol", predicate="lives_in",
                                 object="Austin")
        assert austin.valid_from == NOV_1 and austin.valid_from_stated is False
        clock.now = NOV_20
        denver = memory.remember("I moved to Denver in October", scope="crm/carol", subject="carol",
                                 predicate="lives_in", object="Denver", valid_from=OCT_1)
        assert denver.valid_from_stated is True and denver.valid_to is None
        before = {f.object: f for f in memory.history(subject="carol", scope="crm/carol")}
        assert [f.object for f in memory.history(subject="carol", scope="crm/carol")] == ["Austin", "Denver"]
        old = before["Austin"]
        assert (old.valid_from, old.valid_to, old.observed_from) == (None, OCT_1, NOV_1)
        assert old.invalidated_at is None  # true history, still believed
        assert [(s.by, s.reason) for s in old.superseded_by] == [(denver.id, "changed")]
        # transaction time: before Denver was learned, the memory believed Austin was current
        assert _city(memory, as_of=NOV_20 - timedelta(days=1)) == "Austin"


def _extraction(city: str, when: str | None) -> AIMessage:
    return tool_answer("Extraction", {
        "entities": [{"name": "Carol Diaz", "type": "person", "aliases": []}],
        "facts": [{"subject": "Carol Diaz", "predicate": "lives_in", "object": city, "object_is_entity": False,
                   "text": f"Carol Diaz lives in {city}", "valid_from": when, "corrects": False, "messages": [1],
                   "single_valued": True}],
    })


def test_ingest_of_an_undated_statement_then_a_dated_move(neo4j, schema, embedder, tenant):
    """The issue's chat: 1 Nov "I live in Austin", 20 Nov "I moved to Denver in October"."""
    clock = Clock(NOV_1)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        first = memory.ingest([{"role": "user", "content": "I live in Austin", "occurred_at": NOV_1}],
                              scope="crm/carol", llm=scripted(_extraction("Austin", None)))
        assert first.facts[0].valid_from_stated is False
        clock.now = NOV_20
        second = memory.ingest([{"role": "user", "content": "I moved to Denver in October", "occurred_at": NOV_20}],
                               scope="crm/carol", llm=scripted(_extraction("Denver", "in October")))
        denver = second.facts[0]
        assert denver.valid_from == OCT_1 and denver.valid_from_stated is True
        assert first.facts[0].id in second.superseded
        current = memory.facts(scope="crm/carol", predicate="lives_in")
        assert [f.object for f in current] == ["Denver"]
        assert memory.recall("where does Carol live?", scope="crm/carol", k=1, kinds=["fact"])[0].record.object == "Denver"
