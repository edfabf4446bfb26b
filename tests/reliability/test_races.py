"""Concurrent idempotent writes converge: the loser of a uniqueness race retries and returns
the winner's record (issue 23.2). Invariants counted by direct Cypher."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.integration

THREADS = 8
NAMES = [f"Entity {i:02d}" for i in range(40)]


def run_all(calls):
    """Run every call on 8 threads; return (results, errors)."""
    results, errors = [], []

    def guarded(call):
        try:
            return call(), None
        except Exception as exc:  # counted, not raised: the test reports them all
            return None, exc

    with ThreadPoolExecutor(THREADS) as pool:
        for result, error in pool.map(guarded, calls):
            (errors if error is not None else results).append(error if error is not None else result)
    return results, errors


def test_eight_threads_upserting_the_same_40_names_make_40_entities(memory, driver):
    calls = [lambda n=name: memory.upsert_entity(n, type="thing", scope="race") for _ in range(THREADS) for name in NAMES]
    results, errors = run_all(calls)
    assert errors == [], [repr(e) for e in errors[:3]]
    assert len({e.id for e in results}) == 40
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity {tenant: $t, scope: 'race'}) RETURN count(e) AS n, count(DISTINCT e.nameKey) AS keys",
        {"t": memory.tenant})
    assert (records[0]["n"], records[0]["keys"]) == (40, 40)


def test_eight_threads_writing_the_same_memory_id_make_one_record(memory, driver):
    calls = [lambda i=i: memory.remember("Ada likes tea", scope="race", id=f"same-id-{i % 20}")
             for i in range(THREADS * 20)]
    results, errors = run_all(calls)
    assert errors == [], [repr(e) for e in errors[:3]]
    assert {f.id for f in results} == {f"same-id-{i}" for i in range(20)}
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {tenant: $t}) RETURN count(m) AS n", {"t": memory.tenant})
    assert records[0]["n"] == 20
    records, _, _ = driver.execute_query(
        "MATCH (s:Scope {tenant: $t, path: 'race'}) RETURN s.memories AS counter", {"t": memory.tenant})
    assert records[0]["counter"] == 20  # the scope's counter equals the count
