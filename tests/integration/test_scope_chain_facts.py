"""Single-valued facts across a scope chain (issue 49, item 9): a write supersedes only facts
of its own scope, and a view of several scopes shows one current value per subject and
predicate, the one a single scope would have kept (docs/design-notes.md#scope-chain-facts).
The chain is org -> org/team -> org/team/x, with org/team/y a sibling of x."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem import Memory
from tests.fakes import extraction, scripted
from tests.integration.helpers import Clock, utc

TEAM, X, Y = "org/team", "org/team/x", "org/team/y"
T1, T2 = utc(2026, 3, 1, 9), utc(2026, 3, 10, 9)  # when the first and the second value are learned
BETWEEN = utc(2026, 3, 5)
LATER = utc(2026, 3, 20)


@pytest.fixture
def clock():
    return Clock(T1)


@pytest.fixture
def mem(neo4j, schema, embedder, tenant, clock):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m


def _item(city: str, scope: str, **extra):
    return {"text": f"Walt lives in {city}", "scope": scope, "subject": "walt", "predicate": "lives_in",
            "object": city, **extra}


def _write(mem: Memory, how: str, city: str, scope: str, **extra):
    if how == "remember":
        return mem.remember(**_item(city, scope, **extra))
    return mem.remember_many([_item(city, scope, **extra), {"text": "Walt likes tea", "scope": scope}])[0]


def _cities(mem: Memory, scope: str, **kw) -> list[str]:
    return [f.object for f in mem.facts(scope=scope, subject="walt", predicate="lives_in", **kw)]


def _stored(driver, tenant: str, fact_id: str) -> dict:
    """The stored times of a fact and how many records supersede it, read from the node."""
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {tenant: $t, id: $id}) RETURN f.validFrom AS validFrom, f.validTo AS validTo, "
        "f.closedAt AS closedAt, f.invalidatedAt AS invalidatedAt, f.invalidationReason AS reason, "
        "COUNT { (f)<-[:SUPERSEDES]-() } AS supersededBy", {"t": tenant, "id": fact_id})
    return dict(records[0])


def _untouched(driver, tenant: str, fact) -> None:
    stored = _stored(driver, tenant, fact.id)
    assert stored["validFrom"] == fact.valid_from, fact.text  # not backdated
    assert (stored["validTo"], stored["closedAt"], stored["invalidatedAt"], stored["reason"],
            stored["supersededBy"]) == (None, None, None, None, 0), fact.text


def _recalled(mem: Memory, scope: str) -> list[str]:
    return [r.record.object for r in mem.recall("where does Walt live?", scope=scope, kinds=["fact"], k=5)
            if r.record.predicate == "lives_in"]


@pytest.mark.parametrize("how", ["remember", "remember_many"])
def test_a_childs_fact_then_a_newer_parent_fact(mem, clock, driver, how):
    """Rome in x, later Oslo in the team: x sees Oslo (the newer value), so do the team and
    y; Rome is not closed, only outranked in the views that see Oslo."""
    rome = _write(mem, how, "Rome", X)
    clock.now = T2
    oslo = _write(mem, how, "Oslo", TEAM)
    clock.now = LATER
    assert _cities(mem, X) == ["Oslo"]
    assert _cities(mem, TEAM) == ["Oslo"]
    assert _cities(mem, Y) == ["Oslo"]
    _untouched(driver, mem.tenant, rome)
    _untouched(driver, mem.tenant, oslo)
    assert _recalled(mem, X) == ["Oslo"]
    block = mem.context("where does Walt live?", scope=X, sections=["facts"])
    assert "Walt lives in Oslo" in block and "Walt lives in Rome" not in block
    assert sorted(f.object for f in mem.history(subject="walt", predicate="lives_in", scope=X)) == ["Oslo", "Rome"]
    # before Oslo was learned, or before it held, x's answer was Rome
    assert _cities(mem, X, as_of=BETWEEN) == ["Rome"]
    assert _cities(mem, X, valid_at=BETWEEN) == ["Rome"]
    assert _recalled(mem, Y) == ["Oslo"]
    # include_invalidated shows every stored value the view can see
    assert sorted(f.object for f in mem.facts(scope=X, subject="walt", include_invalidated=True)) == ["Oslo", "Rome"]


@pytest.mark.parametrize("how", ["remember", "remember_many"])
def test_a_parent_fact_then_a_newer_childs_fact(mem, clock, driver, how):
    """Oslo in the team, later Rome in x: x sees Rome, the team and y keep Oslo, and the
    team's fact is never closed by a write in its child."""
    oslo = _write(mem, how, "Oslo", TEAM)
    clock.now = T2
    rome = _write(mem, how, "Rome", X)
    clock.now = LATER
    assert _cities(mem, X) == ["Rome"]
    assert _cities(mem, TEAM) == ["Oslo"]
    assert _cities(mem, Y) == ["Oslo"]
    _untouched(driver, mem.tenant, oslo)
    _untouched(driver, mem.tenant, rome)
    assert _recalled(mem, X) == ["Rome"]
    assert _recalled(mem, Y) == ["Oslo"]
    block = mem.context("where does Walt live?", scope=X, sections=["facts"])
    assert "Walt lives in Rome" in block and "Walt lives in Oslo" not in block
    assert sorted(f.object for f in mem.history(subject="walt", predicate="lives_in", scope=X)) == ["Oslo", "Rome"]
    assert _cities(mem, X, as_of=BETWEEN) == ["Oslo"]
    assert _cities(mem, X, valid_at=BETWEEN) == ["Oslo"]


def test_recall_in_the_past_resolves_the_view_at_that_time(mem, clock):
    mem.remember(**_item("Oslo", TEAM))
    clock.now = T2
    mem.remember(**_item("Rome", X))
    clock.now = LATER
    assert _recalled(mem, X) == ["Rome"]
    then = [r.record.object for r in mem.recall("where does Walt live?", scope=X, kinds=["fact"], as_of=BETWEEN)]
    assert then == ["Oslo"]
    then = [r.record.object for r in mem.recall("where does Walt live?", scope=X, kinds=["fact"], valid_at=BETWEEN)]
    assert then == ["Oslo"]


def test_same_scope_supersession_is_unchanged(mem, clock, driver):
    rome = mem.remember(**_item("Rome", X))
    clock.now = T2
    oslo = mem.remember(**_item("Oslo", X))
    clock.now = LATER
    stored = _stored(driver, mem.tenant, rome.id)
    assert (stored["validTo"], stored["closedAt"], stored["invalidatedAt"], stored["supersededBy"]) == (T2, T2, None, 1)
    assert [(s.by, s.reason) for s in mem.get(rome.id).superseded_by] == [(oslo.id, "changed")]
    assert _cities(mem, X) == ["Oslo"]
    assert _cities(mem, TEAM) == []
    assert _cities(mem, X, valid_at=BETWEEN) == ["Rome"]


def test_a_descendants_fact_is_never_closed_by_an_ancestors_write(mem, clock, driver):
    """Both directions: the team's write leaves x's fact alone, x's write the team's."""
    rome = mem.remember(**_item("Rome", X, valid_from=utc(2020)))
    clock.now = T2
    oslo = mem.remember(**_item("Oslo", TEAM, valid_from=utc(2019)))  # an older start, learned later
    clock.now = LATER
    _untouched(driver, mem.tenant, rome)
    _untouched(driver, mem.tenant, oslo)
    # x: Rome started later, so it is the current value, and Oslo held before it
    assert _cities(mem, X) == ["Rome"]
    assert _cities(mem, X, valid_at=utc(2019, 6)) == ["Oslo"]
    assert _cities(mem, TEAM) == ["Oslo"]


def test_the_same_start_in_two_scopes_goes_to_the_later_statement(mem, clock, driver):
    first = mem.remember(**_item("Rome", TEAM, valid_from=utc(2024)))
    clock.now = T2
    second = mem.remember(**_item("Oslo", X, valid_from=utc(2024)))
    clock.now = LATER
    assert _cities(mem, X) == ["Oslo"] and _cities(mem, TEAM) == ["Rome"] and _cities(mem, Y) == ["Rome"]
    _untouched(driver, mem.tenant, first)
    _untouched(driver, mem.tenant, second)


def test_a_machine_made_fact_never_outranks_a_persons_in_a_view(mem, clock):
    """As in one scope (docs/design-notes.md#protected-records): both stay current, and trust
    ranks them."""
    mem.remember(**_item("Oslo", TEAM, provenance="user"))
    clock.now = T2
    mem.remember(**_item("Rome", X, provenance="extraction"))
    clock.now = LATER
    assert sorted(_cities(mem, X)) == ["Oslo", "Rome"]
    # a person's later statement does outrank an extraction in another scope
    clock.now = LATER + timedelta(days=1)
    mem.remember(**_item("Kyiv", "org", provenance="user"))
    clock.now = LATER + timedelta(days=2)
    assert _cities(mem, X) == ["Kyiv"]
    assert _cities(mem, Y) == ["Kyiv"]


def test_the_graph_of_a_view_leaves_the_outranked_fact_out(mem, clock):
    rome = mem.remember(**_item("Rome", X))
    clock.now = T2
    oslo = mem.remember(**_item("Oslo", TEAM))
    clock.now = LATER
    nodes = mem.graph(scope=X, kinds=["fact"]).nodes
    assert oslo.id in nodes and rome.id not in nodes
    assert rome.id in mem.graph(scope=X, kinds=["fact"], history=True).nodes


# every ordering of two values of test_time_orderings.py, the first stored in one scope and the
# second in another of the chain: the view of the child answers "now" as one scope would have,
# and the past from each fact's own interval (docs/time-model.md#across-a-scope-chain)
NOV_1, NOV_20 = utc(2026, 11, 1, 9), utc(2026, 11, 20, 9)
OCT_1, DEC_1 = utc(2026, 10, 1), utc(2026, 12, 1)
ORDERINGS = [
    # Austin's start is not made unknown across scopes, so September has no value (one scope: Austin)
    ("undated, then a dated move before it", ("Austin", None, NOV_1), ("Denver", OCT_1, NOV_20), "Denver",
     {utc(2026, 9, 15): None, utc(2026, 10, 15): "Denver", utc(2026, 11, 10): "Denver"}),
    ("undated, then a dated move on the same day", ("Austin", None, NOV_1), ("Denver", utc(2026, 11, 1), NOV_20),
     "Denver", {utc(2026, 11, 10): "Denver"}),
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


@pytest.mark.parametrize("scopes", [(TEAM, X), (X, TEAM)], ids=["parent-first", "child-first"])
@pytest.mark.parametrize("name, first, second, now_city, past", ORDERINGS, ids=[c[0] for c in ORDERINGS])
def test_every_ordering_across_the_chain(neo4j, schema, embedder, tenant, driver, scopes, name, first, second,
                                         now_city, past):
    clock = Clock(NOV_1)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        written = []
        for (city, start, learned), scope in zip((first, second), scopes):
            clock.now = learned
            written.append(m.remember(text=f"Carol lives in {city}", scope=scope, subject="carol",
                                      predicate="lives_in", object=city, valid_from=start, provenance="user"))
        clock.now = utc(2026, 11, 25, 12)
        for fact in written:
            _untouched(driver, tenant, fact)
        assert [f.object for f in m.facts(scope=X, subject="carol")] == [now_city]
        for instant, city in past.items():
            expected = [] if city is None else [city]
            assert [f.object for f in m.facts(scope=X, subject="carol", valid_at=instant)] == expected, instant
        # the sibling y sees the team's value alone, when it has started by now
        city, start, _ = first if scopes[0] == TEAM else second
        started = start is None or start <= clock.now
        assert [f.object for f in m.facts(scope=Y, subject="carol")] == ([city] if started else [])
        assert m.recall("where does Carol live?", scope=X, k=1, kinds=["fact"])[0].record.object == now_city


def _said(city: str):
    return extraction(
        entities=[{"name": "Walt Berg", "type": "person", "aliases": []}],
        facts=[{"subject": "Walt Berg", "predicate": "lives_in", "object": city, "object_is_entity": False,
                "text": f"Walt Berg lives in {city}", "valid_from": None, "corrects": False, "messages": [1],
                "single_valued": True}])


def _ingest(mem: Memory, city: str, scope: str):
    return mem.ingest([{"role": "user", "content": f"Walt lives in {city} now"}], scope=scope, llm=scripted(_said(city)))


def _ingested_cities(mem: Memory, scope: str) -> list[str]:
    return [f.object for f in mem.facts(scope=scope, subject="Walt Berg", predicate="lives_in")]


@pytest.mark.parametrize("order", ["child-first", "parent-first"])
def test_ingest_follows_the_same_rule(mem, clock, driver, order):
    first, second = ((X, "Rome"), (TEAM, "Oslo")) if order == "child-first" else ((TEAM, "Oslo"), (X, "Rome"))
    one = _ingest(mem, first[1], first[0])
    clock.now = T2
    two = _ingest(mem, second[1], second[0])
    clock.now = LATER
    assert len(one.facts) == 1 and len(two.facts) == 1
    assert two.superseded == () and two.invalidated == ()
    _untouched(driver, mem.tenant, one.facts[0])
    _untouched(driver, mem.tenant, two.facts[0])
    newer = second[1]
    assert _ingested_cities(mem, X) == [newer]
    assert _ingested_cities(mem, TEAM) == ["Oslo"]
    assert _ingested_cities(mem, Y) == ["Oslo"]
    hits = mem.recall("where does Walt Berg live?", scope=X, kinds=["fact"], k=5)
    assert [h.record.object for h in hits if h.record.predicate == "lives_in"] == [newer]


def test_ingest_restating_an_outranked_value_writes_it_again(mem, clock):
    """Oslo in the team, then Rome in x: x says Rome. When x hears Oslo again, the team's
    Oslo is no current value of x's view, so the statement is no restatement: it is written
    in x and supersedes x's Rome there."""
    _ingest(mem, "Oslo", TEAM)
    clock.now = T2
    rome = _ingest(mem, "Rome", X).facts[0]
    clock.now = LATER
    again = _ingest(mem, "Oslo", X)
    assert len(again.facts) == 1 and again.facts[0].scope == X
    assert rome.id in again.superseded
    clock.now = LATER + timedelta(days=1)
    assert _ingested_cities(mem, X) == ["Oslo"] and _ingested_cities(mem, Y) == ["Oslo"]


def test_a_restatement_of_the_views_value_is_not_written_again(mem, clock):
    oslo = _ingest(mem, "Oslo", TEAM).facts[0]
    clock.now = T2
    again = _ingest(mem, "Oslo", X)
    assert again.facts == () and [s.reason for s in again.skipped if s.kind == "fact"] == [f"restates {oslo.id}"]


def test_corrections_change_nothing_outside_their_scope(neo4j, schema, embedder, tenant, driver):
    """correct() and record_correction() invalidate the machine-made claims they contradict in
    their own scope only: an ancestor's stays believed for every scope that sees it."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                contradiction_threshold=0.6) as m:
        shared = m.remember("Alice is allergic to peanuts", scope=TEAM, provenance="extraction")
        own = m.remember("Alice is allergic to peanuts and cashews", scope=X, provenance="extraction")
        wrong = m.remember("Alice is allergic to peanuts", scope=X, provenance="extraction")
        m.correct(wrong.id, "Alice is allergic to shellfish, not peanuts")
        assert m.get(own.id).invalidation_reason == "contradicted"
        assert m.get(shared.id).believed and m.get(shared.id).superseded_by == ()
        parent_claim = m.remember("Shipping to France costs 9 EUR", scope=TEAM, provenance="extraction")
        child_claim = m.remember("Shipping to France costs 9 EUR", scope=X, provenance="extraction")
        m.record_correction("bot", "9 EUR", "Shipping to France costs 9 EUR and more", scope=X)
        assert m.get(child_claim.id).invalidation_reason == "contradicted"
        assert m.get(parent_claim.id).believed and m.get(parent_claim.id).superseded_by == ()
