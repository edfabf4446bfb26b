"""Bitemporal behaviour: valid time (the world) and transaction time (the memory's belief)."""

from __future__ import annotations

import pytest

from graphmem import Memory

from .helpers import Clock, utc

SCOPE = "acme/alice"


@pytest.fixture
def clock():
    return Clock(utc(2024, 1, 1))


@pytest.fixture
def mem(neo4j, schema, embedder, tenant, clock):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m


def city(mem, text, obj, valid_from, **kw):
    return mem.remember(text, scope=SCOPE, subject="alice", predicate="lives_in", object=obj,
                        valid_from=valid_from, **kw)


def test_a_move_closes_valid_time_and_keeps_the_old_fact_believed(mem, clock):
    paris = city(mem, "Alice lives in Paris", "Paris", utc(2020))
    clock.tick(days=1)
    berlin = city(mem, "Alice moved to Berlin", "Berlin", utc(2023, 3))
    old = mem.get(paris.id)
    assert old.valid_to == utc(2023, 3)
    assert old.invalidated_at is None and old.believed
    assert old.superseded_by[0].by == berlin.id and old.superseded_by[0].reason == "changed"
    assert [f.object for f in mem.facts(scope=SCOPE)] == ["Berlin"]
    assert [f.object for f in mem.facts(scope=SCOPE, valid_at=utc(2021))] == ["Paris"]


def test_a_correction_invalidates_in_transaction_time(mem, clock):
    paris = city(mem, "Alice lives in Paris", "Paris", utc(2020))
    t_before = clock.tick(hours=1)
    clock.tick(hours=1)
    fixed = mem.correct(paris.id, "Alice lives in Lyon", object="Lyon", reason="she never lived in Paris")
    old = mem.get(paris.id)
    assert old.invalidated_at == clock.now and old.invalidation_reason == "corrected"
    assert old.valid_to is None  # the world did not change: the record was wrong
    assert old.superseded_by[0].by == fixed.id and old.superseded_by[0].note == "she never lived in Paris"
    assert fixed.provenance.value == "human-correction" and fixed.valid_from == utc(2020)
    assert [f.object for f in mem.facts(scope=SCOPE)] == ["Lyon"]
    assert [f.object for f in mem.facts(scope=SCOPE, as_of=t_before)] == ["Paris"]


# Each timeline: a list of steps (transaction-time offset in days, object, valid_from year,
# kind of step), then probes (as_of offset in days or None, valid_at year, expected objects).
TIMELINES = {
    "simple move": (
        [(0, "Paris", 2020, "say"), (10, "Berlin", 2023, "say")],
        [(None, 2024, ["Berlin"]), (None, 2021, ["Paris"]), (5, 2024, ["Paris"]), (5, 2019, [])],
    ),
    "two moves": (
        [(0, "Paris", 2018, "say"), (10, "Berlin", 2020, "say"), (20, "Rome", 2022, "say")],
        [(None, 2019, ["Paris"]), (None, 2021, ["Berlin"]), (None, 2023, ["Rome"]), (15, 2023, ["Berlin"]), (25, 2021, ["Berlin"])],
    ),
    "learned out of order": (
        [(0, "Berlin", 2022, "say"), (10, "Paris", 2019, "say")],
        [(None, 2020, ["Paris"]), (None, 2023, ["Berlin"]), (5, 2020, []), (15, 2021, ["Paris"])],
    ),
    "correction after a move": (
        [(0, "Paris", 2018, "say"), (10, "Berlin", 2021, "say"), (20, "Munich", None, "correct-last")],
        [(None, 2022, ["Munich"]), (15, 2022, ["Berlin"]), (None, 2019, ["Paris"]), (25, 2019, ["Paris"])],
    ),
    "correction of the first value": (
        [(0, "Paris", 2018, "say"), (10, "Lyon", None, "correct-first"), (20, "Berlin", 2021, "say")],
        [(None, 2019, ["Lyon"]), (5, 2019, ["Paris"]), (15, 2022, ["Lyon"]), (None, 2022, ["Berlin"])],
    ),
    "forgotten": (
        [(0, "Paris", 2018, "say"), (10, None, None, "forget")],
        [(None, 2019, []), (5, 2019, ["Paris"]), (15, 2019, [])],
    ),
    "same value restated": (
        [(0, "Paris", 2018, "say"), (10, "Paris", 2020, "say")],
        [(None, 2019, ["Paris"]), (None, 2021, ["Paris", "Paris"])],
    ),
    "move back": (
        [(0, "Paris", 2018, "say"), (10, "Berlin", 2020, "say"), (20, "Paris", 2022, "say")],
        [(None, 2019, ["Paris"]), (None, 2021, ["Berlin"]), (None, 2023, ["Paris"]), (12, 2023, ["Berlin"])],
    ),
    "bounded validity given up front": (
        [(0, "Paris", 2018, "say-until-2019")],
        [(None, 2018, ["Paris"]), (None, 2020, [])],
    ),
}


@pytest.mark.parametrize("name", sorted(TIMELINES))
def test_timelines(mem, clock, name):
    steps, probes = TIMELINES[name]
    start = clock.now
    written = []
    from datetime import timedelta

    for offset, obj, year, kind in steps:
        clock.now = start + timedelta(days=offset)
        if kind == "say":
            written.append(city(mem, f"Alice lives in {obj}", obj, utc(year)))
        elif kind == "say-until-2019":
            written.append(city(mem, f"Alice lives in {obj}", obj, utc(year), valid_to=utc(2019)))
        elif kind == "correct-last":
            written.append(mem.correct(written[-1].id, f"Alice lives in {obj}", object=obj))
        elif kind == "correct-first":
            written.append(mem.correct(written[0].id, f"Alice lives in {obj}", object=obj))
        elif kind == "forget":
            assert mem.forget(scope=SCOPE, subject="alice", predicate="lives_in") >= 1
    clock.now = start + timedelta(days=30)
    for as_of_days, valid_year, expected in probes:
        as_of = None if as_of_days is None else start + timedelta(days=as_of_days)
        got = [f.object for f in mem.facts(scope=SCOPE, as_of=as_of, valid_at=utc(valid_year, 6))]
        assert got == expected, f"{name}: as_of={as_of_days} valid_at={valid_year}"


def test_history_is_the_supersedes_chain_oldest_first(mem, clock):
    a = city(mem, "Alice lives in Paris", "Paris", utc(2018))
    clock.tick(days=1)
    b = city(mem, "Alice lives in Berlin", "Berlin", utc(2020))
    clock.tick(days=1)
    c = mem.correct(b.id, "Alice lives in Munich", object="Munich")
    history = mem.history(subject="alice", predicate="lives_in", scope=SCOPE)
    assert [f.id for f in history] == [a.id, b.id, c.id]
    assert history[0].valid_to == utc(2020) and history[0].superseded_by[0].reason == "changed"
    assert history[1].invalidation_reason == "corrected" and history[1].superseded_by[0].by == c.id
    assert all(f.created_at.tzinfo is not None for f in history)


def test_facts_as_of_shows_records_as_they_were_believed_then(mem, clock):
    paris = city(mem, "Alice lives in Paris", "Paris", utc(2020))
    before = clock.tick(days=1)
    clock.tick(days=1)
    city(mem, "Alice lives in Berlin", "Berlin", utc(2023))
    then = mem.facts(scope=SCOPE, as_of=before, valid_at=utc(2020, 6))
    assert [(f.id, f.valid_to) for f in then] == [(paris.id, None)]
    clock.tick(days=1)
    mem.forget(scope=SCOPE, id=paris.id)
    kept = mem.facts(scope=SCOPE, as_of=before, valid_at=utc(2020, 6), include_invalidated=True)
    assert [(f.id, f.invalidated_at) for f in kept] == [(paris.id, None)]
    now = mem.facts(scope=SCOPE, valid_at=utc(2020, 6), include_invalidated=True)
    assert now[0].invalidation_reason == "forgotten" and now[0].valid_to == utc(2023)
