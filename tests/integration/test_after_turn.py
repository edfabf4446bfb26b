"""after_turn: the turn is stored before the call returns, extraction (facts, entities,
profile, a procedure from tool calls) runs behind the caller, failures come out as events
and in the result, never lost."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphmem import AsyncMemory, ExtractionTimeoutError, InvalidInputError, Memory, MemoryEvent, TurnResult

from ..fakes import ScriptedChatModel, extraction, scripted

SCOPE = "acme/chat"


ANN_TURN = [
    {"role": "user", "content": "Hi, I'm Ann. I work as a nurse in Porto and I love hiking."},
    {"role": "assistant", "content": "Nice to meet you, Ann!"},
]
ANN_EXTRACTION = extraction(
    entities=[{"name": "Ann", "type": "person", "aliases": []}],
    facts=[{"subject": "Ann", "predicate": "likes", "object": "hiking", "object_is_entity": False,
            "text": "Ann loves hiking.", "messages": [1]}],
    profile={"name": "Ann", "role": "nurse", "location": "Porto"},
)


class GatedModel(ScriptedChatModel):
    """A scripted model that answers only once the test opens its gate: proof that the
    caller did not wait for it."""

    gate: Any = None

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        assert self.gate.wait(30), "the test never opened the gate"
        return super()._generate(*args, **kwargs)


def blocked(*replies):
    gate = threading.Event()
    return GatedModel(messages=iter(replies), gate=gate), gate


def test_the_turn_is_stored_at_once_and_extraction_runs_behind_the_caller(neo4j, schema, embedder, tenant):
    events: list[MemoryEvent] = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=events.append) as memory:
        model, gate = blocked(ANN_EXTRACTION)
        started = time.monotonic()
        handle = memory.after_turn(ANN_TURN, scope=SCOPE, llm=model, session_id="s1", user_id="ann")
        assert time.monotonic() - started < 10
        # stored before the model answered: the window already shows the turn
        assert not handle.done()
        assert [m.text for m in memory.messages("s1", scope=SCOPE)] == [m["content"] for m in ANN_TURN]
        assert [e.id for e in handle.episodes] == [m.id for m in memory.messages("s1", scope=SCOPE)]
        assert memory.facts(scope=SCOPE, subject="Ann") == []
        gate.set()
        result = handle.result(timeout=60)
    assert isinstance(result, TurnResult) and result.ok
    assert [f.text for f in result.extraction.facts if not f.predicate.startswith("profile_")] == ["Ann loves hiking."]
    assert sorted(result.extraction.profile) == ["location", "name", "role"]
    done = [e for e in events if e.kind == "extraction_done"]
    assert len(done) == 1 and done[0].ids == tuple(e.id for e in handle.episodes)
    assert done[0].detail["facts"] == len(result.extraction.facts) and done[0].tenant == tenant


def test_ingest_with_a_model_fills_the_profile_but_never_replaces_a_persons_value(memory):
    memory.set_profile("ann", scope=SCOPE, name="Ann Lee")
    result = memory.ingest(ANN_TURN, scope=SCOPE, llm=scripted(ANN_EXTRACTION), session_id="s2", user_id="ann")
    assert sorted(result.profile) == ["location", "role"]  # the name was Ann's own
    profile = memory.profile("ann", scope=SCOPE)
    assert (profile.name, profile.role, profile.location) == ("Ann Lee", "nurse", "Porto")
    role = memory.get(profile.facts["role"])
    assert role.provenance.value == "extraction"
    trail = memory.evidence(role.id)
    assert {e for e in result.episode_ids if trail.has_edge(role.id, e)} == set(result.episode_ids)
    # the next turn changes the location: the profile field has its history
    moved = extraction(profile={"location": "Lisbon"})
    memory.ingest([{"role": "user", "content": "I moved to Lisbon last week."}], scope=SCOPE,
                  llm=scripted(moved), session_id="s2", user_id="ann")
    assert memory.profile("ann", scope=SCOPE).location == "Lisbon"
    assert [f.object for f in memory.profile_history("ann", "location", scope=SCOPE)] == ["Porto", "Lisbon"]
    # without a user the profile is left alone
    other = memory.ingest(ANN_TURN, scope=SCOPE, llm=scripted(ANN_EXTRACTION), session_id="s3")
    assert other.profile == ()


def test_a_failed_extraction_is_an_event_and_the_messages_are_kept(neo4j, schema, embedder, tenant):
    events: list[MemoryEvent] = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=events.append) as memory:
        broken = scripted(*["not json"] * 5)
        handle = memory.after_turn(ANN_TURN, scope=SCOPE, llm=broken, session_id="s1", user_id="ann")
        [result] = memory.await_extractions(timeout=60)
        assert handle.done() and result == handle.result()
        assert not result.ok and "extraction" in result.errors[0]
        assert result.extraction is not None and result.extraction.error is not None
        assert len(memory.messages("s1", scope=SCOPE)) == 2  # the turn is kept
        failed = [e for e in events if e.kind == "extraction_failed"]
        assert len(failed) == 1 and failed[0].ids == tuple(e.id for e in handle.episodes) and failed[0].error
        assert not [e for e in events if e.kind == "extraction_done"]


def test_a_database_failure_in_the_background_is_reported_not_raised(neo4j, schema, embedder, tenant):
    events: list[MemoryEvent] = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=events.append) as memory:
        model = scripted(ANN_EXTRACTION)

        def boom(*args, **kwargs):
            raise RuntimeError("the disk is full")

        memory._extractions.extract_reported = boom  # stands for a failure below graphmem's model handling
        result = memory.after_turn(ANN_TURN, scope=SCOPE, llm=model, session_id="s1").result(timeout=60)
        assert result.errors == ("extraction: RuntimeError: the disk is full",)
        # the turn's messages were written (remembered), then the extraction failed
        assert [e.kind for e in events] == ["remembered", "extraction_failed"] and "disk is full" in events[1].error
        assert {e.id for e in result.episodes} <= set(events[0].ids) and events[0].detail["kinds"]["episode"] == 2


def test_tool_calls_in_a_turn_become_a_quarantined_procedure(memory):
    turn = [
        HumanMessage("Book me a table for two at Tasca tonight."),
        AIMessage("", tool_calls=[{"name": "find_restaurant", "args": {"name": "Tasca"}, "id": "c1"}]),
        ToolMessage('{"id": "r-17"}', tool_call_id="c1"),
        AIMessage("", tool_calls=[{"name": "book_table", "args": {"restaurant": "r-17", "people": 2}, "id": "c2"}]),
        ToolMessage('{"status": "booked"}', tool_call_id="c2"),
        AIMessage("Booked: Tasca, two people, tonight."),
    ]
    result = memory.after_turn(turn, scope=SCOPE, session_id="s1").result(timeout=60)  # no model: the deterministic inducer
    assert result.ok and result.extraction is None
    procedure = result.procedure
    assert procedure is not None and procedure.status.value == "quarantined"
    assert [s.split("(")[0] for s in procedure.steps] == ["find_restaurant", "book_table"]
    assert len(memory.messages("s1", scope=SCOPE)) == 6
    # a turn without tools or model has nothing to learn: done at once
    quiet = memory.after_turn([{"role": "user", "content": "thanks!"}], scope=SCOPE, session_id="s1")
    assert quiet.done() and quiet.result() == TurnResult(episodes=quiet.episodes)


def test_turns_are_learned_in_order_and_close_waits_for_them(neo4j, schema, embedder, tenant):
    first = extraction(entities=[{"name": "Ann", "type": "person", "aliases": []}],
                       facts=[{"subject": "Ann", "predicate": "lives_in", "object": "Porto", "object_is_entity": False,
                               "text": "Ann lives in Porto.", "messages": [1], "single_valued": True}])
    second = extraction(entities=[{"name": "Ann", "type": "person", "aliases": []}],
                        facts=[{"subject": "Ann", "predicate": "lives_in", "object": "Lisbon",
                                "object_is_entity": False, "text": "Ann lives in Lisbon.", "messages": [1],
                                "single_valued": True}])
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        memory.after_turn([{"role": "user", "content": "I live in Porto."}], scope=SCOPE, llm=scripted(first),
                          session_id="s1")
        memory.after_turn([{"role": "user", "content": "I moved to Lisbon."}], scope=SCOPE, llm=scripted(second),
                          session_id="s1")
    # close() let both finish, the second after the first: Lisbon is the current value
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as again:
        current = again.facts(scope=SCOPE, subject="Ann", predicate="lives_in")
        assert [f.object for f in current] == ["Lisbon"]
        assert [f.object for f in again.history(subject="Ann", predicate="lives_in", scope=SCOPE)] == ["Porto", "Lisbon"]


def test_bad_input_is_refused_before_anything_is_stored(memory):
    with pytest.raises(InvalidInputError) as info:
        memory.after_turn(ANN_TURN, scope=SCOPE, llm="gpt", session_id="s1")
    assert info.value.field == "llm"
    with pytest.raises(InvalidInputError) as info:
        memory.after_turn(ANN_TURN, scope=SCOPE, timezone="Mars/Olympus", session_id="s1")
    assert info.value.field == "timezone"
    with pytest.raises(InvalidInputError) as info:
        memory.after_turn(ANN_TURN, scope=SCOPE, learn_procedures="yes", session_id="s1")
    assert info.value.field == "learn_procedures"
    with pytest.raises(InvalidInputError):
        memory.await_extractions(timeout=-1)
    assert memory.messages("s1", scope=SCOPE) == []


def test_a_wait_that_times_out_says_so_and_the_work_goes_on(memory):
    model, gate = blocked(ANN_EXTRACTION)
    handle = memory.after_turn(ANN_TURN, scope=SCOPE, llm=model, session_id="s1", user_id="ann")
    with pytest.raises(ExtractionTimeoutError):
        memory.await_extractions(timeout=0.2)
    with pytest.raises(ExtractionTimeoutError):
        handle.result(timeout=0.1)
    gate.set()
    assert handle.result(timeout=60).ok


def test_the_async_memory_learns_in_tasks_on_the_callers_loop(neo4j, schema, embedder, tenant):
    async def main():
        events: list[MemoryEvent] = []
        async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                               on_event=events.append) as memory:
            handle = await memory.after_turn(ANN_TURN, scope=SCOPE, llm=scripted(ANN_EXTRACTION), session_id="s1",
                                             user_id="ann")
            assert len(await memory.messages("s1", scope=SCOPE)) == 2
            [result] = await memory.await_extractions(timeout=60)
            assert result.ok and result == await handle.result()
            assert (await memory.profile("ann", scope=SCOPE)).role == "nurse"
            return events

    events = asyncio.run(main())
    # the turn's messages, then what the extraction wrote, then its report
    assert [e.kind for e in events] == ["remembered", "remembered", "extraction_done"]
    assert events[1].detail["kinds"]["fact"] >= 1
