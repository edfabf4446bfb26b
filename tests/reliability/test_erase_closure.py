"""Erasing a user or a scope leaves nothing of them behind (issue 23.6): a private marker is
planted in every kind of record a user can have, and after ``erase`` no node, property,
edge, full-text or vector index entry of the tenant still holds it, no id of an erased
record survives in any property, and another user's records are untouched. The scans are
test-only Cypher run through the driver fixture."""

from __future__ import annotations

import pytest

from graphmem import EraseReport, ToolCall

from ..fakes import extraction, scripted, tool_answer

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

MARKER = "zq-private-7731"
TRACE = "zq"  # every form of the marker keeps it (names are folded, keys normalised); hex ids never hold a 'z'
SHARED = "crm/shared"  # Maria's records beside Bob's
OWN = f"crm/{MARKER}-maria"  # a scope whose path carries her name
KINDS = {"fact", "episode", "entity", "insight", "procedure", "summary", "note", "correction", "decision"}

# test-only views of the graph (CASE, not AND/OR: Neo4j 2026 may evaluate toLower(v) on a list first)
HOLDERS = """
MATCH (n {tenant: $t})
UNWIND keys(n) AS key
WITH n, key, n[key] AS v
WHERE CASE WHEN valueType(v) STARTS WITH 'STRING' THEN toLower(v) CONTAINS $trace
           WHEN valueType(v) STARTS WITH 'LIST<STRING' THEN any(x IN v WHERE toLower(x) CONTAINS $trace)
           ELSE false END
RETURN labels(n) AS labels, key, v
UNION ALL
MATCH (a {tenant: $t})-[r]-()
UNWIND keys(r) AS key
WITH a, r, key, r[key] AS v
WHERE CASE WHEN valueType(v) STARTS WITH 'STRING' THEN toLower(v) CONTAINS $trace
           WHEN valueType(v) STARTS WITH 'LIST<STRING' THEN any(x IN v WHERE toLower(x) CONTAINS $trace)
           ELSE false END
RETURN [type(r)] AS labels, key, v
"""
ID_HOLDERS = """
MATCH (n {tenant: $t})
UNWIND keys(n) AS key
WITH n, key, n[key] AS v
WHERE (valueType(v) STARTS WITH 'STRING' AND any(id IN $ids WHERE v CONTAINS id))
   OR (valueType(v) STARTS WITH 'LIST<STRING' AND any(x IN v WHERE any(id IN $ids WHERE x CONTAINS id)))
RETURN n.id AS id, key, v
"""
EDGES_TO = "MATCH (n {tenant: $t})-[r]-(m) WHERE n.id IN $ids OR m.id IN $ids RETURN count(r) AS n"
NODES = "MATCH (n:Memory {tenant: $t}) WHERE NOT n:Chunk RETURN n.id AS id, n.kind AS kind, properties(n) AS props"
CHUNKS = "MATCH (c:Chunk {tenant: $t})-[:PART_OF]->(e) WHERE e.id IN $ids RETURN count(c) AS n"
FULLTEXT = """
CALL db.index.fulltext.queryNodes('memory_text', $words) YIELD node
WHERE node.tenant = $t RETURN count(node) AS n
"""
VECTOR = """
CALL db.index.vector.queryNodes('memory_embedding', 200, $vector) YIELD node
WHERE node.tenant = $t RETURN collect(node.id) AS ids
"""


def one(driver, query, **params):
    return driver.execute_query(query, params).records[0]["n"]


def plant_maria(memory) -> dict[str, list]:
    """Every kind of record Maria can have, each holding the marker somewhere; returns the
    ids planted and the embeddings to look for in the vector index afterwards."""
    session = "maria-chat"
    said = [memory.add_episode(f"I am Maria, my code word is {MARKER} ({i})", scope=SHARED, role="user",
                               user_id="maria", session_id=session, tags=[MARKER]) for i in range(3)]
    pasted = memory.add_episode(f"pasted statement {MARKER} " + "line of a bank statement " * 200, scope=SHARED,
                                role="user", user_id="maria", session_id=session)  # long: it has windows
    person = memory.upsert_entity(f"Maria {MARKER}", type="person", scope=SHARED, aliases=[f"M. {MARKER}"],
                                  properties={"iban": f"PT50 {MARKER}"})
    bank = memory.upsert_entity(f"Banco {MARKER}", type="organisation", scope=SHARED)
    banks = memory.relate(person, "banks_with", bank, scope=SHARED, user_id="maria", tags=[MARKER])
    phone = memory.remember(f"Maria's phone PIN is {MARKER}", scope=SHARED, user_id="maria",
                            subject=person.id, predicate="pin", object=MARKER)
    extracted = memory.remember(f"Maria keeps her savings at {MARKER}", scope=SHARED, provenance="extraction",
                                derived_from=[said[0].id])  # no user id: derived from her episode only
    insight = memory.add_insight(f"Maria banks in Portugal ({MARKER})", cites=[banks, phone], scope=SHARED)
    summary = memory.summarize(session, scope=SHARED, window=1,
                               llm=scripted(tool_answer("SummaryDraft", {"text": f"Maria gave {MARKER}"})))
    tools = [memory.add_episode(ToolCall(tool=tool, args={"account": MARKER}, result=f"ok {MARKER}").content(),
                                scope=SHARED, role="tool", user_id="maria") for tool in ("open_account", "close_account")]
    procedure = memory.induce_procedure([t.id for t in tools], scope=SHARED)
    profile = memory.set_profile("maria", scope=OWN, name=f"Maria {MARKER}", location=f"Lisbon {MARKER}")
    note = memory.note_add(f"Maria prefers {MARKER}", scope=OWN, owner="maria")
    own = memory.remember(f"Maria's own scope fact {MARKER}", scope=OWN, user_id="maria")
    correction = memory.record_correction("bot", f"Maria's code is {MARKER}-old", f"Maria's code is {MARKER}",
                                          scope=SHARED, user_id="maria", run_id=said[1].id)
    decision = memory.log_decision("bot", f"offer Maria a {MARKER} card", reasoning=f"she asked ({MARKER})",
                                   decision_type="offer", scope=SHARED, session_id=session, user_id="maria")
    assert summary is not None and note.note is not None
    ids = [*(e.id for e in [*said, pasted, *tools]), person.id, bank.id, banks.id, phone.id, extracted.id,
           insight.id, summary.id, procedure.id, *profile.facts.values(), note.note.id, own.id, correction.id,
           decision.id]
    return {"ids": ids, "episodes": [pasted.id], "fact": phone.id, "run": said[1].id}


def plant_bob(memory, maria_fact_id: str, maria_episode_id: str) -> dict[str, str]:
    """Bob's records beside hers: a fact, an episode, his entity, an insight resting on one of
    her facts and one of his, and a correction about one of her runs."""
    fact = memory.remember("Bob banks in Oslo", scope=SHARED, user_id="bob", tags=["client"])
    chat = memory.add_episode("Bob here, I moved to Oslo", scope=SHARED, role="user", user_id="bob", session_id="bob-chat")
    person = memory.upsert_entity("Bob Stone", type="person", scope="crm", properties={"tier": "gold"})
    owns = memory.remember("Bob Stone is a gold client", scope="crm", user_id="bob", subject=person.id,
                           predicate="tier", object="gold")
    mixed = memory.add_insight("Two clients bank abroad", cites=[maria_fact_id, fact.id], scope=SHARED)
    fix = memory.record_correction("bot", "Bob is silver", "Bob is gold", scope=SHARED, user_id="bob",
                                   run_id=maria_episode_id)
    return {"fact": fact.id, "chat": chat.id, "person": person.id, "owns": owns.id, "mixed": mixed.id, "fix": fix.id}


def snapshot(driver, tenant: str) -> dict[str, dict]:
    nodes = driver.execute_query(NODES, {"t": tenant}).records
    return {r["id"]: {k: v for k, v in r["props"].items() if k != "embedding"} for r in nodes}


def assert_no_trace(driver, tenant: str, gone: list[str], vectors: list[list[float]]) -> None:
    holders = driver.execute_query(HOLDERS, {"t": tenant, "trace": TRACE}).records
    assert [dict(r) for r in holders] == []
    ids = driver.execute_query(ID_HOLDERS, {"t": tenant, "ids": gone}).records
    assert [dict(r) for r in ids] == []
    assert one(driver, EDGES_TO, t=tenant, ids=gone) == 0
    assert one(driver, CHUNKS, t=tenant, ids=gone) == 0
    assert one(driver, FULLTEXT, t=tenant, words=TRACE) == 0
    for vector in vectors:
        found = driver.execute_query(VECTOR, {"t": tenant, "vector": vector}).records[0]["ids"]
        assert not set(found) & set(gone)


def given(driver, tenant: str, known) -> list[str]:
    """The records written beside those planted: the entities the planted episodes gave (their
    speakers, and the names the entity extractor found in them)."""
    return sorted(set(snapshot(driver, tenant)) - set(known))


def kinds_of(before: dict[str, dict], ids: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in ids:
        counts[before[i]["kind"]] = counts.get(before[i]["kind"], 0) + 1
    return counts


def embeddings(driver, tenant: str, ids: list[str]) -> list[list[float]]:
    rows = driver.execute_query("MATCH (n:Memory {tenant: $t}) WHERE n.id IN $ids AND n.embedding IS NOT NULL "
                                "RETURN n.embedding AS e", {"t": tenant, "ids": ids}).records
    return [r["e"] for r in rows]


def test_erasing_a_user_leaves_no_trace_and_spares_the_other_user(memory, driver):
    tenant = memory.tenant
    maria = plant_maria(memory)
    maria["ids"] += given(driver, tenant, maria["ids"])  # what her episodes gave is hers
    bob = plant_bob(memory, maria["fact"], maria["run"])
    bob.update({f"given-{i}": n for i, n in enumerate(given(driver, tenant, [*maria["ids"], *bob.values()]))})
    before = snapshot(driver, tenant)
    windows = one(driver, CHUNKS, t=tenant, ids=maria["episodes"])
    planted = kinds_of(before, maria["ids"])
    assert set(planted) == KINDS and windows > 0  # every kind, and an episode with windows
    assert set(before) == set(maria["ids"]) | set(bob.values())  # nothing planted that the test does not know
    assert driver.execute_query(HOLDERS, {"t": tenant, "trace": TRACE}).records  # the scan can see the marker
    assert one(driver, FULLTEXT, t=tenant, words=TRACE) > 0
    vectors = embeddings(driver, tenant, maria["ids"])
    assert len(vectors) >= 10

    report = memory.erase(user_id="maria")

    assert isinstance(report, EraseReport)
    assert report.by_kind == {**planted, "chunk": windows, "scope": 1}  # OWN, whose path names her
    assert report.total == int(report) == len(maria["ids"])
    assert_no_trace(driver, tenant, maria["ids"], vectors)
    after = snapshot(driver, tenant)
    assert set(after) == set(bob.values())
    changed = {i for i in after if after[i] != before[i]}
    assert changed == {bob["fix"]}  # only the run id naming her episode is gone
    assert "runId" not in after[bob["fix"]] and before[bob["fix"]]["runId"] == maria["run"]
    assert memory.get(bob["mixed"]).cites == (bob["fact"],)  # other evidence keeps an insight
    assert sorted(s["path"] for s in memory.scopes()) == ["crm", SHARED]
    assert memory.erase(user_id="maria") == EraseReport()  # nothing left: a repeat finds nothing


def test_erasing_her_scope_leaves_no_trace_and_spares_the_scopes_around_it(memory, driver):
    tenant = memory.tenant
    bob = plant_bob_around(memory)
    bob.update({f"given-{i}": n for i, n in enumerate(given(driver, tenant, bob.values()))})
    session = "maria-chat"
    said = [memory.add_episode(f"Maria says {MARKER} ({i})", scope=OWN, role="user", session_id=session)
            for i in range(3)]
    person = memory.upsert_entity(f"Maria {MARKER}", type="person", scope="crm", properties={"iban": MARKER})
    place = memory.upsert_entity(f"Lisbon {MARKER}", type="place", scope=OWN)
    lives = memory.relate(person, "lives_in", place, scope=OWN)
    insight = memory.add_insight(f"Maria is local ({MARKER})", cites=[lives, said[0]], scope=f"{OWN}/notes")
    note = memory.note_add(f"Remember {MARKER}", scope=OWN, owner="support-bot")
    tool = memory.add_episode(ToolCall(tool="lookup", args={"who": MARKER}, result="found").content(),
                              scope=OWN, role="tool")
    procedure = memory.induce_procedure([tool.id], scope=OWN)
    decision = memory.log_decision("bot", f"greet {MARKER}", reasoning="asked", decision_type="greet", scope=OWN,
                                   session_id=session)
    gone = [*(e.id for e in said), person.id, place.id, lives.id, insight.id, note.note.id, tool.id, procedure.id,
            decision.id]
    gone += (mine := given(driver, tenant, [*gone, *bob.values()]))  # her episodes' speaker and names
    before = snapshot(driver, tenant)
    vectors = embeddings(driver, tenant, gone)
    assert set(before) == set(gone) | set(bob.values())

    report = memory.erase(scope=OWN)

    # her entity lives in the parent scope, but only her erased fact referred to it
    assert mine  # the user who said her episodes, at least
    assert report.by_kind == {"episode": 4, "entity": 2 + len(mine), "fact": 1, "insight": 1, "note": 1, "procedure": 1,
                              "decision": 1, "scope": 2}
    assert_no_trace(driver, tenant, gone, vectors)
    after = snapshot(driver, tenant)
    assert after == {i: before[i] for i in bob.values()}
    assert sorted(s["path"] for s in memory.scopes()) == ["crm", "crm/bob"]


def plant_bob_around(memory) -> dict[str, str]:
    """Bob's records in the parent scope and a sibling of Maria's scope."""
    up = memory.remember("The CRM opens at 9", scope="crm")
    fact = memory.remember("Bob banks in Oslo", scope="crm/bob", user_id="bob")
    person = memory.upsert_entity("Bob Stone", type="person", scope="crm")
    about = memory.remember("Bob Stone is a client", scope="crm/bob", subject=person.id, predicate="is", object="client")
    return {"up": up.id, "fact": fact.id, "person": person.id, "about": about.id}


def test_a_rerun_picks_up_what_an_older_erase_left_behind(memory, driver):
    """Derived records whose evidence is gone (as the erase before this version left them)
    are erased by the next erase call; a record with evidence left stays."""
    fact = memory.remember(f"Maria banks in Portugal {MARKER}", scope="crm", user_id="maria")
    other = memory.remember("Bob banks in Oslo", scope="crm", user_id="bob")
    insight = memory.add_insight(f"Maria banks abroad {MARKER}", cites=[fact], scope="crm")
    kept = memory.add_insight("Bob banks abroad", cites=[other], scope="crm")
    chat = memory.add_episode(ToolCall(tool="pay", args={"to": MARKER}).content(), scope="crm", role="tool",
                              user_id="maria")
    procedure = memory.induce_procedure([chat.id], scope="crm")
    # what the old erase did: the named memories only, with their edges
    driver.execute_query("MATCH (m:Memory {tenant: $t, userId: 'maria'}) DETACH DELETE m", {"t": memory.tenant})
    assert memory.get(insight.id) is not None and memory.get(procedure.id) is not None

    report = memory.erase(user_id="maria")

    assert report.by_kind == {"insight": 1, "procedure": 1}
    assert memory.get(insight.id) is None and memory.get(procedure.id) is None
    assert memory.get(kept.id).cites == (other.id,)
    assert one(driver, FULLTEXT, t=memory.tenant, words=TRACE) == 0


def test_an_interrupted_erase_finishes_on_the_next_call(memory, driver, monkeypatch):
    import graphmem._sync.records as sync_records

    monkeypatch.setattr(sync_records, "_ERASE_BATCH", 2)
    facts = memory.remember_many([{"text": f"Maria fact {i} {MARKER}", "scope": "crm", "user_id": "maria"}
                                  for i in range(7)])
    insight = memory.add_insight(f"Maria summary {MARKER}", cites=facts[::3], scope="crm")
    bob = memory.remember("Bob banks in Oslo", scope="crm", user_id="bob")
    write, calls = memory._store.run.write, []

    def failing(work):  # the third batch never lands
        calls.append(work)
        if len(calls) == 3:
            raise ConnectionError("lost the server")
        return write(work)

    monkeypatch.setattr(memory._store.run, "write", failing)
    with pytest.raises(ConnectionError):
        memory.erase(user_id="maria")
    left = [f.id for f in facts if memory.get(f.id) is not None]
    assert len(left) == 3  # two batches of two landed whole
    monkeypatch.setattr(memory._store.run, "write", write)

    report = memory.erase(user_id="maria")

    assert report.fact == 3 and report.total <= 4  # the rest, and the insight if it was still there
    assert memory.get(insight.id) is None and memory.get(bob.id) is not None
    assert one(driver, FULLTEXT, t=memory.tenant, words=TRACE) == 0


def relation(subject, predicate, obj, text, message):
    return {"subject": subject, "predicate": predicate, "object": obj, "object_is_entity": True, "text": text,
            "valid_from": None, "corrects": False, "messages": [message], "single_valued": None}


def test_what_extraction_made_of_her_goes_and_a_shared_entity_stays(memory, driver):
    """Entities an LLM extracted from her conversation (DERIVED_FROM and MENTIONS her
    episodes) go with her; the city Bob's conversation mentions too stays, without the
    edges to her episodes; a SAME_AS candidate does not keep her entity."""
    her = memory.ingest([{"role": "user", "content": f"Hi, I'm Maria {MARKER}, my sister is Rita {MARKER}."},
                         {"role": "user", "content": "I live in Lisbon."}],
                        scope=SHARED, session_id="s-maria", user_id="maria", llm=scripted(extraction(
                            [{"name": f"Maria {MARKER}", "type": "person", "aliases": []},
                             {"name": f"Rita {MARKER}", "type": "person", "aliases": []},
                             {"name": "Lisbon", "type": "city", "aliases": []}],
                            [relation(f"Maria {MARKER}", "lives_in", "Lisbon", f"Maria {MARKER} lives in Lisbon", 1),
                             relation(f"Rita {MARKER}", "sister_of", f"Maria {MARKER}",
                                      f"Rita {MARKER} is Maria's sister", 0)])))
    bob = memory.ingest([{"role": "user", "content": "I'm Bob Stone and I live in Lisbon too."}],
                        scope=SHARED, session_id="s-bob", user_id="bob", llm=scripted(extraction(
                            [{"name": "Bob Stone", "type": "person", "aliases": []},
                             {"name": "Lisbon", "type": "city", "aliases": []}],
                            [relation("Bob Stone", "lives_in", "Lisbon", "Bob Stone lives in Lisbon", 0)])))
    # the model's three, and the speaker of her messages: the user "maria"
    assert len(her.entities_created) == 4 and len(her.facts) == 2 and len(bob.facts) == 1
    lisbon = next(e for e in her.entities_created if e.name == "Lisbon")
    bob_entity = next(e for e in bob.entities_created if e.name == "Bob Stone")
    bob_speaker = next(e for e in bob.entities_created if e.name == "bob")
    driver.execute_query("MATCH (a:Entity {tenant: $t, id: $a}), (b:Entity {tenant: $t, id: $b}) "
                         "CREATE (a)-[:SAME_AS {similarity: 0.8, status: 'candidate'}]->(b)",
                         {"t": memory.tenant, "a": her.entities_created[0].id, "b": bob_entity.id})
    gone = [*(e.id for e in her.episodes), *(f.id for f in her.facts),
            *(e.id for e in her.entities_created if e.name != "Lisbon")]
    kept = [*(e.id for e in bob.episodes), *(f.id for f in bob.facts), bob_entity.id, bob_speaker.id, lisbon.id]
    before = snapshot(driver, memory.tenant)
    assert set(before) == set(gone) | set(kept)

    report = memory.erase(user_id="maria")

    assert report.by_kind == {"episode": 2, "fact": 2, "entity": 3}
    assert_no_trace(driver, memory.tenant, gone, embeddings(driver, memory.tenant, kept))
    assert snapshot(driver, memory.tenant) == {i: before[i] for i in kept}
    edges = driver.execute_query("MATCH (n:Entity {tenant: $t, id: $id})-[r]-(m) RETURN type(r) AS type, m.id AS id",
                                 {"t": memory.tenant, "id": lisbon.id}).records
    assert sorted((r["type"], r["id"]) for r in edges if r["type"] != "IN_SCOPE") == sorted(
        [("ABOUT", bob.facts[0].id), ("MENTIONS", bob.episodes[0].id), ("RELATES", bob_entity.id)])


def test_a_surviving_record_whose_id_contains_an_erased_id_keeps_it(memory, driver):
    # seen in the LongMemEval bench: ids '<session>#1' and '<session>#12' of one session's
    # turns (joined by NEXT); erasing the first rewrote the second's id and collided
    first = memory.add_episode("Turn one.", scope="chat", session_id="s", id="longmemeval-session-0001#1")
    kept = memory.add_episode("Turn twelve.", scope="chat", session_id="s", id="longmemeval-session-0001#12")
    assert memory.erase(id=first.id).episode == 1
    assert memory.get(kept.id).text == "Turn twelve."
    records, _, _ = driver.execute_query("MATCH (m:Memory {tenant: $t}) WHERE NOT m:Entity RETURN collect(m.id) AS ids",
                                         {"t": memory.tenant})
    assert records[0]["ids"] == [kept.id]
    # their speaker (the user, by role) stays with the turn it still said
    records, _, _ = driver.execute_query("MATCH (e:Entity {tenant: $t})-[:SPOKE]->(m) RETURN e.name AS name, "
                                         "collect(m.id) AS said", {"t": memory.tenant})
    assert [(r["name"], r["said"]) for r in records] == [("user", [kept.id])]
