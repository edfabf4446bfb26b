"""graphmem's PydanticAI capability and history processor, through PydanticAI's own agent loop
with its offline models (FunctionModel records what the model was told; TestModel calls
tools), on a real Neo4j."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    BinaryContent,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from graphmem import ConfigurationError, InvalidInputError
from graphmem.integrations.pydantic_ai import GraphMemCapability, graphmem_history
from tests.frameworks.doc_blocks import run_blocks


class Recorder:
    """A FunctionModel's function: keeps what each request told the model, answers ``reply``."""

    def __init__(self, reply: str = "Noted.") -> None:
        self.reply = reply
        self.instructions: list[str] = []
        self.messages: list[list] = []

    def __call__(self, messages, info: AgentInfo) -> ModelResponse:
        self.instructions.append(info.instructions or "")
        self.messages.append(list(messages))
        return ModelResponse(parts=[TextPart(self.reply)])

    @property
    def last(self) -> str:
        return self.instructions[-1]


@dataclass
class Deps:
    user_id: str


def by_deps(memory, **kwargs) -> GraphMemCapability:
    return GraphMemCapability(memory, scope="shop", user_id=lambda ctx: ctx.deps.user_id, **kwargs)


async def test_a_fact_told_in_one_conversation_is_in_the_instructions_of_the_next(memory):
    model = Recorder()
    agent = Agent(FunctionModel(model), instructions="Be brief.", deps_type=Deps, capabilities=[by_deps(memory)])
    await agent.run("My cat is called Tom.", deps=Deps("ann"), conversation_id="monday")
    assert model.last == "Be brief."  # nothing remembered yet: no block, nothing appended
    await agent.run("What is my cat called?", deps=Deps("ann"), conversation_id="tuesday")
    assert model.last.startswith("Be brief.\n\n") and "My cat is called Tom." in model.last
    # the conversation id is graphmem's session, the user picks the scope
    assert [(e.role, e.text) for e in memory.messages("monday", scope="shop/ann")] == [
        ("user", "My cat is called Tom."), ("assistant", "Noted.")]
    assert [e.text for e in memory.messages("tuesday", scope="shop/ann")][0] == "What is my cat called?"
    assert memory.messages("monday", scope="shop") == []


async def test_with_an_async_memory_and_a_capability_given_per_run(amemory):
    model = Recorder()
    agent = Agent(FunctionModel(model))  # no memory of its own: each run brings its user's
    ann = GraphMemCapability(amemory, scope="shop", user_id="ann", session_id="s1")
    await agent.run("My cat is called Tom.", capabilities=[ann])
    await agent.run("What is my cat called?", capabilities=[GraphMemCapability(amemory, scope="shop", user_id="ann")])
    assert "Tom" in model.last
    await agent.run("What is my cat called?", capabilities=[GraphMemCapability(amemory, scope="shop", user_id="bob")])
    assert "Tom" not in model.last and model.last == ""
    assert [e.text for e in await amemory.messages("s1", scope="shop/ann")] == ["My cat is called Tom.", "Noted."]


async def test_two_users_of_one_agent_never_see_each_other_s_memories_even_at_once(amemory):
    model = Recorder()
    agent = Agent(FunctionModel(model), deps_type=Deps, capabilities=[by_deps(amemory)])
    await asyncio.gather(agent.run("My cat is called Tom.", deps=Deps("ann")),
                         agent.run("My cat is called Rex.", deps=Deps("bob")))
    await asyncio.gather(agent.run("What is my cat called?", deps=Deps("ann")),
                         agent.run("What is my cat called, please?", deps=Deps("bob")))
    blocks = dict(zip(("ann", "bob"), sorted(model.instructions[2:], key=lambda b: "Rex" in b)))
    assert "Tom" in blocks["ann"] and "Rex" not in blocks["ann"]
    assert "Rex" in blocks["bob"] and "Tom" not in blocks["bob"]
    bobs = [r.record.text for r in await amemory.recall("cat", scope="shop/bob")]
    assert "My cat is called Rex." in bobs and not [t for t in bobs if "Tom" in t]


async def test_a_run_s_capability_replaces_the_agent_s_and_two_in_one_list_are_refused(memory):
    model = Recorder()
    agent = Agent(FunctionModel(model), deps_type=Deps, capabilities=[by_deps(memory)])
    await agent.run("My cat is called Tom.", deps=Deps("ann"))
    await agent.run("What is my cat called?", deps=Deps("bob"),
                    capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann", session_id="later")])
    assert model.last.count("My cat is called Tom.") == 1  # the run's capability, once: not both
    assert [e.text for e in memory.messages("later", scope="shop/ann")][0] == "What is my cat called?"
    assert memory.recall("cat", scope="shop/bob") == []
    with pytest.raises(UserError, match="one GraphMemCapability"):
        Agent(FunctionModel(model), capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann"),
                                                  GraphMemCapability(memory, scope="shop", user_id="bob")])


async def test_the_block_is_an_instruction_of_its_own_run_never_a_message_of_the_history(memory):
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann")])
    await agent.run("My cat is called Tom.", conversation_id="a")
    await agent.run("My dog is called Rex.", conversation_id="b")
    first = await agent.run("What is my cat called?", conversation_id="c")
    second = await agent.run("And my dog?", message_history=first.all_messages())
    assert "Tom" in model.instructions[2]
    assert "Rex" in model.instructions[3]  # the block of the turn it answers
    assert "What is my cat called?" not in model.instructions[3]  # c's own turns come as its history
    sent = [p.content for m in model.messages[3] for p in m.parts if isinstance(p, (UserPromptPart, TextPart))]
    assert sent == ["What is my cat called?", "Noted.", "And my dog?"]  # no block among the messages
    assert second.all_messages()[0].conversation_id == "c"  # the history's conversation: one session


async def test_tool_calls_and_structured_answers_are_stored_as_the_turn_s_messages(memory):
    agent = Agent(TestModel(), capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann")])

    @agent.tool_plain
    def stock(item: str) -> int:
        """How many of ``item`` are in stock."""
        return 3

    @agent.tool_plain
    def price(item: str) -> dict[str, float]:
        """The price of ``item``."""
        return {"eur": 9.5}

    await agent.run("Is the cat food in stock?", conversation_id="tools")
    episodes = memory.messages("tools", scope="shop/ann")
    assert [e.role for e in episodes] == ["user", "tool", "tool", "assistant"]
    calls = sorted((json.loads(e.text) for e in episodes if e.role == "tool"), key=lambda c: c["tool"])
    assert calls == [{"tool": "price", "args": {"item": "a"}, "result": '{"eur":9.5}'},
                     {"tool": "stock", "args": {"item": "a"}, "result": 3}]
    plain = Agent(TestModel(), capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann",
                                                                tool_calls=False)], tools=[stock])
    await plain.run("Any cat food?", conversation_id="no-tools")
    assert [e.role for e in memory.messages("no-tools", scope="shop/ann")] == ["user", "assistant"]

    class Pet(BaseModel):
        name: str

    typed = Agent(TestModel(), output_type=Pet, capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann")])
    assert (await typed.run("Name a pet", conversation_id="typed")).output == Pet(name="a")
    assert [(e.role, e.text) for e in memory.messages("typed", scope="shop/ann")] == [
        ("user", "Name a pet"), ("assistant", '{"name":"a"}')]


async def test_the_block_follows_the_prompt_s_text_and_a_lowered_authority_is_never_stored(memory):
    model = Recorder()
    cap = GraphMemCapability(memory, scope="shop", user_id="ann")
    agent = Agent(FunctionModel(model), capabilities=[cap])
    await agent.run("My cat is called Tom.", conversation_id="a")
    await agent.run([BinaryContent(b"\x89PNG", media_type="image/png")], conversation_id="b")
    assert model.last == ""  # an image alone: nothing to recall for
    await agent.run(["What is", TextContent("my cat called?")], conversation_id="b")
    assert "Tom" in model.last  # the text items of a prompt, joined; an image is not stored, its answer is
    assert [e.text for e in memory.messages("b", scope="shop/ann")] == ["Noted.", "What is\nmy cat called?", "Noted."]
    # PydanticAI's own knob: below operator authority the block reaches the model as framed data
    low = Agent(FunctionModel(model), capabilities=[cap.with_authority("user")])
    await low.run("What is my cat called?", conversation_id="low")
    told = [str(p.content) for p in model.messages[-1][-1].parts]
    assert model.last == "" and any("My cat is called Tom." in t for t in told)
    assert [e.text for e in memory.messages("low", scope="shop/ann")] == ["What is my cat called?", "Noted."]


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"user_id": ""}, "user_id"), ({"user_id": None}, "user_id"), ({"user_id": "ann", "session_id": " s"}, "session_id"),
    ({"user_id": "ann", "scope": None}, "scope"), ({"user_id": "ann", "scope": "/shop"}, "scope"),
    ({"user_id": "ann", "agent_id": ""}, "agent_id"), ({"user_id": "ann", "max_tokens": 0}, "max_tokens"),
    ({"user_id": "ann", "tool_calls": "yes"}, "tool_calls"),
])
def test_bad_arguments_are_refused_naming_the_field(memory, kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        GraphMemCapability(memory, **{"scope": "shop", **kwargs})
    assert info.value.field == field


async def test_bad_ids_from_the_run_are_refused_before_the_model_is_called_and_nothing_is_written(memory):
    model = Recorder()
    for bad, field in [({"user_id": lambda ctx: ctx.deps}, "user_id"),
                       ({"user_id": "ann", "session_id": lambda ctx: " monday"}, "session_id")]:
        agent = Agent(FunctionModel(model), deps_type=str,
                      capabilities=[GraphMemCapability(memory, scope="shop", **bad)])
        with pytest.raises(InvalidInputError) as info:
            await agent.run("My cat is called Tom.", deps=" ann")
        assert info.value.field == field
    assert model.instructions == []  # the model was never called
    assert memory.recall("cat Tom", scope="shop/ann") == [] and memory.recall("cat Tom", scope="shop") == []
    with pytest.raises(InvalidInputError) as info:
        graphmem_history(0)
    assert info.value.field == "max_messages"
    with pytest.raises(ConfigurationError):
        GraphMemCapability("bolt://not-a-memory", scope="shop", user_id="ann")


async def test_the_hooks_are_spans_with_graphmem_s_own_calls_beneath(observed, spans):
    agent = Agent(FunctionModel(Recorder()), capabilities=[GraphMemCapability(observed, scope="shop", user_id="ann")])
    await agent.run("My cat is called Tom.")
    names = spans.names()
    assert names.index("graphmem.pydantic_ai.memory_block") < names.index("graphmem.pydantic_ai.after_run")
    for hook, call in [("memory_block", "graphmem.context_for_turn"), ("after_run", "graphmem.after_turn")]:
        [outer] = spans.named(f"graphmem.pydantic_ai.{hook}")
        [inner] = spans.named(call)
        assert inner.parent is not None and inner.parent.span_id == outer.context.span_id


def turn(text: str, *tools: str) -> list:
    """One turn of history: the user's request, the tool calls it made, the answer."""
    out: list = [ModelRequest(parts=[UserPromptPart(text)])]
    for i, name in enumerate(tools):
        out += [ModelResponse(parts=[ToolCallPart(name, {}, tool_call_id=f"{text}{i}")]),
                ModelRequest(parts=[ToolReturnPart(name, "ok", tool_call_id=f"{text}{i}")])]
    return out + [ModelResponse(parts=[TextPart(f"answer to {text}")])]


async def test_the_history_processor_keeps_whole_recent_turns_and_the_system_prompt(memory):
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[GraphMemCapability(memory, scope="shop", user_id="ann"),
                                                      graphmem_history(max_messages=5)])
    history = turn("one") + turn("two", "look") + turn("three")
    history[0] = ModelRequest(parts=[SystemPromptPart("You sell pet food."), UserPromptPart("one")])
    result = await agent.run("four", message_history=history)
    seen = model.messages[-1]
    # "two" (four messages with its tool call) and "three" do not both fit in 5 with "four": cut before "three"
    assert [[type(p).__name__ for p in m.parts] for m in seen] == [
        ["SystemPromptPart", "UserPromptPart"], ["TextPart"], ["UserPromptPart"]]
    assert seen[0].parts[1].content == "three" and len(result.all_messages()) == 4
    assert [m.parts[0].content for m in result.new_messages()] == ["four", "Noted."]  # stored as before
    # a turn that outgrows the window is kept whole: its tool returns keep their calls
    busy = Agent(TestModel(), capabilities=[graphmem_history(max_messages=2)], tools=[look, find])
    long = await busy.run("five", message_history=turn("four", "a", "b"))
    assert [type(m).__name__ for m in long.all_messages()] == ["ModelRequest", "ModelResponse"] * 2
    assert [p.part_kind for p in long.all_messages()[2].parts] == ["tool-return", "tool-return"]


async def test_what_the_history_processor_cut_comes_back_and_what_it_keeps_is_not_repeated(either):
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[GraphMemCapability(either, scope="shop", user_id="ann"),
                                                      graphmem_history(max_messages=4)])
    history: list = []
    for text in ["My cat is called Tom.", "I live in a small town.", "My dog is called Rex."]:
        history = (await agent.run(text, message_history=history, conversation_id="one")).all_messages()
    result = await agent.run("What are my cat and dog called?", message_history=history)
    sent = [p.content for m in model.messages[-1] for p in m.parts if isinstance(p, (UserPromptPart, TextPart))]
    assert sent == ["My dog is called Rex.", "Noted.", "What are my cat and dog called?"]  # the window of 4
    # one session throughout: Tom was cut from what the model is sent, graphmem brings it back...
    assert "My cat is called Tom." in model.last and result.all_messages()[0].conversation_id == "one"
    # ...while the turn the model is sent is not shown to it a second time
    assert "My dog is called Rex." not in model.last
    stored = [e.text for e in await maybe(either.messages("one", scope="shop/ann"))]
    assert stored[0] == "My cat is called Tom." and len(stored) == 8
    # mid-run: the parrot's turn is sent with the first request; the tool step grows the run's
    # turn, the window cuts the parrot's, and the block of the second request brings it back
    told = await agent.run("My parrot is called Kiwi.", conversation_id="two")
    busy = Agent(FunctionModel(TwoSteps(model)), tools=[look],
                 capabilities=[GraphMemCapability(either, scope="shop", user_id="ann"), graphmem_history(max_messages=4)])
    await busy.run("Where is my parrot?", message_history=told.all_messages())
    first, second = model.instructions[-2:]
    assert "My parrot is called Kiwi." not in first and "My parrot is called Kiwi." in second


class TwoSteps:
    """A FunctionModel's function: calls ``look`` once, then answers as ``recorder``."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __call__(self, messages, info: AgentInfo) -> ModelResponse:
        if not any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            self.recorder.instructions.append(info.instructions or "")
            self.recorder.messages.append(list(messages))
            return ModelResponse(parts=[ToolCallPart("look", {"item": "pets"})])
        return self.recorder(messages, info)


async def maybe(value):
    return await value if asyncio.iscoroutine(value) else value


def look(item: str) -> str:
    """Looks ``item`` up."""
    return "found"


def find(item: str) -> str:
    """Finds ``item``."""
    return "here"


def test_docs_example(memory):
    assert run_blocks("pydantic-ai", {"memory": memory}) >= 1
