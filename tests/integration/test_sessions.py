"""Sessions: a conversation's episodes in order, the sessions of a scope, forgetting one."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError

from .helpers import Clock, utc

SCOPE = "acme/chat/ann"


def test_messages_come_back_oldest_first_in_a_newest_window(memory):
    memory.ingest([{"role": "user", "content": f"turn {i}"} for i in range(6)], scope=SCOPE, llm=None,
                  session_id="s1", user_id="ann")
    memory.ingest([{"role": "assistant", "content": "later answer"}], scope=SCOPE, llm=None, session_id="s1")
    memory.ingest([{"role": "user", "content": "another chat"}], scope=SCOPE, llm=None, session_id="s2")
    texts = [e.text for e in memory.messages("s1", scope=SCOPE)]
    assert texts == [f"turn {i}" for i in range(6)] + ["later answer"]
    assert [e.text for e in memory.messages("s1", scope=SCOPE, max_messages=3)] == ["turn 4", "turn 5", "later answer"]
    # 'turn 5' and 'later answer' cost 2 + 3 estimated tokens: a budget of 5 keeps exactly those
    assert [e.text for e in memory.messages("s1", scope=SCOPE, max_tokens=5)] == ["turn 5", "later answer"]
    assert memory.messages("s1", scope="acme/chat/bob") == []  # a sibling scope does not see it
    assert [e.role for e in memory.messages("s1", scope=SCOPE + "/deeper")][-1] == "assistant"  # a child does


def test_sessions_list_and_clear(neo4j, schema, embedder, tenant):
    from graphmem import Memory

    clock = Clock(utc(2025, 5, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        memory.ingest([{"role": "user", "content": "hi"}], scope=SCOPE, llm=None, session_id="a", user_id="ann")
        clock.tick(hours=1)
        memory.ingest([{"role": "user", "content": "again"}, {"role": "assistant", "content": "hello"}],
                      scope=SCOPE, llm=None, session_id="b", user_id="ann")
        memory.ingest([{"role": "user", "content": "other user"}], scope=SCOPE, llm=None, session_id="c", user_id="bo")
        listed = memory.sessions(scope=SCOPE, user_id="ann")
        assert [(s["session_id"], s["count"]) for s in listed] == [("b", 2), ("a", 1)]
        assert listed[1]["first"] == utc(2025, 5, 1) and listed[0]["last"] > listed[0]["first"]
        assert {s["session_id"] for s in memory.sessions(scope=SCOPE)} == {"a", "b", "c"}
        assert memory.clear_session("b", scope=SCOPE) == 2
        assert memory.messages("b", scope=SCOPE) == []
        assert memory.clear_session("b", scope=SCOPE) == 0
        assert [s["session_id"] for s in memory.sessions(scope=SCOPE, user_id="ann")] == ["a"]
        gone = memory.get(memory.messages("a", scope=SCOPE)[0].id)
        assert gone.invalidated_at is None  # another session is untouched


def test_session_arguments_are_checked(memory):
    with pytest.raises(InvalidInputError) as info:
        memory.messages("s", scope=SCOPE, max_messages=0)
    assert info.value.field == "max_messages"
    with pytest.raises(InvalidInputError) as info:
        memory.messages("", scope=SCOPE)
    assert info.value.field == "session_id"
    with pytest.raises(InvalidInputError) as info:
        memory.clear_session("s", scope="a//b")
    assert info.value.field == "scope"


async def test_async_sessions(neo4j, schema, embedder, tenant):
    from graphmem import AsyncMemory

    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        await amem.ingest([{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}],
                          scope=SCOPE, llm=None, session_id="x")
        assert [e.text for e in await amem.messages("x", scope=SCOPE)] == ["one", "two"]
        assert (await amem.sessions(scope=SCOPE))[0]["count"] == 2
        assert await amem.clear_session("x", scope=SCOPE) == 2
