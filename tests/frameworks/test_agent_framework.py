"""Microsoft Agent Framework's context and history providers over graphmem, on a real Neo4j,
through the framework's own ``Agent`` with an offline recording chat client."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from agent_framework import Agent, AgentResponse, AgentSession, BaseChatClient, ChatResponse, Message, SessionContext

from graphmem import InvalidInputError
from graphmem.integrations.agent_framework import GraphMemContextProvider, GraphMemHistoryProvider
from tests.frameworks.doc_blocks import run_blocks


class RecordingClient(BaseChatClient):
    """Answers every request with "ok" and keeps what it was sent: the instructions (where
    the framework puts the providers' instructions) and the messages."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, list[Message]]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        async def respond() -> ChatResponse:
            self.calls.append((str(options.get("instructions") or ""), list(messages)))
            return ChatResponse(messages=Message(role="assistant", contents=["ok"]))

        return respond()

    def instructions(self, index: int = -1) -> str:
        return self.calls[index][0]

    def texts(self, index: int = -1) -> list[str]:
        return [m.text for m in self.calls[index][1]]

    def prompt(self, index: int = -1) -> str:
        return "\n".join([self.instructions(index), *self.texts(index)])


def helper(memory: Any, user: str, client: RecordingClient, *providers: Any) -> Agent:
    chosen = providers or (GraphMemContextProvider(memory, scope="shop", user_id=user),)
    return Agent(client=client, instructions="Be brief.", context_providers=list(chosen))


async def stored(memory: Any, session_id: str, scope: str = "shop/ann") -> list[str]:
    found = memory.messages(session_id, scope=scope)
    return [e.text for e in (await found if hasattr(found, "__await__") else found)]


async def hooks(provider: Any, messages: list[Message], reply: list[Message] | None = None, *, session_id: str = "s1",
                agent: Any = None, before: bool = False) -> SessionContext:
    """One run's hooks called directly, as the framework calls them."""
    session = AgentSession(session_id=session_id)
    context = SessionContext(session_id=session_id, input_messages=messages)
    state = session.state.setdefault(provider.source_id, {})
    if before:
        await provider.before_run(agent=agent, session=session, context=context, state=state)
        return context
    context._response = AgentResponse(messages=reply or [])
    await provider.after_run(agent=agent, session=session, context=context, state=state)
    return context


async def test_what_one_session_told_is_in_the_next_session_s_instructions(either):
    client = RecordingClient()
    agent = helper(either, "ann", client)
    first = agent.create_session()
    await agent.run("My cat is called Tom.", session=first)
    assert client.instructions() == "Be brief."  # nothing remembered yet: no block
    # the agent added Agent Framework's in-memory history itself (a session, no history provider)
    assert [type(p).__name__ for p in agent.context_providers] == ["InMemoryHistoryProvider", "GraphMemContextProvider"]
    second = agent.create_session()
    await agent.run("What is my cat called?", session=second)
    assert "My cat is called Tom." in client.instructions() and client.instructions().startswith("Be brief.\n## Memories")
    assert client.texts() == ["What is my cat called?"]  # the new session's own history has no Tom
    assert await stored(either, first.session_id) == ["My cat is called Tom.", "ok"]
    # the block went to the instructions, so the session's history never stored it
    kept = [m.text for m in second.state["in_memory"]["messages"]]
    assert kept == ["What is my cat called?", "ok"]


async def test_two_users_of_one_application_never_read_each_other(memory):
    client = RecordingClient()
    ann, bob = helper(memory, "ann", client), helper(memory, "bob", client)
    await ann.run("My cat is called Tom.", session=ann.create_session())
    await bob.run("My dog is called Rex.", session=bob.create_session())
    await bob.run("What are my cat and my dog called?", session=bob.create_session())
    assert "Rex" in client.prompt() and "Tom" not in client.prompt()
    await ann.run("What are my cat and my dog called?", session=ann.create_session())
    assert "Tom" in client.prompt() and "Rex" not in client.prompt()
    assert all("Tom" not in r.record.text for r in memory.recall("cat Tom", scope="shop/bob"))


async def test_the_history_provider_keeps_the_conversation_and_the_context_provider_only_reads(either):
    client = RecordingClient()

    def build() -> Agent:
        return helper(either, "ann", client, GraphMemHistoryProvider(either, scope="shop", user_id="ann"),
                      GraphMemContextProvider(either, scope="shop", user_id="ann"))

    agent = build()
    session = agent.create_session()
    await agent.run("My cat is called Tom.", session=session)
    await agent.run("And my dog is Rex.", session=session)
    assert client.texts() == ["My cat is called Tom.", "ok", "And my dog is Rex."]  # loaded from graphmem
    assert [type(p).__name__ for p in agent.context_providers] == ["GraphMemHistoryProvider", "GraphMemContextProvider"]
    # two providers, each message stored once
    assert await stored(either, session.session_id) == ["My cat is called Tom.", "ok", "And my dog is Rex.", "ok"]
    assert session.state.get("in_memory") is None
    # another process: a new agent resumes the conversation by its id, and a new session recalls it
    other = build()
    await other.run("Anything else?", session=AgentSession(session_id=session.session_id))
    assert client.texts()[:4] == ["My cat is called Tom.", "ok", "And my dog is Rex.", "ok"]
    await other.run("What is my cat called?", session=other.create_session())
    assert "My cat is called Tom." in client.instructions() and "Tom" not in " ".join(client.texts())


async def test_the_context_provider_stores_what_the_history_provider_does_not(memory):
    history = GraphMemHistoryProvider(memory, scope="shop", user_id="ann", store_outputs=False)
    context = GraphMemContextProvider(memory, scope="shop", user_id="ann")
    agent = SimpleNamespace(context_providers=[history, context])
    said, reply = [Message(role="user", contents=["hello"])], [Message(role="assistant", contents=["hi"])]
    for provider in (history, context):
        await hooks(provider, said, reply, agent=agent)
    assert await stored(memory, "s1") == ["hello", "hi"]
    # another user's or application's history provider does not count
    elsewhere = SimpleNamespace(context_providers=[GraphMemHistoryProvider(memory, scope="shop", user_id="bob"), context])
    await hooks(context, [Message(role="user", contents=["again"])], session_id="s2", agent=elsewhere)
    assert await stored(memory, "s2") == ["again"]


async def test_message_ids_keep_a_re_run_from_storing_twice_and_only_text_messages_are_stored(amemory):
    provider = GraphMemContextProvider(amemory, scope="shop", user_id="ann")
    said = [Message(role="user", contents=["My cat is called Tom."], message_id="m1", author_name="Ann"),
            Message(role="tool", contents=["tool output"]), Message(role="user", contents=["   "])]
    reply = [Message(role="assistant", contents=["Nice"], message_id="r1", author_name="UnnamedAgent"),
             Message(role="assistant", contents=["name!"], message_id="r1")]
    for _ in range(2):
        await hooks(provider, said, reply)
    episodes = await amemory.messages("s1", scope="shop/ann")
    assert [(e.id, e.role, e.text, e.speaker) for e in episodes] == [
        ("m1", "user", "My cat is called Tom.", "Ann"), ("r1", "assistant", "Nice", None),
        ("r1#2", "assistant", "name!", None)]
    history = GraphMemHistoryProvider(amemory, scope="shop", user_id="ann")
    loaded = await history.get_messages("s1")
    assert [(m.role, m.text, m.message_id) for m in loaded] == [
        ("user", "My cat is called Tom.", "m1"), ("assistant", "Nice", "r1"), ("assistant", "name!", "r1#2")]
    await history.save_messages("s1", loaded)  # a transcript saved again: kept once
    assert len(await amemory.messages("s1", scope="shop/ann")) == 3
    assert await history.clear("s1") == 3 and await history.get_messages("s1") == []


async def test_bad_input_names_the_field_and_writes_nothing(memory):
    for kwargs, field in [({"user_id": ""}, "user_id"), ({"user_id": " ann"}, "user_id"), ({"scope": None}, "scope"),
                          ({"scope": "shop/"}, "scope"), ({"source_id": ""}, "source_id"),
                          ({"max_tokens": 0}, "max_tokens"), ({"agent_id": " "}, "agent_id"),
                          ({"context_prompt": " "}, "context_prompt")]:
        with pytest.raises(InvalidInputError) as info:
            GraphMemContextProvider(memory, **{"scope": "shop", "user_id": "ann", **kwargs})
        assert info.value.field == field
    with pytest.raises(InvalidInputError) as info:
        GraphMemHistoryProvider(memory, scope="shop", user_id="ann", max_messages=0)
    assert info.value.field == "max_messages"
    with pytest.raises(InvalidInputError) as info:  # messages reads at most 10,000
        GraphMemHistoryProvider(memory, scope="shop", user_id="ann", max_messages=10_001)
    assert info.value.field == "max_messages"
    client = RecordingClient()
    agent = helper(memory, "ann", client)
    with pytest.raises(InvalidInputError) as info:
        await agent.run("My cat is called Tom.", session=AgentSession(session_id="s1 "))
    assert info.value.field == "session_id" and client.calls == []
    provider = GraphMemContextProvider(memory, scope="shop", user_id="ann")
    with pytest.raises(InvalidInputError) as info:  # one bad id: the whole turn is refused
        await hooks(provider, [Message(role="user", contents=["My cat is called Tom."], message_id="ok-id"),
                               Message(role="user", contents=["and Rex"], message_id=" bad")])
    assert info.value.field == "messages[1].id"
    history = GraphMemHistoryProvider(memory, scope="shop", user_id="ann")
    with pytest.raises(InvalidInputError) as info:
        await history.save_messages(None, [Message(role="user", contents=["My cat is called Tom."])])
    assert info.value.field == "session_id" and await history.get_messages(None) == []
    # a message id another user wrote is refused, not shared
    await hooks(GraphMemContextProvider(memory, scope="shop", user_id="bob"),
                [Message(role="user", contents=["My dog is Rex."], message_id="m1")], session_id="b1")
    with pytest.raises(InvalidInputError) as info:
        await hooks(provider, [Message(role="user", contents=["My cat is called Tom."], message_id="m1")])
    assert info.value.field == "messages[0].id"
    assert memory.recall("cat Tom", scope="shop/ann") == [] and await stored(memory, "s1") == []


async def test_what_the_history_provider_no_longer_loads_comes_back_in_the_block(memory):
    client = RecordingClient()
    agent = helper(memory, "ann", client, GraphMemHistoryProvider(memory, scope="shop", user_id="ann", max_messages=2),
                   GraphMemContextProvider(memory, scope="shop", user_id="ann"))
    session = agent.create_session()
    await agent.run("My cat is called Tom.", session=session)
    await agent.run("What is my cat called?", session=session)
    assert "Tom" in client.texts()[0] and "Tom" not in client.instructions()  # loaded: not repeated
    await agent.run("I like tea.", session=session)
    await agent.run("Again, what is my cat called?", session=session)
    assert not any("Tom" in t for t in client.texts())  # the two newest messages are all it loads
    assert "My cat is called Tom." in client.instructions()  # so the block brings Tom back


async def test_a_run_without_user_text_recalls_nothing(memory):
    provider = GraphMemContextProvider(memory, scope="shop", user_id="ann")
    await hooks(provider, [Message(role="user", contents=["My cat is called Tom."])])
    tool_only = await hooks(provider, [Message(role="tool", contents=["Tom"])], before=True)
    assert tool_only.instructions == []
    asked = await hooks(provider, [Message(role="user", contents=["What is my cat called?"])], session_id="s2",
                        before=True)
    assert len(asked.instructions) == 1 and "My cat is called Tom." in asked.instructions[0]
    assert asked.context_messages == {}  # instructions only: nothing a history provider would store


async def test_the_hooks_are_spans_with_graphmem_s_own_calls_beneath(observed, spans):
    client = RecordingClient()
    agent = helper(observed, "ann", client, GraphMemHistoryProvider(observed, scope="shop", user_id="ann"),
                   GraphMemContextProvider(observed, scope="shop", user_id="ann"))
    await agent.run("My cat is called Tom.", session=agent.create_session())
    names = spans.names()
    for hook, inner in [("graphmem.agent_framework.before_run", "graphmem.context_for_turn"),
                        ("graphmem.agent_framework.history.get_messages", "graphmem.messages"),
                        ("graphmem.agent_framework.history.save_messages", "graphmem.after_turn")]:
        (outer,) = spans.named(hook)
        assert any(s.parent is not None and s.parent.span_id == outer.context.span_id for s in spans.named(inner)), hook
    assert "graphmem.agent_framework.after_run" in names
    assert names.index("graphmem.agent_framework.before_run") < names.index("graphmem.agent_framework.after_run")


def test_docs_example(memory):
    assert run_blocks("agent-framework", {"memory": memory}) >= 1
