"""Property-based fuzzing of the public writes and reads (issue 23): whatever comes in,
only a result or a ``GraphMemError`` comes out, and a failed write changes nothing
(nodes and relationships of the tenant counted by direct Cypher). Bounded: a few dozen
examples per operation, no shrinking past what the budget allows."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import GraphMemError

from .helpers import footprint

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.long]  # make test-reliability

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

# texts: ordinary, hostile (controls, surrogates, RTL overrides, emoji), empty, at and past the limits
# any code point, lone surrogates included (hypothesis leaves them out unless told), and
# ordinary text with one control character or surrogate spliced in
hostile = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=40),
    st.builds(lambda a, bad, b: a + bad + b, st.text(max_size=12),
              st.sampled_from(["\ud800", "\udfff", "\x00", "\x1b[2J", "\x07", "\x9b"]), st.text(max_size=12)),
)
texts = st.one_of(
    st.sampled_from(["Ada codes in C++", "Bob lives in Paris", "", "   ", "東京 is big", "👍", "a\x00b",
                     "esc \x1b[31mred", "lone \ud800", "\u202egnp.exe", "x" * 32_000, "x" * 32_001]),
    hostile,
)
scopes = st.one_of(st.sampled_from(["s", "s/t", "s/t/u", "/s", "s//t", "s/../t", "", ".", "s/ t", "a" * 300]), hostile)
ids = st.one_of(st.none(), st.sampled_from(["id-1", "id-2", "", " ", "x" * 257, "i\nd"]), hostile)
offsets = st.builds(lambda m: timezone(timedelta(minutes=m)), st.integers(-23 * 60 - 59, 23 * 60 + 59))
times = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31), timezones=offsets),
    st.sampled_from([datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59))),  # no UTC form
                     datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-23)))]),
    st.datetimes(),  # naive
    st.sampled_from(["2024-01-01", 0]),
)
floats = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
vectors = st.one_of(
    st.none(),
    st.lists(floats, min_size=256, max_size=256),
    st.builds(lambda x: [x] * 256, st.sampled_from([1e308, 1e200, 1e-200, 1e-320, 0.0, 1.0, -0.5])),
    st.lists(st.floats(-1, 1), min_size=0, max_size=300),
    st.just("not a vector"),
)
tag_lists = st.one_of(st.lists(st.one_of(hostile, st.just("x" * 200)), max_size=5), st.just("tag"),
                      st.just([f"t{i}" for i in range(70)]), st.none())
predicates = st.one_of(st.none(), st.sampled_from(["lives_in", "Lives In", "!!!", "p" * 200]), hostile)
numbers = st.one_of(st.none(), st.floats(allow_nan=True), st.integers(-5, 5), st.just(True), st.just("0.5"))


def survives(memory, driver, call, *args, **kwargs) -> bool:
    """Run one write; True if it landed. A failure must be a GraphMemError that wrote nothing."""
    before = footprint(driver, memory.tenant)
    try:
        call(*args, **kwargs)
        return True
    except GraphMemError:
        assert footprint(driver, memory.tenant) == before, f"a failed {call.__name__} changed the graph"
        return False


@FUZZ
@given(text=texts, scope=scopes, id=ids, subject=st.one_of(st.none(), st.just("ada"), hostile), predicate=predicates,
       object=st.one_of(st.none(), st.just("Paris"), st.just("o" * 5000), hostile, st.just(7)),
       valid_from=times, valid_to=times, embedding=vectors, tags=tag_lists, importance=numbers)
def test_remember(memory, driver, **kwargs):
    survives(memory, driver, memory.remember, **kwargs)


@FUZZ
@given(items=st.lists(st.fixed_dictionaries({"text": texts, "scope": scopes},
                                            optional={"id": ids, "valid_from": times, "embedding": vectors,
                                                      "tags": tag_lists, "bogus": st.just(1)}),
                      max_size=6))
def test_remember_many(memory, driver, items):
    survives(memory, driver, memory.remember_many, items)


@FUZZ
@given(name=texts, type=st.one_of(st.just("person"), hostile), scope=scopes, aliases=tag_lists,
       properties=st.one_of(st.none(), st.dictionaries(hostile, st.one_of(hostile, floats, st.integers()), max_size=3),
                            st.just({"blob": "x" * 100_000}), st.just(["not", "a", "mapping"])))
def test_upsert_entity(memory, driver, **kwargs):
    survives(memory, driver, memory.upsert_entity, **kwargs)


@FUZZ
@given(content=texts, scope=scopes, role=st.one_of(st.sampled_from(["user", "assistant", "tool", "x"]), hostile),
       occurred_at=times, id=ids, session_id=ids)
def test_add_episode(memory, driver, **kwargs):
    survives(memory, driver, memory.add_episode, **kwargs)


@FUZZ
@given(scope=scopes, id=ids, text=st.one_of(st.none(), texts), subject=st.one_of(st.none(), hostile),
       predicate=predicates)
def test_forget(memory, driver, **kwargs):
    survives(memory, driver, memory.forget, **kwargs)


@FUZZ
@given(query=texts, scope=scopes, k=st.one_of(st.integers(-2, 2000), st.just(2.5)), as_of=times, valid_at=times,
       kinds=st.one_of(st.none(), st.lists(st.sampled_from(["fact", "episode", "entity", "nope"]), max_size=3)),
       purpose=st.sampled_from(["inform", "act", "x"]))
def test_recall_and_context(memory, query, scope, k, as_of, valid_at, kinds, purpose):
    memory.remember("Bob lives in Paris", scope="s")
    for call in (lambda: memory.recall(query, scope=scope, k=k, as_of=as_of, valid_at=valid_at, kinds=kinds, purpose=purpose),
                 lambda: memory.context(query, scope=scope, as_of=as_of, valid_at=valid_at, purpose=purpose)):
        try:
            call()
        except GraphMemError:
            pass


@FUZZ
@given(id=ids, subject=st.one_of(st.just("ada"), hostile), predicate=predicates, scope=scopes, as_of=times)
def test_get_facts_history_evidence(memory, id, subject, predicate, scope, as_of):
    for call in (lambda: memory.get(id), lambda: memory.facts(scope=scope, subject=subject, predicate=predicate, as_of=as_of),
                 lambda: memory.history(subject=subject, predicate=predicate, scope=scope), lambda: memory.evidence(id),
                 lambda: memory.suggest_procedures(subject, scope=scope)):
        try:
            call()
        except GraphMemError:
            pass


def test_the_fuzzers_reach_the_database(memory, driver):
    """A sanity check on the harness: good input lands and is counted."""
    before = footprint(driver, memory.tenant)
    assert survives(memory, driver, memory.remember, "Ada codes in C++", scope="s", tags=["x"])
    assert footprint(driver, memory.tenant)[0] > before[0]
