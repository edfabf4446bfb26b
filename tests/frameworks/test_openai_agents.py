"""The OpenAI Agents SDK adapter (``graphmem.integrations.openai_agents``) through the SDK's
own runner and its offline test model, on a real Neo4j."""

from __future__ import annotations

import copy
import re

import pytest
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.memory import Session, SessionSettings
from agents.run_internal.session_persistence import rewind_session_items
from agents.testing import ScriptedModel, assistant_message, function_call

from graphmem import InvalidInputError
from graphmem._memory.store import ItemSearch
from graphmem._sync.store import ItemStore
from graphmem.integrations.openai_agents import GraphMemSession
from tests.fakes import extraction, scripted
from tests.frameworks.doc_blocks import run_blocks

set_tracing_disabled(True)
ITEMS = "shop/ann/openai-sessions"
"""Where the key-value items of ann's conversations live (below her scope ``shop/ann``)."""


def stored(memory, session_id="s1"):
    """The key-value items of ann's conversation ``session_id``: {key: value}."""
    return {i.key: i.value for i in ItemStore(memory).batch([ItemSearch(f"{ITEMS}/{session_id}", 1_000)]).found[0]}


def ask(memory, model, conversation, text, *, user="ann", **kwargs):
    """One run of an agent on ``model`` in ``user``'s conversation, with graphmem's filter."""
    session = GraphMemSession(memory, conversation, scope="shop", user_id=user, **kwargs)
    agent = Agent(name="helper", instructions="You help.", model=model)
    config = RunConfig(call_model_input_filter=session.model_input_filter)
    return session, Runner.run(agent, text, session=session, run_config=config)


async def test_what_a_user_said_in_one_session_is_in_the_instructions_of_the_next(memory):
    model = ScriptedModel([[assistant_message("Noted.")], [assistant_message("Tom.")]])
    first, run = ask(memory, model, "monday", "My cat is called Tom.")
    assert isinstance(first, Session) and (await run).final_output == "Noted."
    second, run = ask(memory, model, "tuesday", "What is my cat called?")
    assert (await run).final_output == "Tom."
    assert model.calls[-1].system_instructions.startswith("You help.\n\n") and "Tom" in model.calls[-1].system_instructions
    assert model.calls[-1].input == [{"role": "user", "content": "What is my cat called?"}]  # no history replayed
    assert [e.text for e in memory.messages("monday", scope="shop/ann")] == ["My cat is called Tom.", "Noted."]


async def test_two_users_of_one_app_never_see_each_other_s_memories(memory):
    model = ScriptedModel([[assistant_message("ok")]] * 4)
    for user, pet in (("ann", "Tom"), ("bob", "Rex")):
        _, run = ask(memory, model, f"{user}-1", f"My cat is called {pet}.", user=user)
        await run
    for user, mine, theirs in (("ann", "Tom", "Rex"), ("bob", "Rex", "Tom")):
        _, run = ask(memory, model, f"{user}-2", "What is my cat called?", user=user)
        await run
        seen = model.calls[-1].system_instructions
        assert mine in seen and theirs not in seen, user


async def test_items_come_back_as_they_were_added_without_ids_and_unkept_kinds(memory):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann")
    items = [
        {"role": "user", "content": "hi"},
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"},
        {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "weather",
         "arguments": '{"city": "Paris"}', "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": ""},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "x"}},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Sunny,\nwarm.", "annotations": [], "logprobs": []},
                     {"type": "output_text", "text": "Anything else?", "annotations": []}]},
        {"type": "custom_tool_call", "call_id": "c2", "name": "grep", "input": "a(b)\n"},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "found"}]},
        {"role": "system", "content": "Ünïcode 😊 \"quoted\""},
    ]
    await session.add_items(copy.deepcopy(items))
    kept = [{k: v for k, v in item.items() if k != "id"} for i, item in enumerate(items) if i not in (2, 5)]
    assert await session.get_items() == kept
    assert await session.get_items(limit=2) == kept[-2:] and await session.get_items(limit=0) == []
    episodes = memory.messages("s1", scope="shop/ann")
    assert [e.text for e in episodes[2:5]] == ['calls weather({"city": "Paris"})', "(empty)", "Sunny,\nwarm.\nAnything else?"]
    assert all(re.fullmatch(r"oai-[0-9a-f]{32}", e.id) for e in episodes) and set(stored(memory)) == {e.id for e in episodes}
    assert await session.pop_item() == kept[-1] and await session.get_items(limit=1) == [kept[-2]]
    assert set(stored(memory)) == {e.id for e in episodes[:-1]}  # the popped item's value is deleted
    memory.after_turn([{"role": "user", "content": "from another door"}, {"role": "tool", "content": "42"}],
                      scope="shop/ann", session_id="s1", user_id="ann")
    assert (await session.get_items())[-1] == {"role": "user", "content": "from another door"}  # no item: a message
    assert await session.pop_item() == {"role": "user", "content": "from another door"}  # the tool episode is skipped
    await session.clear_session()
    assert await session.get_items() == [] and await session.pop_item() is None and stored(memory) == {}


async def test_an_inline_image_round_trips_and_its_episode_keeps_the_text(memory):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann")
    image = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUg" * 20_000  # 440,000 characters
    items = [{"id": "m1", "type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "What is in this picture?"},
        {"type": "input_image", "image_url": image, "detail": "auto"}]},
        {"role": "user", "content": [{"type": "input_image", "image_url": image}]}]
    await session.add_items(copy.deepcopy(items))
    assert await session.get_items() == [{k: v for k, v in items[0].items() if k != "id"}, items[1]]
    assert [e.text for e in memory.messages("s1", scope="shop/ann")] == ["What is in this picture?", "(empty)"]
    with pytest.raises(InvalidInputError) as info:  # over 1 MiB as stored: refused, nothing written
        await session.add_items([{"role": "user", "content": "hi"}, {"role": "user", "content": [
            {"type": "input_image", "image_url": image * 3}]}])
    assert info.value.field == "items[1]" and "1,048,576" in str(info.value)
    assert len(memory.messages("s1", scope="shop/ann")) == 2 and len(stored(memory)) == 2


async def test_the_items_are_invisible_at_the_user_s_scope_and_erase_removes_them(memory):
    session = GraphMemSession(memory, "s/1", scope="shop", user_id="ann")
    await session.add_items([{"role": "user", "content": "Which session item is it?"},
                             {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}])
    where = f"{ITEMS}/s%2F1"  # the session id escaped as a scope segment
    keys = set(stored(memory, "s%2F1"))
    assert keys == {e.id for e in memory.messages("s/1", scope="shop/ann")} and len(keys) == 2
    query = "OpenAI Agents session item"  # the items' own text
    assert {r.record.scope for r in memory.recall(query, scope=where, k=20)} == {where, "shop/ann"}  # seen from below
    seen = memory.recall(query, scope="shop/ann", k=20)
    assert seen and {(r.record.scope, r.record.kind) for r in seen} == {("shop/ann", "episode")}
    block = memory.context_for_turn(query, scope="shop/ann", session_id="other", user_id="ann")
    assert "Which session item" in block and "oai-" not in block and "OpenAI Agents" not in block
    memory.erase(user_id="ann")
    assert ItemStore(memory).batch([ItemSearch("shop", 100)]).found[0] == []
    assert [ItemStore(memory).history(where, key) for key in keys] == [[], []]  # gone with their history
    assert await session.get_items() == []


async def test_episodes_that_fail_to_land_leave_no_items(memory, monkeypatch):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann")

    def refuse(*args, **kwargs):
        raise RuntimeError("the database went away")

    written, put = [], session.items.put

    async def spy(kept):
        written.extend(k.key for k in kept)
        await put(kept)

    monkeypatch.setattr(memory, "after_turn", refuse)
    monkeypatch.setattr(session.items, "put", spy)
    with pytest.raises(RuntimeError):
        await session.add_items([{"role": "user", "content": "hi"}])
    monkeypatch.undo()
    assert stored(memory) == {} and memory.messages("s1", scope="shop/ann") == [] and len(written) == 1
    assert [v.reason for v in ItemStore(memory).history(f"{ITEMS}/s1", written[0])] == ["forgotten"]  # put, then deleted


async def test_a_replayed_tool_exchange_is_the_model_s_next_input_and_the_runner_can_rewind_it(memory):
    @function_tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    model = ScriptedModel([[function_call("weather", '{"city": "Paris"}', call_id="call_1")],
                           [assistant_message("It is sunny.")], [assistant_message("You're welcome.")]])
    agent = Agent(name="helper", model=model, tools=[weather])
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann", session_settings={"limit": 50})
    await Runner.run(agent, "Weather in Paris?", session=session)
    first_run = [{k: v for k, v in item.items() if k != "id"} for item in model.calls[-1].input]
    await Runner.run(agent, "Thanks", session=session)
    assert model.calls[-1].input[:3] == first_run and len(model.calls[-1].input) == 5
    # the runner matches items without ids (a retry rewinds what it wrote): the tail must match
    added = [{"role": "user", "content": "again"}, {"id": "m9", "type": "message", "role": "assistant",
                                                     "status": "completed", "content": []}]
    await session.add_items(added)
    await rewind_session_items(session, added)
    assert len(await session.get_items()) == 6


async def test_with_a_model_the_turn_is_learned_from_and_the_profile_reaches_the_next_session(memory):
    llm = scripted(extraction(profile={"location": "Porto"}), extraction())
    model = ScriptedModel([[assistant_message("Nice!")], [assistant_message("Porto.")]])
    first, run = ask(memory, model, "monday", "I live in Porto.", llm=llm)
    await run
    assert all(r.ok for r in memory.await_extractions(timeout=60)) and first.last_turn.result().ok
    assert llm.calls == 2  # one extraction per stored batch: the user's message, then the reply
    assert memory.profile("ann", scope="shop/ann").location == "Porto"
    _, run = ask(memory, model, "tuesday", "Where do I live?")
    await run
    assert "location: Porto" in model.calls[-1].system_instructions


async def test_an_async_memory_serves_a_streamed_run(amemory):
    model = ScriptedModel([[assistant_message("Noted.")], [assistant_message("Tom.")]])
    session = GraphMemSession(amemory, "monday", scope="shop", user_id="ann")
    agent = Agent(name="helper", model=model)
    config = RunConfig(call_model_input_filter=session.model_input_filter)
    await Runner.run(agent, "My cat is called Tom.", session=session, run_config=config)
    tuesday = GraphMemSession(amemory, "tuesday", scope="shop", user_id="ann")  # its own filter: its conversation
    streamed = Runner.run_streamed(agent, "What is my cat called?", session=tuesday,
                                   run_config=RunConfig(call_model_input_filter=tuesday.model_input_filter))
    async for _ in streamed.stream_events():
        pass
    assert streamed.final_output == "Tom." and "Tom" in model.calls[-1].system_instructions
    assert [e.text for e in await amemory.messages("tuesday", scope="shop/ann")] == ["What is my cat called?", "Tom."]
    assert await session.pop_item() == {"role": "assistant", "status": "completed", "type": "message", "content": [
        {"type": "output_text", "text": "Noted.", "annotations": [], "logprobs": []}]}


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"user_id": " "}, "user_id"), ({"user_id": None}, "user_id"), ({"session_id": " s1"}, "session_id"),
    ({"scope": "a//b"}, "scope"), ({"llm": "gpt"}, "llm"), ({"session_settings": {"limitt": 1}}, "session_settings"),
    ({"max_tokens": 0}, "max_tokens"), ({"agent_id": ""}, "agent_id"),
])
def test_a_bad_argument_is_refused_by_name(memory, kwargs, field):
    arguments = {"session_id": "s1", "scope": "shop", "user_id": "ann", **kwargs}
    with pytest.raises(InvalidInputError) as info:
        GraphMemSession(memory, arguments.pop("session_id"), **arguments)
    assert info.value.field == field


@pytest.mark.parametrize(("items", "field"), [
    ({"role": "user", "content": "hi"}, "items"), ("hi", "items"),
    ([{"role": "user", "content": "ok"}, {"role": "wizard", "content": "x"}], "items[1].role"),
    ([{"role": "user", "content": "ok"}, "text"], "items[1]"),
    ([{"role": "user", "content": 7}], "items[0].content"),
    ([{"role": "user", "content": [{"type": "input_text", "text": None}]}], "items[0].content[0].text"),
    ([{"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"}], "items[0].call_id"),
    ([{"type": "function_call_output", "call_id": "c", "output": "x" * 1_048_577}], "items[0]"),
    ([{"role": "user", "content": "ok"}, {"role": "user", "content": "a\ud800"}], "items[1]"),
    ([{"role": "user", "content": [{"type": "input_image", "image_url": "data:" + "A" * 1_048_576}]}], "items[0]"),
    ([{"role": "user", "content": "hi", "metadata": object()}], "items[0]"),
])
async def test_bad_items_are_refused_by_name_and_nothing_is_written(memory, items, field):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann")
    with pytest.raises(InvalidInputError) as info:
        await session.add_items(items)
    assert info.value.field == field
    assert memory.messages("s1", scope="shop/ann") == [] and memory.recall("ok", scope="shop/ann") == []
    assert stored(memory) == {}
    with pytest.raises(InvalidInputError) as info:
        await session.get_items(limit="3")
    assert info.value.field == "limit"


async def test_the_session_s_calls_are_spans_with_graphmem_s_own_beneath(observed, spans):
    model = ScriptedModel([[assistant_message("ok")]])
    _, run = ask(observed, model, "s1", "My cat is called Tom.")
    await run
    finished = spans.exporter.get_finished_spans()
    for outer, inner in (("graphmem.openai_agents.model_input_filter", "graphmem.context_for_turn"),
                         ("graphmem.openai_agents.add_items", "graphmem.after_turn"),
                         ("graphmem.openai_agents.get_items", "graphmem.messages")):
        parents = {p.context.span_id for p in spans.named(outer)}
        assert parents and any(s.parent is not None and s.parent.span_id in parents
                               for s in finished if s.name == inner), outer
    assert spans.named("graphmem.openai_agents.add_items")[0].attributes["graphmem.items"] == 1


def test_docs_example(memory):
    assert run_blocks("openai-agents", {"memory": memory}) >= 1


def test_the_session_settings_are_the_sdk_s(memory):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann", session_settings=SessionSettings(limit=3))
    assert session.session_settings.limit == 3
    assert GraphMemSession(memory, "s1", scope="shop", user_id="ann").session_settings == SessionSettings()


async def test_what_a_session_limit_leaves_out_of_the_input_comes_back_in_the_block(memory):
    model = ScriptedModel([[assistant_message("Noted.")], [assistant_message("Fine.")], [assistant_message("Tom.")]])
    for text in ("My cat is called Tom.", "I like tea."):
        _, run = ask(memory, model, "s1", text, session_settings=SessionSettings(limit=2))
        await run
    assert "Tom" not in (model.calls[-1].system_instructions or "")  # sent in the input: not repeated
    _, run = ask(memory, model, "s1", "What is my cat called?", session_settings=SessionSettings(limit=2))
    await run
    sent = str(model.calls[-1].input)
    assert "My cat is called Tom." not in sent  # the limit keeps the two newest items only
    assert "My cat is called Tom." in model.calls[-1].system_instructions


async def test_erasing_the_conversation_removes_its_items_too(memory):
    session = GraphMemSession(memory, "s1", scope="shop", user_id="ann")
    other = GraphMemSession(memory, "s2", scope="shop", user_id="ann")
    await session.add_items([{"role": "user", "content": "My cat is called Tom."}])
    await other.add_items([{"role": "user", "content": "My dog is called Rex."}])
    assert memory.erase(session_id="s1").total > 0
    assert stored(memory, "s1") == {} and await session.get_items() == []
    assert [i["content"] for i in await other.get_items()] == ["My dog is called Rex."]
