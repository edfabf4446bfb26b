"""Google ADK's memory service and context tool over graphmem, on a real Neo4j, through
ADK's own Runner with an offline recording model."""

from __future__ import annotations

import pytest
from google.adk.agents import LlmAgent
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.preload_memory_tool import PreloadMemoryTool
from google.genai import types

from graphmem import InvalidInputError
from graphmem.integrations.adk import GraphMemContextTool, GraphMemMemoryService
from tests.frameworks.adk_kit import RecordingModel, user_says

APP = "pets"


async def run(runner, sessions, user, text, session_id=None):
    if session_id is None:
        session_id = (await sessions.create_session(app_name=runner.app_name, user_id=user)).id
    async for _ in runner.run_async(user_id=user, session_id=session_id, new_message=user_says(text)):
        pass
    return session_id


def agent_with(service, model, *, preload=False):
    tools = [PreloadMemoryTool()] if preload else [GraphMemContextTool(service)]
    return LlmAgent(name="helper", model=model, instruction="Be brief.", tools=tools,
                    after_agent_callback=service.remember_session)


async def test_what_one_session_told_is_in_the_next_session_s_system_instruction(either):
    service = GraphMemMemoryService(either)
    model, sessions = RecordingModel(), InMemorySessionService()
    runner = Runner(app_name=APP, agent=agent_with(service, model), session_service=sessions, memory_service=service)
    first = await run(runner, sessions, "ann", "My cat is called Tom.")
    await run(runner, sessions, "ann", "What is my cat called?")
    system = str(model.requests[-1].config.system_instruction)
    assert "My cat is called Tom." in system and "Be brief." in system
    # stored once, though the callback stored the first session again after each run
    place = service.place(APP, "ann", first)
    assert [e.text for e in await service.turns.history(place)] == ["My cat is called Tom.", "ok"]


async def test_adk_s_preload_tool_reads_search_memory(memory):
    service = GraphMemMemoryService(memory, scope="shop")
    model, sessions = RecordingModel(), InMemorySessionService()
    runner = Runner(app_name=APP, agent=agent_with(service, model, preload=True), session_service=sessions,
                    memory_service=service)
    await run(runner, sessions, "ann", "My cat is called Tom.")
    await run(runner, sessions, "ann", "What is my cat called?")
    assert "<PAST_CONVERSATIONS>" in model.prompt() and "My cat is called Tom." in model.prompt()
    found = await service.search_memory(app_name=APP, user_id="ann", query="Tom")
    entry = found.memories[0]
    assert entry.content.parts[0].text == "My cat is called Tom." and entry.timestamp.startswith("20")
    assert entry.custom_metadata["scope"] == "shop/pets/ann" and entry.custom_metadata["kind"] == "episode"


async def test_two_users_and_two_apps_never_read_each_other(memory):
    service = GraphMemMemoryService(memory)
    model, sessions = RecordingModel(), InMemorySessionService()
    runner = Runner(app_name=APP, agent=agent_with(service, model), session_service=sessions, memory_service=service)
    await run(runner, sessions, "ann", "My cat is called Tom.")
    await run(runner, sessions, "bob", "My dog is called Rex.")
    await run(runner, sessions, "bob", "What is my cat called?")
    assert "Tom" not in model.prompt() and "Rex" in model.prompt()
    await run(runner, sessions, "ann", "What is my dog called?")
    assert "Rex" not in model.prompt() and "Tom" in model.prompt()
    other = Runner(app_name="garden", agent=agent_with(service, model), session_service=sessions,
                   memory_service=service)
    await run(other, sessions, "ann", "What is my cat called?")
    assert "Tom" not in model.prompt()
    found = (await service.search_memory(app_name="garden", user_id="ann", query="cat Tom")).memories
    assert [m.content.parts[0].text for m in found] == ["What is my cat called?"]  # garden's own turn only


async def test_explicit_memories_are_remembered_and_only_their_owner_erases_one(memory):
    service = GraphMemMemoryService(memory)
    entry = MemoryEntry(id="m-1", content=types.Content(role="user", parts=[types.Part(text="Ann is vegetarian")]))
    await service.add_memory(app_name=APP, user_id="ann", memories=[entry])
    [found] = (await service.search_memory(app_name=APP, user_id="ann", query="vegetarian")).memories
    assert (found.id, found.custom_metadata["kind"]) == ("m-1", "fact")
    await service.delete_memory(app_name=APP, user_id="bob", memory_id="m-1")  # not bob's: left alone
    assert len((await service.search_memory(app_name=APP, user_id="ann", query="vegetarian")).memories) == 1
    await service.delete_memory(app_name=APP, user_id="ann", memory_id="m-1")
    assert (await service.search_memory(app_name=APP, user_id="ann", query="vegetarian")).memories == []
    assert (await service.search_memory(app_name=APP, user_id="ann", query="  ")).memories == []


async def test_explicit_memories_land_together_or_not_at_all(memory):
    service = GraphMemMemoryService(memory)
    theirs = MemoryEntry(id="m-1", content=types.Content(role="user", parts=[types.Part(text="Bob is vegan")]))
    await service.add_memory(app_name=APP, user_id="bob", memories=[theirs])
    mine = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text="Ann is vegetarian")]))
    clash = MemoryEntry(id="m-1", content=types.Content(role="user", parts=[types.Part(text="Ann likes figs")]))
    with pytest.raises(InvalidInputError) as info:  # the id is bob's: refused, and ann's first entry with it
        await service.add_memory(app_name=APP, user_id="ann", memories=[mine, clash])
    assert info.value.field == "memories[1].id" and "another user_id" in info.value.message
    assert memory.recall("vegetarian figs", scope=f"{APP}/ann") == []
    assert [r.record.text for r in memory.recall("vegan", scope=f"{APP}/bob")] == ["Bob is vegan"]


async def test_bad_input_is_refused_naming_the_field_and_writes_nothing(memory):
    service = GraphMemMemoryService(memory)
    for kwargs, field in [(dict(app_name="", user_id="ann", query="x"), "app_name"),
                          (dict(app_name=APP, user_id=" ann", query="x"), "user_id"),
                          (dict(app_name=APP, user_id="ann", query=7), "query")]:
        with pytest.raises(InvalidInputError) as info:
            await service.search_memory(**kwargs)
        assert info.value.field == field
    good = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text="Ann is vegetarian")]))
    blank = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text="   ")]))
    with pytest.raises(InvalidInputError) as info:
        await service.add_memory(app_name=APP, user_id="ann", memories=[good, blank])
    assert info.value.field == "memories[1].content"
    with pytest.raises(InvalidInputError) as info:
        await service.add_events_to_memory(app_name=APP, user_id="ann", events="hello", session_id="s1")
    assert info.value.field == "events"
    with pytest.raises(InvalidInputError) as info:
        await service.delete_memory(app_name=APP, user_id="ann")
    assert info.value.field == "memory_id"
    for bad in (-1, 0, 1_001):
        with pytest.raises(InvalidInputError) as info:
            GraphMemMemoryService(memory, max_results=bad)
        assert info.value.field == "max_results"
    from google.adk.events.event import Event

    events = [Event(author="user", content=types.Content(role="user", parts=[types.Part(text="fine")])),
              Event(author="helper"),  # no text: left out, yet the next keeps its place
              Event(id="bad\x00id", author="user", content=types.Content(role="user", parts=[types.Part(text="x")]))]
    with pytest.raises(InvalidInputError) as info:
        await service.add_events_to_memory(app_name=APP, user_id="ann", events=events, session_id="s1")
    assert info.value.field == "events[2].id"
    assert memory.recall("vegetarian", scope=f"{APP}/ann") == []


async def test_the_service_s_calls_are_spans_over_graphmem_s(observed, spans):
    service = GraphMemMemoryService(observed)
    model, sessions = RecordingModel(), InMemorySessionService()
    runner = Runner(app_name=APP, agent=agent_with(service, model), session_service=sessions, memory_service=service)
    await run(runner, sessions, "ann", "My cat is called Tom.")
    names = spans.names()
    assert "graphmem.adk.context" in names and "graphmem.adk.remember_session" in names
    [outer] = spans.named("graphmem.adk.context")
    assert outer.attributes["graphmem.tenant"] == observed.tenant
    inner = spans.named("graphmem.context_for_turn")
    assert inner and all(s.context.trace_id == outer.context.trace_id for s in inner)


def test_docs_example(memory):
    from tests.frameworks.doc_blocks import run_blocks

    assert run_blocks("adk", {"memory": memory}) == 1
