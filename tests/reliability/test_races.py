"""Concurrent idempotent writes converge: the loser of a uniqueness race retries and returns
the winner's record (issue 23.2). Invariants counted by direct Cypher."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.long]  # make test-reliability

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


def visible_entities(driver, tenant: str, chain: list[str]) -> dict[str, list[str]]:
    """Normalised name -> ids of the believed entities a reader at the end of ``chain`` sees."""
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity {tenant: $t}) WHERE e.scope IN $chain AND e.invalidatedAt IS NULL "
        "RETURN e.nameKey AS key, collect(e.id) AS ids", {"t": tenant, "chain": chain})
    return {r["key"]: r["ids"] for r in records}


def counters_match(driver, tenant: str) -> bool:
    """Every :Scope's memories counter equals the number of memories stored directly in it."""
    records, _, _ = driver.execute_query(
        "MATCH (s:Scope {tenant: $t}) OPTIONAL MATCH (m:Memory {tenant: $t, scope: s.path}) "
        "WITH s, count(m) AS n RETURN collect([s.path, s.memories, n]) AS rows", {"t": tenant})
    rows = records[0]["rows"]
    return bool(rows) and all(counter == n for _, counter, n in rows)


def test_upserts_racing_in_a_scope_and_its_child_leave_one_entity_per_name_and_every_fact(memory, driver):
    """Issue 23.2: with one upsert in `e` and one in `e/c` racing, 36-40 of 40 names ended
    with two entities visible in `e/c`. Each call also files a fact about what it got."""
    def upsert_and_note(name: str, scope: str, i: int) -> str:
        entity = memory.upsert_entity(name, type="thing", scope=scope, properties={scope: i})
        memory.remember(f"{name} was seen by caller {i} in {scope}", scope=scope, subject=entity.id,
                        predicate="seen_by", object=f"caller {i}", single_valued=False)
        return entity.id

    calls = [lambda n=name, s=("e" if i % 2 else "e/c"), i=i: upsert_and_note(n, s, i)
             for name in NAMES for i in range(THREADS)]
    results, errors = run_all(calls)
    assert errors == [], [repr(e) for e in errors[:3]]
    seen = visible_entities(driver, memory.tenant, ["e", "e/c"])
    assert len(seen) == 40 and all(len(ids) == 1 for ids in seen.values()), \
        {k: v for k, v in seen.items() if len(v) > 1}
    assert set(results) == {ids[0] for ids in seen.values()}  # every caller got the survivor
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {tenant: $t, predicate: 'seen_by'}) "
        "OPTIONAL MATCH (f)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE e.invalidatedAt IS NULL "
        "RETURN count(f) AS facts, count(e) AS linked, count(DISTINCT e) AS entities", {"t": memory.tenant})
    assert (records[0]["facts"], records[0]["linked"], records[0]["entities"]) == (320, 320, 40)  # no lost fact
    assert len(memory.facts(scope="e/c", subject=NAMES[7], predicate="seen_by")) == THREADS
    assert counters_match(driver, memory.tenant)


@pytest.mark.parametrize("first,second", [("e/c", "e"), ("e", "e/c")])
def test_a_name_upserted_in_a_scope_and_its_child_in_either_order_is_one_entity(memory, driver, first, second):
    """`e/c` then `e` made a second entity (80 for 40 names); now the child's entity moves
    up to `e` and takes the new aliases and properties: the same end state as `e` then `e/c`."""
    made = {name: memory.upsert_entity(name, type="thing", scope=first, aliases=[f"{name} from {first}"],
                                       properties={"first": first}) for name in NAMES}
    fact = memory.remember(f"{NAMES[0]} is green", scope=first, subject=made[NAMES[0]].id,
                           predicate="colour", object="green")
    again = {name: memory.upsert_entity(name, type="thing", scope=second, aliases=[f"{name} from {second}"],
                                        properties={"second": second}) for name in NAMES}
    assert all(again[name].id == made[name].id for name in NAMES)  # resolved or promoted, never duplicated
    assert {e.scope for e in again.values()} == {"e"}
    entity = again[NAMES[0]]
    assert set(entity.aliases) == {f"{NAMES[0]} from e/c", f"{NAMES[0]} from e"}
    assert entity.properties == {"first": first, "second": second}
    seen = visible_entities(driver, memory.tenant, ["e", "e/c"])
    assert len(seen) == 40 and all(len(ids) == 1 for ids in seen.values())
    assert [f.id for f in memory.facts(scope="e/c", subject=NAMES[0])] == [fact.id]  # still about it
    stays = [fact.id] if first == "e" else []  # the fact stays in its scope: `e` does not see `e/c`'s
    assert [f.id for f in memory.facts(scope="e", subject=NAMES[0])] == stays
    assert counters_match(driver, memory.tenant)
    assert memory.upsert_entity(NAMES[0], type="thing", scope="e/d").id == entity.id  # a sibling now sees it
