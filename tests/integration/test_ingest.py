"""ingest() against a real Neo4j with scripted langchain-core chat models: extraction,
entity resolution, time expressions, scoped contradiction handling, failures, tombstones,
concurrency, and an end-to-end "where does X live" scenario."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphmem import AsyncMemory, InvalidInputError, LearningSettings, Memory
from tests.fakes import ScriptedChatModel, extraction, scripted, tool_answer
from tests.integration.helpers import utc


def judgement(*verdicts: tuple[int, bool]) -> AIMessage:
    return tool_answer("Judgement", {"verdicts": [{"pair": p, "contradicts": c} for p, c in verdicts]})


def person(name, *aliases):
    return {"name": name, "type": "person", "aliases": list(aliases)}


def fact(subject, predicate, obj, text, *, entity=False, when=None, corrects=False, messages=(), single=None):
    return {"subject": subject, "predicate": predicate, "object": obj, "object_is_entity": entity, "text": text,
            "valid_from": when, "corrects": corrects, "messages": list(messages), "single_valued": single}


def count(driver, query: str, **params) -> int:
    records, _, _ = driver.execute_query(query, params)
    return records[0][0]


CONVERSATION = [
    {"role": "user", "content": "Hi, I'm Maria Silva."},
    {"role": "assistant", "content": "Nice to meet you, Maria! How can I help?"},
    HumanMessage("I live in Lisbon, moved there in 2019."),
    AIMessage("Lisbon is lovely."),
    HumanMessage("I work at Acme as a data engineer."),
    AIMessage("Sounds interesting."),
    HumanMessage("My sister Ana lives in Porto."),
    AIMessage("Do you visit her often?"),
    HumanMessage("Yes, and I love jazz, we go to concerts together."),
    AIMessage("Great, I'll remember that."),
]
EXTRACTED = extraction(
    entities=[person("Maria Silva"), {"name": "Lisbon", "type": "City"}, {"name": "Acme", "type": "organization"},
              person("Ana"), {"name": "Porto", "type": "city"}, person("maria silva")],
    facts=[
        fact("Maria Silva", "lives in", "Lisbon", "Maria Silva lives in Lisbon", entity=True, when="2019", messages=[3]),
        fact("Maria Silva", "Works At", "Acme", "Maria Silva works at Acme", entity=True, messages=[5]),
        fact("Maria Silva", "job_title", "data engineer", "Maria Silva is a data engineer", messages=[5]),
        fact("Maria Silva", "sister", "Ana", "Ana is Maria Silva's sister", entity=True, messages=[7]),
        fact("Ana", "lives_in", "Porto", "Ana lives in Porto", entity=True, messages=[7]),
        fact("Maria Silva", "likes", "jazz", "Maria Silva loves jazz", messages=[9]),
        fact("Nobody", "likes", "x", "Nobody likes x"),
    ],
)


def conversation(memory, llm, when=utc(2022, 6, 1)):
    return memory.ingest(CONVERSATION, scope="crm/maria", llm=llm, occurred_at=when, session_id="s1", user_id="maria")


def test_a_ten_turn_conversation_becomes_entities_facts_and_relations(memory, driver):
    llm = scripted(EXTRACTED)
    result = conversation(memory, llm)
    assert llm.calls == result.model_calls == 1 and result.error is None
    assert len(result.episodes) == 10
    # the model's entities, and the speakers' (the user "maria" by her id, the assistant) written with the episodes
    assert sorted((e.type, e.name) for e in result.entities_created) == [
        ("agent", "assistant"), ("city", "Lisbon"), ("city", "Porto"), ("organization", "Acme"), ("person", "Ana"),
        ("person", "Maria Silva"), ("user", "maria")]
    facts = {f.predicate: f for f in result.facts if f.text.startswith("Maria")}
    assert len(result.facts) == 6 and all(f.provenance.value == "extraction" for f in result.facts)
    assert facts["works_at"].object == next(e.id for e in result.entities_created if e.name == "Acme")
    assert facts["job_title"].object == "data engineer" and facts["job_title"].single_valued
    assert facts["likes"].single_valued is False
    assert facts["lives_in"].valid_from == utc(2019)
    assert [s.reason for s in result.skipped] == ["subject 'Nobody' is not one of the extracted entities"]
    t = memory.tenant
    assert count(driver, "MATCH (:Entity {tenant: $t})-[r:RELATES]->(:Entity {tenant: $t}) RETURN count(r)", t=t) == 4
    assert count(driver, "MATCH (f:Fact {tenant: $t, predicate: 'works_at'})-[:DERIVED_FROM]->(e:Episode) "
                         "WHERE e.text STARTS WITH 'I work at Acme' RETURN count(e)", t=t) == 1
    assert count(driver, "MATCH (e:Episode {tenant: $t})-[:MENTIONS]->(:Entity {name: 'Ana'}) RETURN count(e)", t=t) == 1
    assert count(driver, "MATCH (n:Entity {tenant: $t})-[:DERIVED_FROM]->(:Episode) RETURN count(DISTINCT n)", t=t) == 7
    assert count(driver, "MATCH (:Entity {tenant: $t, name: 'maria'})-[:SPOKE]->(e:Episode) RETURN count(e)", t=t) == \
        sum(1 for e in result.episodes if e.role == "user")
    episode = memory.get(result.episodes[2].id)
    assert (episode.role, episode.session_id, episode.user_id) == ("user", "s1", "maria")


def test_a_move_closes_valid_time_and_time_travel_answers_from_the_graph(memory):
    conversation(memory, scripted(EXTRACTED))
    maria = memory.upsert_entity("Maria Silva", type="person", scope="crm/maria")
    move = scripted(extraction(
        entities=[person("Maria Silva"), {"name": "Porto", "type": "city"}],
        facts=[fact("Maria Silva", "lives_in", "Porto", "Maria Silva lives in Porto", entity=True, when="last month")],
    ))
    result = memory.ingest([{"role": "user", "content": "I moved to Porto last month!"}], scope="crm/maria",
                           llm=move, occurred_at=utc(2024, 5, 10))
    assert result.model_calls == 1 and len(result.superseded) == 1
    [porto] = result.facts
    assert porto.valid_from == utc(2024, 4, 1)
    lisbon = memory.get(result.superseded[0])
    assert lisbon.object != porto.object and lisbon.valid_to == utc(2024, 4, 1) and lisbon.believed
    assert [e.name for e in result.entities_merged] == ["Maria Silva", "Porto"]  # resolved, not duplicated

    def where(**when):
        hits = memory.recall("where does Maria Silva live", scope="crm/maria", kinds=["fact"], **when)
        return next(h.record.text for h in hits if h.record.predicate == "lives_in" and h.record.subject == maria.id)

    assert where() == "Maria Silva lives in Porto"
    assert where(valid_at=utc(2022, 7, 1)) == "Maria Silva lives in Lisbon"


def test_a_correction_retires_the_wrong_extraction(memory):
    first = conversation(memory, scripted(EXTRACTED))
    acme = next(f for f in first.facts if f.predicate == "works_at")
    llm = scripted(extraction(
        entities=[person("Maria Silva"), {"name": "Globex", "type": "organization"}],
        facts=[fact("Maria Silva", "works_at", "Globex", "Maria Silva works at Globex", entity=True, corrects=True)],
    ))
    result = memory.ingest([HumanMessage("Sorry, I misspoke: I never worked at Acme, it's Globex.")],
                           scope="crm/maria", llm=llm)
    assert result.invalidated == (acme.id,) and result.model_calls == 1
    old = memory.get(acme.id)
    assert old.invalidation_reason == "corrected" and old.superseded_by[0].by == result.facts[0].id


def test_entities_resolve_by_casing_alias_and_similarity_and_grey_pairs_become_same_as(neo4j, schema, embedder, tenant, driver):
    settings = LearningSettings(entity_merge_threshold=0.7, entity_candidate_threshold=0.6)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, learning=settings) as m:
        maria = m.upsert_entity("Maria Silva", type="person", scope="crm", aliases=["Mimi"])
        llm = scripted(extraction(
            entities=[person("MARIA  SILVA"), person("Mimi", "M. Silva"), person("Maria"), person("Mario Silva")],
            facts=[fact("Mimi", "likes", "tea", "Maria Silva likes tea")],
        ))
        result = m.ingest([HumanMessage("Mimi here (Maria), and my cousin Mario Silva says hi")], scope="crm/maria", llm=llm)
        assert {e.id for e in result.entities_merged} == {maria.id}
        # the speaker of the message (the user, by role) first, written with the episode
        assert [e.name for e in result.entities_created] == ["user", "Mario Silva"]
        [candidate] = result.same_as
        assert candidate.candidate == maria.id and 0.6 <= candidate.similarity < 0.7
        assert result.facts[0].subject == maria.id
        stored = m.get(maria.id)
        assert {"Mimi", "M. Silva", "Maria"} <= set(stored.aliases)
        assert count(driver, "MATCH (:Entity {tenant: $t, name: 'Mario Silva'})-[s:SAME_AS {status: 'candidate'}]->"
                             "(:Entity {id: $id}) RETURN count(s)", t=tenant, id=maria.id) == 1
        assert count(driver, "MATCH (e:Entity {tenant: $t}) WHERE e.nameKey = 'maria silva' RETURN count(e)", t=tenant) == 1


def test_contradictions_are_scoped_to_the_subject_and_judged_only_in_the_grey_band(memory):
    setup = scripted(extraction(
        entities=[person("Alice"), person("Bob")],
        facts=[fact("Alice", "likes", "jazz", "Alice likes jazz"), fact("Bob", "likes", "opera", "Bob likes opera")],
    ))
    first = memory.ingest([HumanMessage("Alice likes jazz and Bob likes opera")], scope="s", llm=setup)
    alice_jazz, bob_opera = first.facts
    said = memory.remember("Alice likes opera", scope="s", subject=alice_jazz.subject, predicate="likes",
                           object="opera", provenance="user")
    other = scripted(extraction(entities=[person("Bob")], facts=[fact("Bob", "dislikes", "jazz", "Bob hates jazz")]))
    result = memory.ingest([HumanMessage("Bob hates jazz")], scope="s", llm=other)
    assert result.model_calls == 1 and other.calls == 1 and result.invalidated == ()  # Alice's fact is not a candidate
    assert memory.get(alice_jazz.id).believed
    grey = scripted(
        extraction(entities=[person("Alice")], facts=[
            fact("Alice", "dislikes", "jazz", "Alice hates jazz"), fact("Alice", "dislikes", "opera", "Alice hates opera")]),
        judgement((1, True)),
    )
    result = memory.ingest([HumanMessage("Alice says she hates jazz and opera now")], scope="s", llm=grey)
    assert result.model_calls == grey.calls == 2
    assert result.invalidated == (alice_jazz.id,)
    assert memory.get(alice_jazz.id).invalidation_reason == "contradicted"
    assert memory.get(said.id).believed and memory.get(bob_opera.id).believed  # a person's statement is never retired


def test_restatements_are_skipped_and_forgotten_facts_do_not_come_back(memory):
    tea = lambda: scripted(extraction(entities=[person("Carl")], facts=[fact("Carl", "likes", "tea", "Carl likes tea")]))  # noqa: E731
    first = memory.ingest([HumanMessage("Carl likes tea")], scope="s", llm=tea())
    again = memory.ingest([HumanMessage("Carl really likes tea")], scope="s", llm=tea())
    assert again.facts == () and again.skipped[0].reason == f"restates {first.facts[0].id}"
    memory.forget(scope="s", id=first.facts[0].id)
    third = memory.ingest([HumanMessage("As I said, Carl likes tea")], scope="s", llm=tea())
    assert third.facts == () and [s.reason for s in third.skipped] == ["forgotten by the user"]
    assert memory.facts(scope="s") == []


def test_malformed_output_is_retried_then_reported_with_the_episodes_kept(memory, driver):
    flaky = scripted("not json", tool_answer("Extraction", {"entities": "nope"}),
                     extraction(entities=[person("Dora")], facts=[fact("Dora", "likes", "chess", "Dora likes chess")]))
    assert len(memory.ingest([HumanMessage("Dora likes chess")], scope="s", llm=flaky).facts) == 1
    assert flaky.calls == 3
    broken = scripted(*["{broken"] * 3)
    result = memory.ingest([HumanMessage("Eve likes golf"), AIMessage("Noted")], scope="s", llm=broken)
    assert result.error and "failed 3 time(s)" in result.error and result.model_calls == 3
    assert len(result.episodes) == 2 and result.facts == ()
    assert count(driver, "MATCH (e:Episode {tenant: $t}) WHERE e.text = 'Eve likes golf' RETURN count(e)", t=memory.tenant) == 1
    assert count(driver, "MATCH (n:Entity {tenant: $t, name: 'Eve'}) RETURN count(n)", t=memory.tenant) == 0


def test_relative_dates_are_resolved_in_the_speakers_timezone(memory):
    llm = scripted(extraction(entities=[person("Finn")], facts=[
        fact("Finn", "started_job_at", "Initech", "Finn started at Initech", when="yesterday"),
        fact("Finn", "adopted", "a cat", "Finn adopted a cat", when="sometime soonish")]))
    late_evening = datetime(2024, 3, 2, 4, 30, tzinfo=timezone.utc)  # 23:30 on 1 March in New York
    result = memory.ingest([HumanMessage("I started at Initech yesterday")], scope="s", llm=llm,
                           occurred_at=late_evening, timezone="America/New_York")
    started = next(f for f in result.facts if f.predicate == "started_job_at")
    assert started.valid_from == datetime(2024, 2, 29, 5, 0, tzinfo=timezone.utc)  # 29 Feb, midnight in New York
    assert any("'sometime soonish' not understood" in n for n in result.notes)


def test_without_a_model_only_episodes_are_stored_and_recallable(memory):
    result = memory.ingest([HumanMessage("Gus plays the cello on weekends")], scope="s", llm=None)
    assert result.facts == () and result.model_calls == 0 and len(result.episodes) == 1
    assert memory.recall("cello", scope="s")[0].record.id == result.episodes[0].id


@pytest.mark.parametrize("messages, kwargs, field", [
    ([], {}, "messages"),
    ([{"role": "robot", "content": "x"}], {}, "messages[0].role"),
    ([{"role": "user", "content": " "}], {}, "messages[0].content"),
    ([{"role": "user", "content": "x", "when": 1}], {}, "messages[0].when"),
    ([{"role": "user", "content": "x"}], {"timezone": "Mars/Olympus"}, "timezone"),
    ([{"role": "user", "content": "x"}], {"occurred_at": datetime(2024, 1, 1)}, "occurred_at"),
    ([{"role": "user", "content": "x"}], {"scope": "a/../b"}, "scope"),
])
def test_bad_input_is_refused_before_anything_is_written(memory, driver, messages, kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        memory.ingest(messages, llm=None, **{"scope": "s", **kwargs})
    assert info.value.field == field
    assert count(driver, "MATCH (e:Episode {tenant: $t}) RETURN count(e)", t=memory.tenant) == 0


class SlowModel(ScriptedChatModel):
    """Answers after a pause and records how many requests were in flight at once."""

    in_flight: int = 0
    peak: int = 0

    async def _agenerate(self, *args, **kwargs):
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.2)
        self.in_flight -= 1
        return await super()._agenerate(*args, **kwargs)


async def test_concurrent_sessions_share_one_limit_on_model_calls(neo4j, schema, embedder, tenant):
    settings = LearningSettings(max_concurrent_model_calls=2)
    llm = SlowModel(messages=iter([extraction(entities=[person(f"P{i}")], facts=[
        fact(f"P{i}", "likes", "tea", f"P{i} likes tea")]) for i in range(5)]))
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                           learning=settings) as m:
        results = await asyncio.gather(*[
            m.ingest([{"role": "user", "content": f"session {i}: I like tea"}], scope="s", llm=llm, session_id=f"s{i}")
            for i in range(5)])
    assert llm.peak == 2 and llm.calls == 5
    assert sorted(r.facts[0].text for r in results) == [f"P{i} likes tea" for i in range(5)]


def test_a_correction_of_a_multi_valued_fact_is_judged_and_leaves_valid_time_alone(memory):
    first = memory.ingest([HumanMessage("Ivy likes sushi and pizza; Ivy lives in Rome")], scope="s", llm=scripted(extraction(
        entities=[person("Ivy")], facts=[fact("Ivy", "likes", "sushi", "Ivy likes sushi"),
                                         fact("Ivy", "likes", "pizza", "Ivy likes pizza"),
                                         fact("Ivy", "lives_in", "Rome", "Ivy lives in Rome")])))
    sushi, pizza, rome = first.facts
    llm = scripted(
        extraction(entities=[person("Ivy")], facts=[
            fact("Ivy", "likes", "ramen", "Ivy likes ramen", corrects=True),
            fact("Ivy", "lives_in", "Milan", "Ivy lives in Milan", corrects=True)]),
        judgement((1, True), (2, False)),
    )
    result = memory.ingest([HumanMessage("No wait, it's ramen I like, not sushi. And I live in Milan, never Rome.")],
                           scope="s", llm=llm)
    assert result.model_calls == 2
    assert set(result.invalidated) == {sushi.id, rome.id} and memory.get(pizza.id).believed
    corrected = memory.get(rome.id)
    assert corrected.invalidation_reason == "corrected" and corrected.valid_to is None  # not also "closed"
    assert [s.reason for s in corrected.superseded_by] == ["corrected"] and result.superseded == ()


def test_messages_with_ids_are_stored_once_and_tool_call_turns_are_kept(memory, driver):
    turns = [{"role": "user", "content": "Jo likes chess", "id": "m-1"},
             AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"q": "chess"}, "id": "c1"}], id="m-2")]
    first = memory.ingest(turns, scope="s", llm=None)
    again = memory.ingest(turns, scope="s", llm=None)
    assert first.episode_ids == again.episode_ids == ("m-1", "m-2")
    assert count(driver, "MATCH (e:Episode {tenant: $t}) RETURN count(e)", t=memory.tenant) == 2
    assert memory.get("m-2").text == 'calls lookup({"q": "chess"})'
    with pytest.raises(InvalidInputError) as info:
        memory.ingest([HumanMessage("x")], scope="s", llm="gpt-4")
    assert info.value.field == "llm"


async def test_concurrent_sessions_naming_the_same_new_entity_make_one_entity(neo4j, schema, embedder, tenant, driver):
    llm = SlowModel(messages=iter([extraction(entities=[person("Kai")], facts=[
        fact("Kai", "likes", f"tea {i}", f"Kai likes tea number {i}")]) for i in range(3)]))
    # this test is about entity creation racing; no pair may reach the contradiction judge
    settings = LearningSettings(judge_threshold=0.999, duplicate_threshold=0.9999)
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                           learning=settings) as m:
        results = await asyncio.gather(*[
            m.ingest([{"role": "user", "content": f"Kai likes tea number {i}"}], scope="s", llm=llm, session_id=f"s{i}")
            for i in range(3)])
    assert all(r.error is None and len(r.facts) == 1 for r in results)
    assert count(driver, "MATCH (e:Entity {tenant: $t, name: 'Kai'}) RETURN count(e)", t=tenant) == 1
    assert len({r.facts[0].subject for r in results}) == 1


def test_one_statement_said_twice_in_a_conversation_lands_once(memory):
    """The model may extract the same statement from two turns: it is written once, listed
    once, and the repeat is reported as restating it (not as something the user forgot)."""
    tea = fact("Dana", "likes", "tea", "Dana likes tea")
    llm = scripted(extraction(entities=[person("Dana")], facts=[tea, dict(tea)]))
    result = memory.ingest([HumanMessage("Dana likes tea."), HumanMessage("Yes, Dana likes tea.")], scope="twice", llm=llm)
    assert [f.text for f in result.facts] == ["Dana likes tea"]
    assert [s.reason for s in result.skipped] == [f"restates {result.facts[0].id}"]
    assert [f.id for f in memory.facts(scope="twice")] == [result.facts[0].id]
