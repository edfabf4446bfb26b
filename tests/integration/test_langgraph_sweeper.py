"""GraphMemStore's TTL sweep (docs/integrations.md#langgraph-store): ``sweep_ttl`` deletes the
expired items for good, each with its history, and leaves every other item and version
alone; ``start_ttl_sweeper``/``stop_ttl_sweeper`` run it in a thread (over a Memory) or a
task (over an AsyncMemory), as LangGraph's Postgres and SQLite stores do. Against a real Neo4j."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import pytest

from graphmem import AsyncMemory, InvalidInputError, Memory
from graphmem.integrations.langgraph import GraphMemStore

from .helpers import Clock, utc

COUNTS = """
MATCH (s:Scope {tenant: $tenant})
OPTIONAL MATCH (m:Fact {tenant: $tenant}) WHERE m.scope = s.path
RETURN s.path AS scope, count(m) AS facts, s.memories AS counted ORDER BY scope
"""


def _wait_for(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_a_sweep_deletes_expired_items_with_their_history_and_nothing_else(neo4j, schema, embedder, tenant, driver):
    clock = Clock(utc(2025, 1, 1))
    events = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock,
                on_event=events.append) as memory:
        store = GraphMemStore(memory, ttl={"default_ttl": 10})
        store.put(("s",), "gone", {"v": 1})                  # two versions, the latest with the default TTL
        clock.tick(minutes=1)
        store.put(("s",), "gone", {"v": 2})
        store.put(("s", "deep"), "gone too", {"v": 1}, ttl=1)
        store.put(("s",), "kept", {"v": 1}, ttl=None)
        store.put(("s",), "live", {"v": 1}, ttl=1)          # a TTL version that a later put closed ...
        clock.tick(seconds=30)
        store.put(("s",), "live", {"v": 2}, ttl=60)         # ... while the item lives on
        store.put(("s",), "deleted", {"v": 1}, ttl=1)
        store.delete(("s",), "deleted")                     # forgotten, not expired
        store.put(("s",), "fresh", {"v": 1})                # default TTL, not yet run out
        clock.tick(minutes=9, seconds=45)                   # 11 min 15 s after the first put
        assert store.get(("s",), "fresh") is not None       # a refreshing read: valid until 10 minutes on
        assert store.get(("s",), "gone") is None
        assert store.history(("s",), "gone")[-1]["value"] == {"v": 2}  # expired, but kept until a sweep
        events.clear()

        assert store.sweep_ttl() == 2
        assert [(e.kind, e.reason, e.detail) for e in events] == [("erased", "expired", {"total": 3, "fact": 3})]
        assert store.history(("s",), "gone") == [] and store.history(("s", "deep"), "gone too") == []
        assert [v["value"] for v in store.history(("s",), "live")] == [{"v": 1}, {"v": 2}]
        assert [v["reason"] for v in store.history(("s",), "deleted")] == ["forgotten"]
        assert {i.key for i in store.search(("s",))} == {"kept", "live", "fresh"}
        rows, _, _ = driver.execute_query(COUNTS, tenant=tenant)
        # left: kept, live (two versions), deleted, fresh; the scopes' counters follow
        assert [(r["scope"], r["facts"], r["counted"]) for r in rows] == [("s", 5, 5), ("s/deep", 0, 0)]
        events.clear()
        assert store.sweep_ttl() == 0 and events == []  # nothing left: no event either
        store.put(("s",), "gone", {"v": 3})                 # a put after the sweep starts a new item
        assert [v["value"] for v in store.history(("s",), "gone")] == [{"v": 3}]


def test_a_store_sweeps_only_under_its_root(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 1, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        rooted, everything = GraphMemStore(memory, scope="app"), GraphMemStore(memory)
        rooted.put(("u",), "k", {"v": 1}, ttl=1)
        everything.put(("other",), "k", {"v": 1}, ttl=1)
        everything.put(("apple",), "k", {"v": 1}, ttl=1)      # shares the root's first letters only
        clock.tick(minutes=2)
        assert rooted.sweep_ttl() == 1
        assert rooted.history(("u",), "k") == [] and len(everything.history(("other",), "k")) == 1
        assert everything.sweep_ttl() == 2 and everything.history(("apple",), "k") == []


def test_the_sweeper_thread_runs_until_stopped(memory, monkeypatch, caplog):
    store = GraphMemStore(memory, ttl={"default_ttl": 0.01, "sweep_interval_minutes": 0.01})  # 0.6 s each
    future = store.start_ttl_sweeper()
    assert isinstance(future, concurrent.futures.Future) and store.start_ttl_sweeper() is future
    store.put(("t",), "k", {"v": 1})
    assert _wait_for(lambda: store.history(("t",), "k") == [])  # expired, then swept
    assert not future.done()
    assert store.stop_ttl_sweeper(timeout=30) is True and future.result(timeout=0) is None
    assert store.stop_ttl_sweeper() is True  # none runs
    store.put(("t",), "after", {"v": 1})
    time.sleep(1.5)  # expired, and nothing sweeps it
    assert store.get(("t",), "after") is None and len(store.history(("t",), "after")) == 1

    calls = []
    real = store._items.sweep

    def flaky(prefix):
        calls.append(prefix)
        if len(calls) == 1:
            raise RuntimeError("the database blinked")
        return real(prefix)

    monkeypatch.setattr(store._items, "sweep", flaky)
    again = store.start_ttl_sweeper(0.005)
    assert again is not future
    assert _wait_for(lambda: store.history(("t",), "after") == [])  # the sweep after the failure did it
    assert "a TTL sweep failed" in caplog.text and "the database blinked" in caplog.text
    assert again.cancel() and _wait_for(lambda: store.stop_ttl_sweeper(timeout=0))  # cancelling stops it
    settled = len(calls)
    time.sleep(1.0)
    assert len(calls) == settled


@pytest.mark.parametrize("minutes", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_sweep_interval_is_a_positive_number_of_minutes(memory, minutes):
    store = GraphMemStore(memory)
    with pytest.raises(InvalidInputError) as info:
        store.start_ttl_sweeper(minutes)
    assert info.value.field == "sweep_interval_minutes"
    with pytest.raises(InvalidInputError):
        GraphMemStore(memory, ttl={"sweep_interval_minutes": minutes}).start_ttl_sweeper()
    assert store.stop_ttl_sweeper() is True  # none was started


async def test_over_an_async_memory_the_sweeper_is_a_task(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        store = GraphMemStore(amem, ttl={"default_ttl": 0.01})
        await store.aput(("t",), "k", {"v": 1})
        await asyncio.sleep(1.0)
        assert await store.sweep_ttl() == 1 and await store.ahistory(("t",), "k") == []
        task = await store.start_ttl_sweeper(0.01)
        assert isinstance(task, asyncio.Task) and await store.start_ttl_sweeper() is task
        await store.aput(("t",), "k2", {"v": 1})
        deadline = time.monotonic() + 30
        while await store.ahistory(("t",), "k2") and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert await store.ahistory(("t",), "k2") == [] and not task.done()
        assert await store.stop_ttl_sweeper(timeout=30) is True and task.done() and not task.cancelled()
        assert await store.stop_ttl_sweeper() is True
