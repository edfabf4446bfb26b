"""Scopes are visible downwards only; tenants are a hard wall."""

from __future__ import annotations

import random
import uuid

import pytest

from graphmem import InvalidInputError, Memory


def test_scope_visibility(memory):
    at = {}
    for scope in ["a", "a/b", "a/b/c", "a/x", "a/b/d"]:
        at[scope] = memory.remember(f"note at {scope}", scope=scope).id
    seen = lambda scope: {f.id for f in memory.facts(scope=scope)}  # noqa: E731
    assert seen("a/b/c") == {at["a"], at["a/b"], at["a/b/c"]}
    assert seen("a/b") == {at["a"], at["a/b"]}
    assert seen("a") == {at["a"]}
    assert seen("a/x") == {at["a"], at["a/x"]}
    assert seen("a/b/c/deeper") == {at["a"], at["a/b"], at["a/b/c"]}


def test_the_hierarchy_is_scope_nodes_with_child_of(memory, driver):
    memory.remember("x", scope="org/team/alice")
    records, _, _ = driver.execute_query(
        "MATCH (s:Scope {tenant: $t})-[:CHILD_OF]->(p:Scope {tenant: $t}) RETURN s.path AS s, p.path AS p ORDER BY s",
        {"t": memory.tenant})
    assert [(r["s"], r["p"]) for r in records] == [("org/team", "org"), ("org/team/alice", "org/team")]
    tree = {row["path"]: row for row in memory.scopes()}
    assert tree["org/team/alice"]["memories"] == 1 and tree["org"]["parent"] is None


@pytest.mark.parametrize("bad", ["", "/a", "a/", "a//b", "a/../b", "a/./b", "a/\x00", "a/b\nc", " a", 7])
def test_malformed_scopes_are_rejected_and_nothing_is_written(memory, bad):
    with pytest.raises(InvalidInputError) as info:
        memory.remember("x", scope=bad)
    assert info.value.field == "scope"
    assert memory.scopes() == []


def test_no_read_api_ever_returns_another_tenants_node(neo4j, schema, embedder):
    rng = random.Random(1234)
    tenants = [f"iso-{uuid.uuid4().hex[:8]}" for _ in range(4)]
    scopes = ["shared", "shared/team", "shared/team/x", "other"]
    memories = {t: Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=t, embedder=embedder) for t in tenants}
    owned = {t: set() for t in tenants}
    try:
        for i in range(80):
            t = rng.choice(tenants)
            m = memories[t]
            scope = rng.choice(scopes)
            common_id = f"same-id-{i % 5}"  # every tenant reuses the same ids, subjects and entity names
            if i % 4 == 0:
                e1 = m.upsert_entity("Alice", type="person", scope="shared")
                e2 = m.upsert_entity("Berlin", type="city", scope="shared")
                f = m.relate(e1, "lives_in", e2, scope=scope if scope.startswith("shared") else "shared/team")
                owned[t] |= {e1.id, e2.id, f.id}
            elif i % 4 == 1:
                owned[t].add(m.add_episode(f"turn {i}", scope=scope).id)
            else:
                f = m.remember(f"fact {i}", scope=scope, subject="alice", predicate="lives_in",
                               object=rng.choice(["Paris", "Rome"]), id=f"{t}-{common_id}-{i}")
                owned[t].add(f.id)
        for t, m in memories.items():
            # the entities an episode's speaker (the user, by role) gives are the tenant's too
            speakers = {n for scope in scopes for n, a in m.graph(scope=scope, kinds=["entity"]).nodes(data=True)
                        if a["name"] == "user"}
            assert all(m.get(n).tenant == t for n in speakers)
            owned[t] |= speakers
        for t, m in memories.items():
            for scope in scopes:
                for f in m.facts(scope=scope, include_invalidated=True):
                    assert f.tenant == t and f.id in owned[t]
                for f in m.history(subject="alice", scope=scope):
                    assert f.tenant == t and f.id in owned[t]
            for other, ids in owned.items():
                for rid in ids:
                    got = m.get(rid)
                    assert (got is not None) == (other == t) or rid in owned[t]
                    if got is not None:
                        assert got.tenant == t
            assert {row["path"] for row in m.scopes()} <= set(scopes) | {"shared/team"}
            for scope in scopes:
                for hit in m.recall("Alice lives in Berlin fact turn", scope=scope, k=50, include_invalidated=True):
                    assert hit.record.tenant == t and hit.record.id in owned[t]
                    assert all(c.tenant == t for c in hit.citations)
                block = m.context("Alice Berlin", scope=scope, max_tokens=4000)
                for other in tenants:
                    if other != t:
                        assert other not in block
        # forgetting and erasing in one tenant never reaches another
        victim, bystander = tenants[0], tenants[1]
        before = len(memories[bystander].facts(scope="shared/team/x"))
        memories[victim].forget(scope="shared/team/x", subject="alice")
        memories[victim].erase(scope="shared")
        assert len(memories[bystander].facts(scope="shared/team/x")) == before
    finally:
        for m in memories.values():
            m.close()


def test_relates_edges_never_join_two_tenants(driver, memory):
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE a.tenant IS NOT NULL AND b.tenant IS NOT NULL AND a.tenant <> b.tenant RETURN count(r) AS n")
    assert records[0]["n"] == 0


def test_scope_counters_follow_writes_and_erases(memory):
    memory.remember_many([{"text": f"n{i}", "scope": "c/d"} for i in range(5)])
    memory.add_episode("hello", scope="c")
    memory.upsert_entity("Alice", type="person", scope="c/d/e")
    counts = lambda: {row["path"]: row["memories"] for row in memory.scopes()}  # noqa: E731
    # the episode and its speaker's entity (the user, by role) are two memories of "c"
    assert counts() == {"c": 2, "c/d": 5, "c/d/e": 1}
    memory.erase(scope="c/d")
    assert counts() == {"c": 2}  # the scopes left empty are gone with what was erased
