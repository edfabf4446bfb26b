"""Concurrent idempotent writes converge: the loser of a uniqueness race retries and returns
the winner's record (issue 23.2). Invariants counted by direct Cypher."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

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


def test_eight_threads_changing_one_single_valued_fact_leave_one_current_value(memory, driver):
    calls = [lambda i=i: memory.remember(f"Ada lives in city {i}", scope="race", subject="ada",
                                         predicate="lives_in", object=f"city {i}", single_valued=True)
             for i in range(THREADS * 15)]
    results, errors = run_all(calls)
    assert errors == [], [repr(e) for e in errors[:3]]
    assert len(memory.facts(scope="race", subject="ada", predicate="lives_in")) == 1
    assert len(memory.history(subject="ada", predicate="lives_in", scope="race")) == THREADS * 15
    records, _, _ = driver.execute_query(
        "MATCH (a:Memory {tenant: $t})-[:SUPERSEDES]->(b:Memory) RETURN a.id AS a, b.id AS b", {"t": memory.tenant})
    edges: dict[str, set[str]] = {}
    for r in records:
        edges.setdefault(r["a"], set()).add(r["b"])
    assert not has_cycle(edges)  # supersession chains have no cycle


def has_cycle(edges: dict[str, set[str]]) -> bool:
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(node: str) -> bool:
        state[node] = 1
        for nxt in edges.get(node, ()):
            if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                return True
        state[node] = 2
        return False

    return any(node not in state and visit(node) for node in list(edges))


def test_forget_racing_writes_in_the_same_scope_forgets_its_target_and_nothing_else(memory):
    memory.remember("Ada likes tea", scope="race")
    calls = [lambda i=i: (memory.forget(scope="race", text="Ada likes tea") if i % 2
                          else memory.remember(f"Ada likes coffee number {i}", scope="race"))
             for i in range(THREADS * 5)]
    results, errors = run_all(calls)
    assert errors == [], [repr(e) for e in errors[:3]]
    texts = sorted(f.text for f in memory.facts(scope="race"))
    assert texts == sorted(f"Ada likes coffee number {i}" for i in range(0, THREADS * 5, 2))
