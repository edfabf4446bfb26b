"""context_for_turn: one prompt block with core notes, profile, memories, summaries and
recent messages, each within its share of the budget."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError, estimate_tokens

from ..fakes import scripted, tool_answer

SCOPE = "acme/chat/ann"


def fill(memory):
    chat = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}: planning the Lisbon trip, step {i}"}
            for i in range(60)]
    memory.ingest(chat, scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    model = scripted(tool_answer("SummaryDraft", {"text": "Ann planned a Lisbon trip in May and booked a hotel."}))
    summary = memory.summarize("s1", scope=SCOPE, llm=model, window=20)
    memory.set_profile("ann", scope=SCOPE, name="Ann Lee", timezone="Europe/Lisbon")
    memory.note_add("Answer in short sentences.", scope=SCOPE, owner="travel-bot", label="persona")
    memory.note_add("Ann is vegetarian.", scope=SCOPE, owner="ann", label="user")
    memory.remember("Ann's flight to Lisbon leaves on May 3.", scope=SCOPE)
    return summary


def test_a_sixty_message_session_fits_the_budget_with_every_section(memory):
    summary = fill(memory)
    assert len(summary.cites) == 40
    block = memory.context_for_turn("when is my Lisbon flight?", scope=SCOPE, session_id="s1", user_id="ann",
                                    agent_id="travel-bot", max_tokens=600)
    assert estimate_tokens(block) <= 600
    for title in ("## Core notes", "## User profile", "## Facts", "## Earlier in this conversation",
                  "## Recent messages"):
        assert title in block
    assert "- [persona] Answer in short sentences." in block and "- [user] Ann is vegetarian." in block
    assert "- name: Ann Lee [user]" in block and "May 3" in block
    assert "Ann planned a Lisbon trip" in block
    recent = block.split("## Recent messages\n")[1].splitlines()
    assert recent[-1].startswith("- 20") and " assistant: message 59:" in recent[-1]  # the date, who spoke
    assert len(recent) <= 20 and not any("message 39:" in line for line in recent)  # only the window
    # the memories repeat neither the window's messages nor the profile's fields
    memories = block.split("## Earlier in this conversation")[0]
    assert not any(line in memories for line in recent) and "timezone is Europe/Lisbon" not in memories
    # the same graph gives the same block
    again = memory.context_for_turn("when is my Lisbon flight?", scope=SCOPE, session_id="s1", user_id="ann",
                                    agent_id="travel-bot", max_tokens=600)
    assert again == block


def test_small_budgets_trim_by_priority_and_oldest_messages_go_first(memory):
    fill(memory)
    for budget in (60, 150, 300):
        block = memory.context_for_turn("Lisbon", scope=SCOPE, session_id="s1", user_id="ann", agent_id="travel-bot",
                                        max_tokens=budget)
        assert estimate_tokens(block) <= budget
    only_messages = memory.context_for_turn("Lisbon", scope=SCOPE, session_id="s1", max_tokens=80,
                                            priorities={"notes": 0, "profile": 0, "memories": 0, "summaries": 0})
    lines = only_messages.splitlines()
    assert lines[0] == "## Recent messages" and " assistant: message 59:" in lines[-1]
    kept = [int(line.split("message ")[1].split(":")[0]) for line in lines[1:]]
    assert kept == list(range(60 - len(kept), 60)) and 0 < len(kept) < 20  # an unbroken newest tail
    with pytest.raises(InvalidInputError) as info:
        memory.context_for_turn("x", scope=SCOPE, priorities={"gossip": 1})
    assert info.value.field == "priorities"
    with pytest.raises(InvalidInputError) as info:
        memory.context_for_turn("x", scope=SCOPE, max_tokens=0)
    assert info.value.field == "max_tokens"


def test_without_its_messages_section_the_conversation_s_newest_turns_are_not_repeated_as_memories(memory):
    # an agent framework sends the conversation itself (priorities messages 0): the block
    # brings earlier conversations, not the newest turns of this one once more
    memory.ingest([{"role": "user", "content": "My flight to Lisbon leaves on May 3."}], scope=SCOPE, llm=None,
                  session_id="s0")
    memory.ingest([{"role": "user", "content": "I will stay in Lisbon near the river."},
                   {"role": "assistant", "content": "Lisbon by the river is lovely."}], scope=SCOPE, llm=None,
                  session_id="s1")
    block = memory.context_for_turn("Lisbon", scope=SCOPE, session_id="s1", priorities={"messages": 0})
    assert "flight to Lisbon" in block and "near the river" not in block and "lovely" not in block
    older = memory.context_for_turn("Lisbon", scope=SCOPE, session_id="s1", priorities={"messages": 0}, window=1)
    assert "near the river" in older and "lovely" not in older  # only the newest window is the caller's
    anywhere = memory.context_for_turn("Lisbon", scope=SCOPE, priorities={"messages": 0})
    assert "near the river" in anywhere
