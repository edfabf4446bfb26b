"""The graph a conversation gives without a chat model (issue 40), on a real Neo4j: speakers
and the entities the extractor finds land with the episodes, in one transaction; names
resolve across sessions into the same Entity nodes the model path writes; a question naming
a person finds what that person said."""

from __future__ import annotations

from typing import ClassVar

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphmem import InvalidInputError, Memory, Mention
from graphmem._cli import sample
from graphmem._recall.fulltext import FUNCTION_WORDS

from ..fakes import extraction, scripted

SCOPE = "friends"


@pytest.fixture
def wordllama_memory(neo4j, schema, tenant):
    """The default embedder, as a user gets it (the friends' questions are ranked by meaning)."""
    from graphmem._base.embeddings import default_embedder

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=default_embedder()) as m:
        yield m


def count(driver, query, tenant):
    return driver.execute_query(query, {"t": tenant}).records[0]["n"]


def entities_of(memory, scope=SCOPE):
    graph = memory.graph(scope=scope, kinds=["entity"])
    return {d["name"]: d for _, d in graph.nodes(data=True)}


def test_a_conversation_becomes_speakers_and_the_entities_it_names(memory, driver):
    results = sample.store(memory, SCOPE)
    created = [e.name for r in results for e in r.entities_created]
    assert len(created) == len(set(created))  # each name written once over four sessions
    found = entities_of(memory)
    assert {"Samira", "Nora", "Tariq", "Porto", "Riverside Climbing Club", "Edinburgh"} <= set(found)
    assert found["Samira"]["type"] == "person" and found["Samira"]["aliases"] == ["Sam"]  # Nora calls her Sam
    assert found["Porto"]["type"] == "place" and found["Riverside Climbing Club"]["type"] == "organization"
    # who said what: one SPOKE per turn, from its speaker
    t = memory.tenant
    spoke = driver.execute_query("MATCH (e:Entity {tenant: $t})-[:SPOKE]->(m:Episode) RETURN e.name AS name, "
                                 "collect(m.speaker) AS said", {"t": t}).records
    turns = [t for _, _, session in sample.sessions() for t in session]
    assert {r["name"]: sorted(r["said"]) for r in spoke} == {
        name: [name] * sum(t["speaker"] == name for t in turns) for name in ("Samira", "Nora")}
    # every MENTIONS edge holds the spans of the names, as they stand in the turn
    rows = driver.execute_query("MATCH (m:Episode {tenant: $t})-[r:MENTIONS]->(e:Entity) RETURN m.text AS text, "
                                "r.starts AS starts, r.ends AS ends, e.name AS name, e.aliases AS aliases", {"t": t}).records
    assert len(rows) >= 15
    for r in rows:
        assert all(r["text"][a:b] in {r["name"], *r["aliases"]} for a, b in zip(r["starts"], r["ends"]))
    # no entity is a pronoun, a stop word or a chat word
    assert not {n.lower() for n in found} & (FUNCTION_WORDS | {"the", "hey", "glad", "ha", "morning"})
    # the episodes keep their speaker, and the time anchors of their time expressions
    first = memory.messages("session-1", scope=SCOPE)[0]
    assert first.speaker == "Samira" and [m.date().isoformat() for m in first.refers_to] == ["2024-02-26"]


def test_storing_the_conversation_again_adds_nothing(memory, driver):
    sample.store(memory, SCOPE)
    counts = lambda: driver.execute_query(  # noqa: E731
        "MATCH (n:Memory {tenant: $t}) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS nodes, count(r) AS edges",
        {"t": memory.tenant}).records[0].values()
    before = counts()
    again = sample.store(memory, SCOPE)
    assert counts() == before and not any(r.entities_created for r in again)


def test_a_question_naming_a_friend_finds_what_she_said(wordllama_memory):
    sample.store(wordllama_memory, SCOPE)
    for name in ("Samira", "Nora"):
        top = wordllama_memory.recall(f"What does {name} like to do?", scope=SCOPE, k=3)
        assert [r.record.speaker for r in top] == [name] * 3, [(r.record.speaker, r.record.text) for r in top]
        assert all(r.parts.entity == 1.0 for r in top)
    # a name that is not a speaker: the turns that name him
    top = wordllama_memory.recall("Where does Tariq live?", scope=SCOPE, k=3)
    assert all("Tariq" in r.record.text for r in top) and any("Glasgow" in r.record.text for r in top)


def test_a_named_user_s_turns_answer_for_her(wordllama_memory):
    wordllama_memory.ingest([{"role": "user", "name": "Priya", "content": "I just moved from Leeds to Glasgow"},
                             {"role": "assistant", "content": "Congratulations! What can I do for you?"},
                             {"role": "user", "name": "Priya", "content": "My order number is 4411"}],
                            scope="u", llm=None, session_id="s1")
    wordllama_memory.ingest([{"role": "user", "name": "Tom", "content": "I just moved to Bristol"}],
                            scope="u", llm=None, session_id="s2")
    # her name ties her turns, Tom's stays out (which of hers answers "live" is the meaning's
    # to order: WordLlama puts "live" and "moved" at the cosine of unrelated text)
    ranked = [r.record.text for r in wordllama_memory.recall("Where does Priya live?", scope="u")]
    assert "I just moved from Leeds to Glasgow" in ranked and "I just moved to Bristol" not in ranked
    ranked = [r.record.text for r in wordllama_memory.recall("Which city did Priya move to?", scope="u")]
    assert ranked[0] == "I just moved from Leeds to Glasgow" and ranked.index("I just moved to Bristol") > 0


def test_the_model_path_and_the_offline_path_share_entities(memory):
    sample.store(memory, SCOPE)
    tariq = entities_of(memory)["Tariq"]
    again = memory.upsert_entity("Tariq", type="person", scope=SCOPE)
    assert again.id == [n for n, d in memory.graph(scope=SCOPE, kinds=["entity"]).nodes(data=True)
                        if d["name"] == "Tariq"][0] and tariq["type"] == "person"
    llm = scripted(extraction([{"name": "Tariq", "type": "person", "aliases": []}], []))
    result = memory.ingest([HumanMessage("Tariq called me from Glasgow")], scope=SCOPE, llm=llm)
    assert again.id in {e.id for e in result.entities_merged}


def test_with_a_model_the_model_extracts_and_speakers_still_land(memory, driver):
    llm = scripted(extraction([], []))
    result = memory.ingest([HumanMessage("Tariq lives in Glasgow", name="Samira"), AIMessage("Noted!")],
                           scope=SCOPE, llm=llm)
    assert sorted((e.type, e.name) for e in result.entities_created) == [("agent", "assistant"), ("person", "Samira")]
    assert count(driver, "MATCH (:Episode {tenant: $t})-[r:MENTIONS]->() RETURN count(r) AS n", memory.tenant) == 0
    handle = memory.after_turn([{"role": "user", "content": "My brother Tariq flew in from Glasgow"}], scope=SCOPE)
    assert handle.result().ok  # no model: the extractor's entities, in the same write as the turn
    assert {"Tariq", "Glasgow"} <= set(entities_of(memory))


def test_add_episode_names_its_speaker_and_a_custom_extractor_plugs_in(neo4j, schema, embedder, tenant, driver):
    class Gazetteer:  # a rules list: any object with extract(texts)
        def extract(self, texts):
            return [[Mention(text="Acme", type="organization", start=i, end=i + 4, label="RULE")
                     for i in range(len(t)) if t.startswith("Acme", i)] for t in texts]

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                entity_extractor=Gazetteer()) as m:
        episode = m.add_episode("Acme ships on Fridays, Acme says", scope="s", speaker="Lin")
        assert episode.speaker == "Lin"
        rows = driver.execute_query("MATCH (s:Entity)-[:SPOKE]->(m:Episode {tenant: $t})-[r:MENTIONS]->(e:Entity) "
                                    "RETURN s.name AS speaker, e.name AS name, r.starts AS starts, r.labels AS labels",
                                    {"t": tenant}).records
        assert [dict(r) for r in rows] == [{"speaker": "Lin", "name": "Acme", "starts": [0, 23], "labels": ["RULE"]}]


def test_without_an_extractor_only_speakers_land_and_the_note_says_how_to_get_entities(neo4j, schema, embedder, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, entity_extractor=None) as m:
        result = m.ingest([{"role": "user", "name": "Nora", "content": "Tariq lives in Glasgow"}], scope="s", llm=None)
        assert [e.name for e in result.entities_created] == ["Nora"]
        assert "pip install 'graphmem[ner]'" in result.notes[0]


def test_bad_input_writes_nothing(memory):
    with pytest.raises(InvalidInputError) as info:
        memory.ingest([{"role": "user", "name": "Nora", "content": "Tariq lives in Glasgow"},
                       {"role": "user", "name": 7, "content": "x"}], scope=SCOPE, llm=None)
    assert info.value.field == "messages[1].name"
    assert memory.scopes() == [] and entities_of(memory) == {}


def test_a_forgotten_name_is_not_written_again(memory):
    sample.store(memory, SCOPE)
    tariq = memory.upsert_entity("Tariq", type="person", scope=SCOPE)
    memory.forget(scope=SCOPE, id=tariq.id)
    memory.ingest([{"role": "user", "name": "Nora", "content": "Tariq is back from Glasgow"}], scope=SCOPE, llm=None)
    assert "Tariq" not in entities_of(memory)


def test_the_turns_and_the_names_they_give_are_embedded_in_one_call(neo4j, schema, embedder, tenant):
    from graphmem import HashingEmbedder

    class Counting(HashingEmbedder):
        calls: ClassVar[list[int]] = []

        def embed_documents(self, texts):
            self.calls.append(len(texts))
            return super().embed_documents(texts)

    counting = Counting(embedder.dimensions)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=counting) as m:
        result = m.ingest([{"role": "user", "name": "Samira", "content": "My brother Tariq flew in from Glasgow"}],
                          scope=SCOPE, llm=None)
        # one call: the turn, and the names of Samira and what it names (Tariq, Glasgow)
        assert counting.calls == [1 + len(result.entities_created)] and len(result.entities_created) >= 2


def test_names_resolve_and_seed_recall_through_a_nested_scope(memory, driver):
    """Two levels down, the ancestors' entities are visible: a turn naming one links to it
    (no second entity of that name), a speaker's short form said in a later batch resolves
    to the stored speaker, and a question asked there is seeded by the name."""
    deep = "family/cousins/nora"
    tariq = memory.upsert_entity("Tariq", type="person", scope="family")
    memory.ingest([{"role": "user", "name": "Samira Haddad", "content": "Tariq called me from Glasgow"}],
                  scope=deep, llm=None)
    memory.ingest([{"role": "user", "name": "Nora", "content": "Sam is coming to the wedding too"}],
                  scope=deep, llm=None)
    rows = driver.execute_query("MATCH (m:Episode {tenant: $t})-[:MENTIONS]->(e:Entity) RETURN m.text AS text, "
                                "e.id AS id, e.name AS name", {"t": memory.tenant}).records
    named: dict[str, set[tuple[str, str]]] = {}
    for r in rows:
        named.setdefault(r["text"], set()).add((r["id"], r["name"]))
    assert (tariq.id, "Tariq") in named["Tariq called me from Glasgow"]
    assert "Samira Haddad" in {name for _, name in named["Sam is coming to the wedding too"]}
    assert count(driver, "MATCH (e:Entity {tenant: $t, nameKey: 'tariq'}) RETURN count(e) AS n", memory.tenant) == 1
    found = memory.recall("Tariq", scope=deep, min_relevance=-1.0)
    assert any(r.record.text == "Tariq called me from Glasgow" and r.parts.entity > 0 for r in found)
