"""What the agent reads (issue 48): every line of a block says who said it and when, a question
naming someone brings that person's turns, the exchange around a turn comes with it, and no
block passes its budget."""

from __future__ import annotations

import re

import pytest

from graphmem import RecallSettings, estimate_tokens

from .helpers import utc

SCOPE = "friends"
EPISODE_LINE = re.compile(r"^- (\d{4}-\d{2}-\d{2}) (Nora|Theo|user|assistant): \S")
HOBBIES = ["pottery", "sailing", "chess", "baking bread", "climbing", "painting", "gardening", "running",
           "birdwatching", "knitting", "photography", "kayaking"]


def chat(memory, sessions: int = 3, turns: int = 40) -> None:
    """Nora and Theo, taking turns, ``sessions`` sessions a week apart (Nora speaks half of
    every session's turns: 60 turns with the defaults)."""
    for s in range(sessions):
        said = []
        for i in range(turns):
            hobby = HOBBIES[(s * turns + i) // 2 % len(HOBBIES)]
            if i % 2 == 0:
                said.append({"role": "user", "name": "Nora", "content": f"Last weekend I tried {hobby} again, turn {s}.{i}."})
            else:
                said.append({"role": "user", "name": "Theo", "content": f"How did the {hobby} go? (turn {s}.{i})"})
        memory.ingest(said, scope=SCOPE, llm=None, session_id=f"week-{s}", occurred_at=utc(2024, 3, 1 + 7 * s))


def episode_lines(block: str, title: str) -> list[str]:
    part = block.split(f"## {title}\n", 1)[1].split("\n\n## ", 1)[0]
    return part.splitlines()


def test_every_episode_line_names_the_speaker_and_the_day(memory):
    chat(memory)
    block = memory.context("What did Nora say about sailing?", scope=SCOPE, max_tokens=1000)
    turns = episode_lines(block, "Episodes")
    assert turns and all(EPISODE_LINE.match(line) for line in turns), turns
    assert any(line.startswith("- 2024-03-01 Nora: Last weekend I tried sailing") for line in turns)
    days = [EPISODE_LINE.match(line).group(1) for line in turns]
    assert days == sorted(days)  # in the order they were said
    for_turn = memory.context_for_turn("What did Nora say about sailing?", scope=SCOPE, session_id="week-2",
                                       max_tokens=1000)
    for title in ("Episodes", "Recent messages"):
        lines = episode_lines(for_turn, title)
        assert lines and all(EPISODE_LINE.match(line) for line in lines), (title, lines)
    recent = set(episode_lines(for_turn, "Recent messages"))
    assert not recent & set(episode_lines(for_turn, "Episodes"))  # a message is shown once


def test_a_speaker_without_a_name_is_shown_by_role(memory):
    memory.ingest([{"role": "user", "content": "I booked the ferry to Hydra for May 3."},
                   {"role": "assistant", "content": "Noted: the Hydra ferry on May 3."}],
                  scope=SCOPE, llm=None, session_id="trip", occurred_at=utc(2024, 4, 2))
    block = memory.context("When is the Hydra ferry?", scope=SCOPE, max_tokens=500)
    assert "- 2024-04-02 user: I booked the ferry to Hydra for May 3." in block
    assert "- 2024-04-02 assistant: Noted: the Hydra ferry on May 3." in block


def test_a_question_naming_a_frequent_speaker_gets_k_of_their_turns(memory):
    chat(memory)
    for question in ("What does Nora like to do?", "Who is Nora?"):
        results = memory.recall(question, scope=SCOPE, k=10, kinds=["episode"])
        assert len(results) == 10, question
        assert sum(r.record.speaker == "Nora" for r in results) >= 8, question
    block = memory.context("What does Nora like to do?", scope=SCOPE, max_tokens=2000)
    assert sum(line.startswith("- 2024-03-") and " Nora: " in line for line in block.splitlines()) >= 10


POETRY = [
    {"role": "user", "name": "Nora", "content": "My cousin visited from Lisbon."},
    {"role": "user", "name": "Theo", "content": "I went to a poetry reading on Friday."},
    {"role": "user", "name": "Nora", "content": "Oh nice, what was it about?"},
    {"role": "user", "name": "Theo", "content": "Stories of lighthouse keepers, told in verse."},
    {"role": "user", "name": "Nora", "content": "I have to get going now."},
]


def test_the_exchange_around_a_turn_comes_with_it(memory, neo4j, embedder, tenant):
    memory.ingest(POETRY, scope=SCOPE, llm=None, session_id="friday", occurred_at=utc(2024, 5, 10))
    block = memory.context("poetry reading", scope=SCOPE, max_tokens=500)
    assert episode_lines(block, "Episodes") == [
        "- 2024-05-10 Nora: My cousin visited from Lisbon.",
        "- 2024-05-10 Theo: I went to a poetry reading on Friday.",
        "- 2024-05-10 Nora: Oh nice, what was it about?",
        "- 2024-05-10 Theo: Stories of lighthouse keepers, told in verse.",
    ]
    plain = memory.recall("poetry reading", scope=SCOPE, k=50, kinds=["episode"])
    assert "lighthouse" not in " ".join(r.record.text for r in plain)  # the exchange is context()'s, not recall's
    from graphmem import Memory

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                recall_settings=RecallSettings(exchange_share=0.0)) as without:
        lines = episode_lines(without.context("poetry reading", scope=SCOPE, max_tokens=500), "Episodes")
        assert lines == [f"- 2024-05-10 {r.record.speaker}: {r.record.text}" for r in sorted(
            plain, key=lambda r: r.record.occurred_at)]  # recall's turns alone


def test_one_speaker_in_a_row_is_no_exchange(memory):
    memory.ingest([{"role": "user", "content": text} for text in (
        "I started learning the cello.", "I went to a poetry reading on Friday.", "My landlord raised the rent.")],
        scope=SCOPE, llm=None, session_id="notes", occurred_at=utc(2024, 5, 10))
    block = memory.context("poetry reading", scope=SCOPE, max_tokens=500)
    assert episode_lines(block, "Episodes") == ["- 2024-05-10 user: I went to a poetry reading on Friday."]


def test_the_exchange_keeps_to_what_recall_may_show(memory):
    """A turn around a hit that recall's filters leave out (another session's, with
    ``session_id``; one that happened after ``valid_at``) stays out of the block."""
    memory.ingest(POETRY[:2], scope=SCOPE, llm=None, session_id="friday", occurred_at=utc(2024, 5, 10))
    memory.ingest(POETRY[2:], scope=SCOPE, llm=None, session_id="friday", occurred_at=utc(2024, 5, 12))
    before = memory.context("poetry reading", scope=SCOPE, max_tokens=500, valid_at=utc(2024, 5, 11))
    assert "what was it about" not in before and "lighthouse" not in before and "poetry reading" in before
    after = memory.context("poetry reading", scope=SCOPE, max_tokens=500)
    assert "lighthouse" in after


@pytest.mark.parametrize("budget", [40, 120, 500, 1000, 2000])
def test_no_block_passes_its_budget(memory, budget):
    chat(memory)
    memory.set_profile("nora", scope=SCOPE, name="Nora Quist", location="Bergen")
    memory.note_add("Nora prefers short answers.", scope=SCOPE, owner="nora", label="user")
    memory.remember("Nora sails on Lake Constance every June.", scope=SCOPE)
    question = "What does Nora do on weekends?"
    block = memory.context(question, scope=SCOPE, max_tokens=budget)
    assert estimate_tokens(block) <= budget
    for_turn = memory.context_for_turn(question, scope=SCOPE, session_id="week-2", user_id="nora", max_tokens=budget)
    assert estimate_tokens(for_turn) <= budget
    if budget == 1000:  # candidates to spare: the budget is used
        assert estimate_tokens(block) > 0.9 * budget and estimate_tokens(for_turn) > 0.9 * budget
    if budget >= 1000:  # the memories take what the other sections leave
        memories = for_turn.split("## Episodes\n", 1)[1].split("\n\n## ", 1)[0]
        assert estimate_tokens(memories) > budget * 4 // 15  # more than the memories' own share
