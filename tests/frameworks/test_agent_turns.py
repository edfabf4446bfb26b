"""The placement and the before/after-run calls every framework adapter shares
(``graphmem.integrations._agent_turns``), on a real Neo4j."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError
from graphmem.integrations._agent_turns import TurnMemory


def test_each_user_gets_a_scope_below_the_application_s_and_odd_ids_are_escaped(memory):
    turns = TurnMemory(memory, scope="shop")
    assert turns.place("ann", "s1").scope == "shop/ann"
    assert turns.place("a/b").scope == "shop/a%2Fb" and turns.place("a/b").user_id == "a/b"
    assert TurnMemory(memory, scope=None).place("ann", app="support").scope == "support/ann"
    assert TurnMemory(memory, scope="x").place("ann", app="support").scope == "x/support/ann"
    for bad, field in [(("",), "user_id"), (("ann", " s"), "session_id"), ((None,), "user_id")]:
        with pytest.raises(InvalidInputError) as info:
            turns.place(*bad)
        assert info.value.field == field
    with pytest.raises(InvalidInputError) as info:
        TurnMemory(memory, scope=None).place("ann")
    assert info.value.field == "scope"
    with pytest.raises(InvalidInputError) as info:
        turns.place("ann", app="", app_field="appName")
    assert info.value.field == "appName"


async def test_a_turn_stored_after_one_run_is_in_the_block_before_the_next(memory):
    turns = TurnMemory(memory, scope="shop")
    ann, bob = turns.place("ann", "s1"), turns.place("bob", "s2")
    handle = await turns.after(ann, [{"role": "user", "content": "My cat is called Tom."},
                                     {"role": "assistant", "content": "  "}])
    assert [e.text for e in handle.episodes] == ["My cat is called Tom."]  # the blank reply is not stored
    later = turns.place("ann", "s3")
    assert "Tom" in await turns.before(later, "what is my cat called?")
    assert "Tom" not in await turns.before(turns.place("bob", "s4"), "what is my cat called?")
    assert await turns.before(later, "   ") == "" and await turns.after(bob, [{"role": "user", "content": ""}]) is None
    assert [e.text for e in await turns.history(ann)] == ["My cat is called Tom."] and await turns.history(bob) == []
    assert [r.record.text for r in await turns.search(later, "cat")] == ["My cat is called Tom."]
    assert await turns.search(turns.place("bob"), "cat") == []
    assert await turns.clear(ann) == 1 and await turns.history(ann) == []


async def test_bad_messages_write_nothing(memory):
    turns = TurnMemory(memory, scope="shop")
    ann = turns.place("ann", "s1")
    with pytest.raises(InvalidInputError) as info:
        await turns.after(ann, [{"role": "user", "content": "fine"}, {"role": "wizard", "content": "x"}])
    assert info.value.field == "messages[1].role"
    assert await turns.history(ann) == []


def test_an_app_named_dot_or_dot_dot_is_refused_as_the_app(memory):
    turns = TurnMemory(memory, scope="x")
    for app in (".", ".."):
        with pytest.raises(InvalidInputError) as info:
            turns.place("ann", app=app)
        assert info.value.field == "app_name"


async def test_a_user_s_history_and_clear_never_reach_the_application_s_episodes(memory):
    # the application keeps an episode at its own scope under a session id a user may also use
    memory.ingest([{"role": "user", "content": "Opening hours are nine to five."}], scope="shop", llm=None,
                  session_id="s1")
    turns = TurnMemory(memory, scope="shop")
    mallory = turns.place("mallory", "s1")
    assert await turns.history(mallory) == []
    assert await turns.clear(mallory) == 0
    await turns.after(mallory, [{"role": "user", "content": "I am Mallory."}])
    assert [e.text for e in await turns.history(mallory)] == ["I am Mallory."]
    assert await turns.clear(mallory) == 1 and await turns.history(mallory) == []
    assert [e.text for e in memory.messages("s1", scope="shop")] == ["Opening hours are nine to five."]


async def test_an_error_names_the_message_by_its_place_in_the_caller_s_list(memory):
    turns = TurnMemory(memory, scope="shop")
    ann = turns.place("ann", "s1")
    messages = [{"role": "user", "content": "kept"}, {"role": "wizard", "content": "x"}]
    with pytest.raises(InvalidInputError) as info:  # the caller left its items 0-2 out: this was its 4th
        await turns.after(ann, messages, field="events", origins=[1, 3])
    assert info.value.field == "events[3].role"
    with pytest.raises(InvalidInputError) as info:  # a blank message is skipped, the index stays the caller's
        await turns.after(ann, [{"role": "user", "content": " "}, *messages])
    assert info.value.field == "messages[2].role"


async def test_messages_the_framework_no_longer_sends_can_come_back_as_memories(memory):
    turns = TurnMemory(memory, scope="shop")
    ann = turns.place("ann", "s1")
    await turns.after(ann, [{"role": "user", "content": "My cat is called Tom."},
                            {"role": "assistant", "content": "Noted."}])
    await turns.after(ann, [{"role": "user", "content": "I like tea."}, {"role": "assistant", "content": "Fine."}])
    assert "Tom" not in await turns.before(ann, "what is my cat called?")  # all sent: not repeated
    assert "Tom" not in await turns.before(ann, "what is my cat called?", sent=4)
    assert "Tom" in await turns.before(ann, "what is my cat called?", sent=2)  # trimmed away: recalled
    assert "Tom" in await turns.before(ann, "what is my cat called?", sent=0)
    with pytest.raises(InvalidInputError) as info:
        await turns.before(ann, "x", sent=-1)
    assert info.value.field == "sent"
