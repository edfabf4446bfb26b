"""What a new user meets in the first hour (issue 17), each against a real Neo4j: semantic
recall by default, nothing for an unrelated question, no duplicates, store now and extract
later, recall filtered by user, agent and session."""

from __future__ import annotations

import warnings

import pytest
from langchain_core.messages import AIMessage

from graphmem import DEFAULT_EMBEDDER, InvalidInputError, Memory, WordLlamaEmbedder
from tests.fakes import scripted, tool_answer
from tests.integration.helpers import utc


@pytest.fixture
def default_memory(neo4j, schema, tenant):
    """``Memory()`` as a user writes it: no embedder argument."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant) as m:
        yield m


def test_memory_embeds_with_wordllama_by_default(default_memory):
    assert isinstance(default_memory._store.embedder.wrapped, WordLlamaEmbedder)
    assert repr(DEFAULT_EMBEDDER) == "DEFAULT_EMBEDDER"


def test_a_question_in_other_words_finds_the_fact(default_memory):
    default_memory.remember("Alice adopted a puppy", scope="home/alice")
    default_memory.remember("Alice works as a nurse", scope="home/alice")
    hits = default_memory.recall("what pet does she own?", scope="home/alice")
    assert hits and hits[0].record.text == "Alice adopted a puppy"
    assert "Alice adopted a puppy" in default_memory.context("what pet does she own?", scope="home/alice")


def test_without_an_embedder_recall_is_lexical_and_says_so_once(neo4j, schema, tenant):
    import graphmem._memory.core as core

    core._told_lexical_only = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=None).close()
        Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=None).close()
    told = [w for w in caught if "full-text search only" in str(w.message)]
    assert len(told) == 1
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=None) as lexical:
        lexical.remember("Alice adopted a puppy", scope="s")
        assert lexical.recall("what pet does she own?", scope="s") == []  # no shared word, no vectors
        assert lexical.recall("puppy", scope="s")[0].record.text == "Alice adopted a puppy"


@pytest.mark.parametrize("size", [5, 300])
def test_an_unrelated_question_gets_nothing(default_memory, size):
    facts = ["Alice lives in Paris", "Alice likes green tea", "Alice adopted a puppy", "Alice works as a nurse",
             "Alice's brother is called Tom"]
    default_memory.remember_many([{"text": f"{facts[i % 5]} (note {i})" if i >= 5 else facts[i], "scope": "home/alice"}
                                  for i in range(size)])
    assert default_memory.recall("what's the capital of Mongolia?", scope="home/alice") == []
    assert default_memory.context("what's the capital of Mongolia?", scope="home/alice") == ""
    assert default_memory.recall("where does Alice live?", scope="home/alice", k=1)[0].record.text.startswith(
        "Alice lives in Paris")
    # the floor is the caller's to move
    assert default_memory.recall("what's the capital of Mongolia?", scope="home/alice", min_relevance=-1.0)
    with pytest.raises(InvalidInputError) as info:
        default_memory.recall("x", scope="home/alice", min_relevance=3)
    assert info.value.field == "min_relevance"


def test_the_same_text_remembered_twice_is_stored_once(memory, driver):
    first = memory.remember("Alice likes green tea", scope="s")
    again = memory.remember("alice likes green tea.", scope="s")
    assert again.id == first.id
    batch = memory.remember_many([{"text": "Bob likes coffee", "scope": "s"}, {"text": "Bob likes coffee", "scope": "s"}])
    assert batch[0].id == batch[1].id
    # not duplicates: another scope, provenance, or stated start
    assert memory.remember("Alice likes green tea", scope="s/t").id != first.id
    assert memory.remember("Alice likes green tea", scope="s", provenance="user").id != first.id
    assert memory.remember("Alice likes green tea", scope="s", valid_from=utc(2020)).id != first.id
    records, _, _ = driver.execute_query("MATCH (m:Fact {tenant: $t}) RETURN count(m) AS n", t=memory.tenant)
    assert records[0]["n"] == 5


def _extraction() -> AIMessage:
    return tool_answer("Extraction", {
        "entities": [{"name": "Maria", "type": "person", "aliases": []}, {"name": "Lisbon", "type": "city", "aliases": []}],
        "facts": [{"subject": "Maria", "predicate": "lives_in", "object": "Lisbon", "object_is_entity": True,
                   "text": "Maria lives in Lisbon", "valid_from": None, "corrects": False, "messages": [1],
                   "single_valued": True}],
    })


CHAT = [{"role": "user", "content": "I live in Lisbon", "occurred_at": utc(2026, 3, 1, 10)},
        {"role": "assistant", "content": "Lisbon is lovely", "occurred_at": utc(2026, 3, 1, 11)}]


def test_ingesting_the_same_chat_twice_stores_each_message_once(memory, driver):
    first = memory.ingest(CHAT, scope="crm/maria", llm=None, session_id="chat-1")
    second = memory.ingest(CHAT, scope="crm/maria", llm=scripted(_extraction()), session_id="chat-1")
    assert first.episode_ids == second.episode_ids and len(set(first.episode_ids)) == 2
    records, _, _ = driver.execute_query("MATCH (m:Episode {tenant: $t}) RETURN count(m) AS n", t=memory.tenant)
    assert records[0]["n"] == 2
    assert [f.text for f in second.facts] == ["Maria lives in Lisbon"]


def test_store_now_extract_later(memory):
    stored = memory.ingest(CHAT, scope="crm/maria", llm=None, session_id="chat-2")
    assert stored.facts == ()
    result = memory.extract(scope="crm/maria", llm=scripted(_extraction()), session_id="chat-2")
    assert [f.text for f in result.facts] == ["Maria lives in Lisbon"]
    assert result.episode_ids == stored.episode_ids
    fact = result.facts[0]
    assert memory.evidence(fact.id).has_edge(fact.id, stored.episode_ids[0])  # DERIVED_FROM the stored message
    again = memory.extract(scope="crm/maria", llm=scripted(_extraction()), session_id="chat-2")
    assert again.facts == () and again.skipped[0].reason.startswith("restates")
    assert memory.extract(scope="crm/maria", llm=scripted(_extraction()), session_id="nope").notes == (
        "no stored episodes matched",)
    with pytest.raises(InvalidInputError) as info:
        memory.extract(scope="crm/maria", llm=scripted(_extraction()))
    assert info.value.field == "session_id"


def test_recall_filters_by_user_agent_and_session(memory):
    memory.add_episode("I love hiking in the Alps", scope="app", user_id="u1", agent_id="a1", session_id="s1")
    memory.add_episode("I love hiking in the Andes", scope="app", user_id="u2", agent_id="a1", session_id="s2")
    memory.add_episode("I love hiking in Norway", scope="app", user_id="u1", agent_id="a2", session_id="s3")
    texts = lambda **who: sorted(r.record.text for r in memory.recall("hiking", scope="app", **who))  # noqa: E731
    assert texts(user_id="u1") == ["I love hiking in Norway", "I love hiking in the Alps"]
    assert texts(agent_id="a1") == ["I love hiking in the Alps", "I love hiking in the Andes"]
    assert texts(session_id="s2") == ["I love hiking in the Andes"]
    assert texts(user_id="u2", session_id="s1") == []
    assert "Andes" in memory.context("hiking", scope="app", user_id="u2")
    assert "Alps" not in memory.context("hiking", scope="app", user_id="u2")


def test_facts_history_and_forget_take_the_names_people_use(memory):
    extraction = tool_answer("Extraction", {
        "entities": [{"name": "Carol Díaz", "type": "person", "aliases": ["Caro"]},
                     {"name": "Denver", "type": "city", "aliases": []}],
        "facts": [{"subject": "Carol Díaz", "predicate": "lives_in", "object": "Denver", "object_is_entity": True,
                   "text": "Carol Díaz lives in Denver", "valid_from": None, "corrects": False, "messages": [1],
                   "single_valued": True},
                  {"subject": "Carol Díaz", "predicate": "likes", "object": "climbing", "object_is_entity": False,
                   "text": "Carol Díaz likes climbing", "valid_from": None, "corrects": False, "messages": [1],
                   "single_valued": False}],
    })
    memory.ingest([{"role": "user", "content": "I'm Carol Díaz (Caro), I live in Denver and love climbing"}],
                  scope="crm/carol", llm=scripted(extraction))
    memory.remember("Bob likes jazz", scope="crm/carol", subject="bob", predicate="likes", object="jazz")
    for name in ("Carol Díaz", "carol diaz", "CAROL DIAZ", "Caro"):
        assert sorted(f.text for f in memory.facts(scope="crm/carol", subject=name)) == [
            "Carol Díaz likes climbing", "Carol Díaz lives in Denver"], name
    lives = memory.facts(scope="crm/carol", subject="carol diaz", predicate="lives_in")[0]
    assert (lives.subject_name, lives.object_name) == ("Carol Díaz", "Denver")
    assert lives.subject != "Carol Díaz"  # the id stays the id
    assert [f.text for f in memory.facts(scope="crm/carol", subject="Bob")] == ["Bob likes jazz"]
    assert [f.object_name for f in memory.history(subject="caro", predicate="lives_in", scope="crm/carol")] == ["Denver"]
    assert memory.facts(scope="crm/other", subject="Carol Díaz") == []  # names resolve in visible scopes only
    assert memory.forget(scope="crm/carol", subject="Caro", predicate="likes") == 1
    assert [f.text for f in memory.facts(scope="crm/carol", subject="Carol Díaz")] == ["Carol Díaz lives in Denver"]


def test_preferences_and_profile_predicates_replace_each_other(memory):
    for predicate, old, new in [("prefers_contact", "email", "phone"), ("favorite_drink", "tea", "coffee"),
                                ("milk_preference", "oat milk", "almond milk"), ("timezone", "UTC", "CET"),
                                ("diet", "vegetarian", "vegan"), ("preferred_language", "en", "pt")]:
        memory.remember(f"Dan {predicate} {old}", scope="u/dan", subject="dan", predicate=predicate, object=old,
                        valid_from=utc(2025))
        memory.remember(f"Dan {predicate} {new}", scope="u/dan", subject="dan", predicate=predicate, object=new,
                        valid_from=utc(2026))
        assert [f.object for f in memory.facts(scope="u/dan", subject="dan", predicate=predicate)] == [new], predicate
    memory.remember("Dan likes jazz", scope="u/dan", subject="dan", predicate="likes", object="jazz")
    memory.remember("Dan likes hiking", scope="u/dan", subject="dan", predicate="likes", object="hiking")
    assert len(memory.facts(scope="u/dan", subject="dan", predicate="likes")) == 2  # many-valued stays so


def test_extraction_marks_a_replaced_value(neo4j, schema, embedder, tenant):
    """"I switched to almond milk": the model says the statement replaces a value of a
    many-valued predicate and the judge says which earlier value it replaced."""
    from tests.integration.helpers import Clock

    def milk(name: str, replaces: bool) -> AIMessage:
        return tool_answer("Extraction", {
            "entities": [{"name": "Eva", "type": "person", "aliases": []}],
            "facts": [{"subject": "Eva", "predicate": "likes", "object": name, "object_is_entity": False,
                       "text": f"Eva likes {name}", "valid_from": None, "corrects": False, "messages": [1],
                       "single_valued": None, "replaces": replaces}]})

    clock = Clock(utc(2026, 1, 5))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        memory.ingest([{"role": "user", "content": "I take oat milk in my coffee"}], scope="u/eva",
                      llm=scripted(milk("oat milk", False)))
        memory.remember("Eva likes jazz", scope="u/eva", subject=memory.facts(scope="u/eva")[0].subject,
                        predicate="likes", object="jazz", provenance="extraction")
        clock.now = utc(2026, 3, 1)
        judge = tool_answer("Judgement", {"verdicts": [{"pair": 1, "contradicts": True},
                                                       {"pair": 2, "contradicts": False}]})
        result = memory.ingest([{"role": "user", "content": "I switched to almond milk"}], scope="u/eva",
                               llm=scripted(milk("almond milk", True), judge))
        current = sorted(f.object for f in memory.facts(scope="u/eva", predicate="likes"))
        assert current == ["almond milk", "jazz"]
        oat = next(f for f in memory.history(subject="Eva", predicate="likes", scope="u/eva") if f.object == "oat milk")
        assert oat.invalidated_at is None and oat.valid_to == utc(2026, 3, 1)  # the world changed; still history
        assert oat.id in result.superseded
        assert result.facts[0].single_valued is True


def _pasted_log(middle: str) -> str:
    """About 40,000 characters of a service log with one line about something else."""
    import random

    rng = random.Random(3)
    services = ["auth", "billing", "search", "gateway", "cache"]
    lines = [f"2026-11-0{1 + i % 9}T10:{i % 60:02d}:00Z INFO {rng.choice(services)} request {i} served in "
             f"{rng.randint(3, 90)} ms" for i in range(700)]
    lines.insert(350, middle)
    return "\n".join(lines)


@pytest.mark.long  # make test-reliability: inputs at volume
def test_a_pasted_40000_character_log_is_stored_whole_and_found_by_its_middle(default_memory, driver):
    log = _pasted_log("the database migration failed because the disk of the replica was full")
    assert len(log) > 40_000
    episode = default_memory.add_episode(log, scope="ops", role="user")
    assert default_memory.get(episode.id).text == log
    hits = default_memory.recall("why did the migration fail?", scope="ops", k=3)
    assert hits and hits[0].record.id == episode.id
    assert default_memory.recall("replica disk full", scope="ops", k=1)[0].record.id == episode.id  # its words
    records, _, _ = driver.execute_query(
        "MATCH (c:Chunk {tenant: $t})-[:PART_OF]->(e:Episode {id: $id}) RETURN count(c) AS n",
        t=default_memory.tenant, id=episode.id)
    assert records[0]["n"] >= 25
    assert default_memory.forget(scope="ops", id=episode.id) == 1
    assert default_memory.recall("why did the migration fail?", scope="ops") == []  # its windows go with it


@pytest.mark.long  # make test-reliability: inputs at volume
def test_episodes_take_a_megabyte_and_other_records_keep_their_limit(memory):
    from graphmem import MAX_EPISODE_LENGTH, MAX_TEXT_LENGTH

    assert MAX_EPISODE_LENGTH >= 1_000_000 and MAX_TEXT_LENGTH == 32_000
    with pytest.raises(InvalidInputError) as info:
        memory.add_episode("x" * (MAX_EPISODE_LENGTH + 1), scope="s")
    assert info.value.field == "content"
    with pytest.raises(InvalidInputError) as info:
        memory.remember("y" * (MAX_TEXT_LENGTH + 1), scope="s")
    assert info.value.field == "text"
    result = memory.ingest([{"role": "user", "content": "z " * 30_000}], scope="s", llm=None)
    assert len(result.episodes[0].text) == 60_000


def test_erase_leaves_no_empty_scope_and_takes_an_episodes_windows(memory, driver):
    memory.remember("Maria banks in Portugal", scope="crm/maria-silva", user_id="maria")
    memory.add_episode(_pasted_log("Maria's account number is on line 350"), scope="crm/maria-silva",
                       user_id="maria")
    memory.remember("Bob likes jazz", scope="crm/bob")
    count = lambda q: driver.execute_query(q, t=memory.tenant).records[0]["n"]  # noqa: E731
    windows = count("MATCH (c:Chunk {tenant: $t}) RETURN count(c) AS n")
    assert windows > 20
    # with them the entities only her episode gave: its speaker (the user "maria") and the Maria it names
    assert memory.erase(user_id="maria").by_kind == {"fact": 1, "episode": 1, "entity": 2, "chunk": windows, "scope": 1}
    assert count("MATCH (s:Scope {tenant: $t}) WHERE s.path CONTAINS 'maria' RETURN count(s) AS n") == 0
    assert count("MATCH (c:Chunk {tenant: $t}) RETURN count(c) AS n") == 0
    assert [s["path"] for s in memory.scopes()] == ["crm", "crm/bob"]
    assert memory.erase(scope="crm").total == 1 and memory.scopes() == []
