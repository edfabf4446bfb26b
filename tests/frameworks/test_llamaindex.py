"""LlamaIndex's memory block and ``Memory`` over graphmem, on a real Neo4j, through LlamaIndex's
own ``FunctionAgent`` with its offline function-calling mock model."""

from __future__ import annotations

import inspect
import re

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import InsertMethod, Memory
from llama_index.core.storage.chat_store.sql import MessageStatus
from llama_index.core.tools import FunctionTool

from graphmem import InvalidInputError
from graphmem.integrations.llamaindex import GraphMemMemory, GraphMemMemoryBlock, turn_messages
from tests.frameworks.doc_blocks import run_blocks


def block(memory, user="ann", **kwargs):
    return GraphMemMemoryBlock(memory=memory, scope="shop", user_id=user, **kwargs)


async def ask(memory, text, *, user="ann", session="s1", llm=None, tools=(), **kwargs):
    """One agent run with a new ``GraphMemMemory`` for ``session``; the model's last prompt."""
    llm = llm or MockFunctionCallingLLMWithChatMemoryOfLastCall()
    mem = GraphMemMemory.from_defaults(session_id=session, memory_blocks=[block(memory, user, **kwargs)])
    await FunctionAgent(llm=llm, tools=list(tools), system_prompt="Be brief.").run(text, memory=mem)
    return "\n".join(m.content or "" for m in llm.last_chat_messages)


async def history(memory, session, scope="shop/ann"):
    found = memory.messages(session, scope=scope)
    found = await found if inspect.isawaitable(found) else found
    return [(e.role, e.text) for e in found]


async def test_what_one_session_told_is_in_the_next_session_s_prompt(either):
    first = await ask(either, "My cat is called Tom.", session="s1")
    assert "<graphmem>" not in first  # the question is not recalled as a memory of itself
    prompt = await ask(either, "What is my cat called?", session="s2")
    assert "<graphmem>" in prompt and "user: My cat is called Tom." in prompt and "Be brief." in prompt
    # each turn stored once, question and (the mock's echoing) answer, in its own session
    assert await history(either, "s1") == [("user", "My cat is called Tom."), ("assistant", "My cat is called Tom.")]
    assert await history(either, "s2") == [("user", "What is my cat called?"), ("assistant", "What is my cat called?")]


async def test_two_users_of_one_app_never_read_each_other(memory):
    await ask(memory, "My cat is called Tom.", user="ann", session="a1")
    await ask(memory, "My dog is called Rex.", user="bob", session="b1")
    ann = await ask(memory, "What are my cat and dog called?", user="ann", session="a2")
    bob = await ask(memory, "What are my cat and dog called?", user="bob", session="b2")
    assert "Tom" in ann and "Rex" not in ann
    assert "Rex" in bob and "Tom" not in bob
    assert [r.record.scope for r in memory.recall("Tom", scope="shop/bob")] == []


async def test_a_plain_memory_stores_what_it_flushes_and_graphmem_memory_stores_each_message_once(memory):
    said = [ChatMessage(role="user" if i % 2 == 0 else "assistant", content=f"message number {i} with padding words")
            for i in range(8)]
    small = dict(token_limit=60, chat_history_token_ratio=0.5, token_flush_size=20)
    plain = Memory.from_defaults(session_id="p1", memory_blocks=[block(memory)], **small)
    for message in said:
        await plain.aput(message.model_copy(deep=True))
    flushed = await plain.aget_all(status=MessageStatus.ARCHIVED)
    assert 0 < len(flushed) < len(said)  # LlamaIndex's rule: only what left the queue reaches the block
    assert [t for _, t in await history(memory, "p1")] == [m.content for m in flushed]

    own = GraphMemMemory.from_defaults(session_id="g1", memory_blocks=[block(memory)], **small)
    for message in said:
        await own.aput(message.model_copy(deep=True))
    assert await own.aget_all(status=MessageStatus.ARCHIVED)  # it flushed too, and the block left that alone
    assert [t for _, t in await history(memory, "g1")] == [m.content for m in said]


SMALL = dict(token_limit=60, chat_history_token_ratio=0.5, token_flush_size=10)
"""A short-term queue of about 30 tokens: two short turns."""

TOLD = ["My cat is called Tom.", "I live in a small town.", "My dog is called Rex.", "What are my cat and dog called?"]


async def talk(mem, texts):
    """Agent runs over one ``Memory`` (one session); the model's last prompt, and graphmem's part of it."""
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(llm=llm, tools=[], system_prompt="Be brief.")
    for text in texts:
        await agent.run(text, memory=mem)
    prompt = "\n".join(m.content or "" for m in llm.last_chat_messages)
    found = re.search(r"<graphmem>(.*)</graphmem>", prompt, flags=re.S)
    return prompt, found.group(1) if found else ""


async def queued(mem):
    return [m.content for m in await mem.aget_all(status=MessageStatus.ACTIVE)]


async def test_a_plain_memory_s_flushed_messages_come_back_in_the_same_session(either):
    mem = Memory.from_defaults(session_id="s1", memory_blocks=[block(either)], **SMALL)
    _, section = await talk(mem, TOLD)
    assert "My cat is called Tom." not in await queued(mem)  # flushed: LlamaIndex no longer sends it
    assert "user: My cat is called Tom." in section  # graphmem, which holds it, brings it back
    assert "My dog is called Rex." in await queued(mem) and "Rex" not in section  # sent once, by LlamaIndex
    assert [t for _, t in await history(either, "s1")][:2] == ["My cat is called Tom."] * 2  # only the flush


async def test_graphmem_memory_brings_back_what_left_its_queue_and_never_repeats_what_is_in_it(either):
    mem = GraphMemMemory.from_defaults(session_id="s1", memory_blocks=[block(either)], **SMALL)
    prompt, section = await talk(mem, TOLD)
    assert "My cat is called Tom." not in await queued(mem) and "user: My cat is called Tom." in section
    # the question, not stored until its reply, ends the queue: the dog's stored turn before it
    # is still matched as sent, so it is not repeated
    assert "My dog is called Rex." in await queued(mem) and "Rex" not in section
    assert prompt.count("My dog is called Rex.") == 2  # the queue's question and (echoed) answer, once each
    assert len(await history(either, "s1")) == 8  # every message stored once, the last with its reply


async def test_a_tool_using_run_in_the_queue_is_not_repeated_in_the_block(memory):
    def weather(city: str = "Paris") -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    mem = GraphMemMemory.from_defaults(session_id="w1", memory_blocks=[block(memory)])
    agent = FunctionAgent(llm=MockFunctionCallingLLMWithChatMemoryOfLastCall(),
                          tools=[FunctionTool.from_defaults(weather)], system_prompt="Be brief.")
    await agent.run("How is the weather?", memory=mem)
    question = ChatMessage(role="user", content="Is the weather sunny in Paris?")
    alone = await block(memory).aget([question], session_id="w1")  # none of the run sent: all can come back
    assert "tool: sunny in Paris" in alone and "calls weather" in alone
    prompt = "\n".join(m.content or "" for m in await mem.aget(input=question.content))
    # the queue sends the question, the call, its result and the answer: the block repeats none
    assert prompt.count("sunny in Paris") == 1 and prompt.count("How is the weather?") == 1
    assert "calls weather" not in prompt and len(await history(memory, "w1")) == 4


async def test_a_tool_using_run_is_stored_as_one_turn_with_its_calls(amemory):
    def weather(city: str = "Paris") -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    await ask(amemory, "How is the weather?", llm=llm, tools=[FunctionTool.from_defaults(weather)], session="t1")
    stored = await history(amemory, "t1")
    assert stored == [("user", "How is the weather?"), ("assistant", 'calls weather({"city": "Paris"})'),
                      ("tool", "sunny in Paris"), ("assistant", "Tool calls complete.")]
    assert turn_messages([ChatMessage(role="model", blocks=[ToolCallBlock(tool_name="f", tool_kwargs="{}")])]) \
        == [{"role": "assistant", "content": "calls f({})"}]


async def test_a_turn_left_without_a_reply_is_stored_with_the_next_question(memory):
    mem = GraphMemMemory.from_defaults(session_id="s1", memory_blocks=[block(memory)])
    await mem.aput(ChatMessage(role="user", content="My cat is called Tom."))
    assert await history(memory, "s1") == []  # waiting for its reply
    await mem.aput(ChatMessage(role="user", content="Are you there?"))
    assert await history(memory, "s1") == [("user", "My cat is called Tom.")]
    await mem.aput_messages([ChatMessage(role="assistant", content="Yes.")])
    assert [t for _, t in await history(memory, "s1")] == ["My cat is called Tom.", "Are you there?", "Yes."]


async def test_bad_input_is_refused_naming_the_field_and_writes_nothing(memory):
    for kwargs, field in [(dict(user_id=""), "user_id"), (dict(user_id=None), "user_id"),
                          (dict(user_id=" ann"), "user_id"), (dict(session_id="s1 "), "session_id"),
                          (dict(scope=""), "scope"), (dict(scope=None), "scope"), (dict(max_tokens=0), "max_tokens"),
                          (dict(max_tokens="9"), "max_tokens"), (dict(agent_id=""), "agent_id"),
                          (dict(llm=MockFunctionCallingLLMWithChatMemoryOfLastCall()), "llm")]:
        with pytest.raises(InvalidInputError) as info:
            GraphMemMemoryBlock(**{"memory": memory, "scope": "shop", "user_id": "ann", **kwargs})
        assert info.value.field == field, kwargs
    with pytest.raises(InvalidInputError) as info:
        GraphMemMemory.from_defaults(session_id="s1")
    assert info.value.field == "memory_blocks"

    mem = GraphMemMemory.from_defaults(session_id=" s1", memory_blocks=[block(memory)])  # LlamaIndex takes any key
    with pytest.raises(InvalidInputError) as info:
        await mem.aput(ChatMessage(role="user", content="My cat is called Tom."))
    assert info.value.field == "session_id" and await mem.aget_all() == []  # not queued either
    mem = GraphMemMemory.from_defaults(session_id="s1", memory_blocks=[block(memory)])
    with pytest.raises(InvalidInputError) as info:
        await mem.aput_messages([ChatMessage(role="user", content="fine"), ChatMessage(role="user", content="x" * 2**21)])
    assert info.value.field == "messages[1].content" and await mem.aget_all() == []
    with pytest.raises(InvalidInputError) as info:
        await block(memory).remember_turn([ChatMessage(role="user", content="fine"), {"role": "user", "content": "x"}])
    assert info.value.field == "messages[1]"
    with pytest.raises(InvalidInputError) as info:
        await block(memory).aget([ChatMessage(role="user", content="Tom?")], session_id="")
    assert info.value.field == "session_id"
    assert await history(memory, "s1") == [] and memory.recall("cat Tom fine", scope="shop/ann") == []


async def test_the_block_s_hooks_are_spans_over_graphmem_s(observed, spans):
    await ask(observed, "My cat is called Tom.", session="s1")
    await ask(observed, "What is my cat called?", session="s2")
    names = spans.names()
    assert "graphmem.llamaindex.get" in names and "graphmem.llamaindex.remember_turn" in names
    gets, inner = spans.named("graphmem.llamaindex.get"), spans.named("graphmem.context_for_turn")
    assert inner and {s.parent.span_id for s in inner} <= {s.context.span_id for s in gets}
    [first, _] = spans.named("graphmem.llamaindex.remember_turn")
    stored = [s for s in spans.named("graphmem.after_turn") if s.parent.span_id == first.context.span_id]
    assert len(stored) == 1 and stored[0].attributes["graphmem.messages"] == 2


async def test_the_block_is_truncated_by_priority_and_placed_as_the_memory_asks(memory):
    await ask(memory, "My cat is called Tom and my dog is called Rex.", session="s1")
    await ask(memory, "My bird is called Kiwi.", session="s2")
    question = ChatMessage(role="user", content="What are my cat, dog and bird called?")
    full = await block(memory).aget([question], session_id="s3")
    assert full.startswith("## ") and "Tom" in full and "Kiwi" in full
    cut = await block(memory).atruncate(full, 15)
    assert cut and full.startswith(cut) and len(cut) <= len(full) - 60 and not cut.endswith("\n")
    assert await block(memory).atruncate(full, 10_000) is None

    mem = Memory.from_defaults(session_id="s3", memory_blocks=[block(memory, priority=1)], token_limit=70)
    await mem.aput(question)
    [system, user] = await mem.aget()
    assert system.role == "system" and len(system.content) < len(full) and user.content == question.content
    mem = Memory.from_defaults(session_id="s3", memory_blocks=[block(memory)], token_limit=70,
                               insert_method=InsertMethod.USER)  # priority 0: never cut
    await mem.aput(question)
    [user] = await mem.aget()
    assert user.role == "user" and "<graphmem>" in user.blocks[0].text and full.strip() in user.blocks[0].text


def test_docs_example(memory):
    assert run_blocks("llamaindex", {"memory": memory}) >= 1
