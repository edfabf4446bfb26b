"""Races of a busy agent fleet (issue 23): one entity ingested from many sessions at once,
background turns of one memory, erase racing writes. Invariants checked by direct Cypher:
one entity per name, no duplicate facts, scope counters equal to what the scopes hold,
nothing of an erased user left."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem import Memory

from ..fakes import extraction, scripted, tool_answer

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

THREADS = 8


def visit(city: str, session: int):
    return extraction(
        [{"name": "Ann Lee", "type": "person", "aliases": ["Ann"]}, {"name": city, "type": "city", "aliases": []}],
        [{"subject": "Ann Lee", "predicate": "visited", "object": city, "object_is_entity": True,
          "text": f"Ann visited {city} in session {session}.", "messages": [1]}])


NO_CONTRADICTION = tool_answer("Judgement", {"verdicts": []})  # visits of one city in two sessions agree


def counters_match(driver, tenant: str) -> list[str]:
    """Scopes whose memory counter differs from the memories they hold (windows not counted)."""
    records, _, _ = driver.execute_query(
        "MATCH (s:Scope {tenant: $t}) "
        "OPTIONAL MATCH (m:Memory {tenant: $t, scope: s.path}) WHERE NOT m:Chunk "
        "WITH s, count(m) AS held RETURN s.path AS path, coalesce(s.memories, 0) AS counter, held", {"t": tenant})
    return [f"{r['path']}: counter {r['counter']}, holds {r['held']}" for r in records if r["counter"] != r["held"]]


def ingest_at_once(memory, cities, scopes):
    """Session i says it was in cities[i], ingested into scopes[i]; all start together.
    Returns the ingest results, none of which failed."""
    barrier = threading.Barrier(THREADS)

    def session(i: int):
        barrier.wait(30)
        return memory.ingest([{"role": "user", "content": f"I was in {cities[i]} (session {i})."}], scope=scopes[i],
                             llm=scripted(visit(cities[i], i), *[NO_CONTRADICTION] * 2), session_id=f"s{i}",
                             user_id="ann")

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(session, range(THREADS)))
    assert all(r.error is None for r in results)
    return results


def every_visit_kept_or_restated(memory, results, cities) -> bool:
    """Each session's visit is a fact, or was skipped as restating a stored visit of the same
    city (a session that finds another's committed visit of that city skips its own; which
    ones do depends on timing); every city visited has a fact."""
    facts = {f.id: f for f in memory.facts(scope="fleet/chat", subject="Ann")}
    texts = {f.text for f in facts.values()}
    for i, (city, result) in enumerate(zip(cities, results)):
        if f"Ann visited {city} in session {i}." in texts:
            continue
        restated = [s.reason.removeprefix("restates ") for s in result.skipped if s.kind == "fact"]
        assert restated and restated[0] in facts and city in facts[restated[0]].text, (i, result.skipped)
    return {f.text.split(" in session")[0] for f in facts.values()} == {f"Ann visited {c}" for c in cities}


def test_one_entity_ingested_from_eight_sessions_at_once_is_one_entity(memory, driver):
    cities = ["Porto", "Lisbon", "Braga", "Faro", "Porto", "Lisbon", "Evora", "Porto"]
    results = ingest_at_once(memory, cities, ["fleet/chat"] * THREADS)
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity {tenant: $t}) WHERE e.invalidatedAt IS NULL RETURN e.type AS type, e.name AS name, count(*) AS n",
        {"t": memory.tenant})
    by_name = {(r["type"], r["name"]): r["n"] for r in records}
    # the model's entities, and the one speaker of every session: the user, by her id
    assert by_name == {("person", "Ann Lee"): 1, ("user", "ann"): 1, **{("city", c): 1 for c in set(cities)}}
    assert every_visit_kept_or_restated(memory, results, cities)
    assert counters_match(driver, memory.tenant) == []


def test_ingests_racing_in_a_scope_and_its_child_leave_one_entity_per_name(memory, driver):
    # half the sessions ingest into fleet, half into fleet/chat: a create in one must not miss
    # the other's (the root scope's lock), and an entity first made in the child is moved up
    scopes = ["fleet/chat", "fleet"] * (THREADS // 2)
    cities = ["Porto", "Porto", "Lisbon", "Lisbon", "Braga", "Braga", "Porto", "Lisbon"]
    results = ingest_at_once(memory, cities, scopes)
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity {tenant: $t}) WHERE e.invalidatedAt IS NULL "
        "RETURN e.type AS type, e.name AS name, collect(e.scope) AS scopes", {"t": memory.tenant})
    by_name = {(r["type"], r["name"]): r["scopes"] for r in records}
    assert sorted(by_name) == sorted([("person", "Ann Lee"), ("user", "ann"), *(("city", c) for c in set(cities))])
    assert all(len(found) == 1 for found in by_name.values()), by_name
    assert by_name[("person", "Ann Lee")] == ["fleet"]  # used from fleet: it lives there, visible below
    assert every_visit_kept_or_restated(memory, results, cities)
    assert counters_match(driver, memory.tenant) == []

def test_background_turns_of_many_users_land_whole(neo4j, schema, embedder, tenant, driver):
    users = [f"user{i}" for i in range(6)]
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        handles = [memory.after_turn([{"role": "user", "content": f"I live in city {i}."}], scope="fleet/chat",
                                     llm=scripted(tool_answer("Extraction", {"entities": [], "facts": [],
                                                                             "profile": {"location": f"city {i}"}})),
                                     session_id=f"t{i}", user_id=user)
                   for i, user in enumerate(users)]
        results = memory.await_extractions(timeout=120)
        assert [r.episodes for r in results] == [h.episodes for h in handles]  # in turn order
        assert all(r.ok for r in results)
        assert [memory.profile(u, scope="fleet/chat").location for u in users] == [f"city {i}" for i in range(6)]
    assert counters_match(driver, tenant) == []


def test_erase_racing_writes_leaves_nothing_of_the_user(memory, driver):
    stop = threading.Event()
    written = []

    def writer(n: int):
        i = 0
        while not stop.is_set() and i < 60:
            written.append(memory.remember(f"Note {n}-{i} of Zed.", scope="fleet/zed", user_id="zed", subject="Zed",
                                           predicate="noted", object=f"{n}-{i}").id)
            i += 1

    def eraser():
        for _ in range(6):
            memory.erase(user_id="zed")

    memory.remember("Yan stays.", scope="fleet/zed", user_id="yan")
    with ThreadPoolExecutor(3) as pool:
        writers = [pool.submit(writer, n) for n in range(2)]
        erasing = pool.submit(eraser)
        erasing.result(timeout=300)
        stop.set()
        for w in writers:
            w.result(timeout=300)
    memory.erase(user_id="zed")  # the request is honoured once the writes have stopped
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {tenant: $t}) RETURN m.userId AS user, count(*) AS n", {"t": memory.tenant})
    assert {r["user"]: r["n"] for r in records} == {"yan": 1}
    assert written and all(memory.get(i) is None for i in written)
    assert counters_match(driver, memory.tenant) == []
