"""A batch's speakers and named entities planned without a database (graphmem/_memory/mentions.py)."""

from __future__ import annotations

from graphmem import Mention
from graphmem._memory import mentions


def msg(content, role="user", speaker=None):
    return {"role": role, "content": content, "speaker": speaker}


def at(text, name, kind="person", label="PERSON"):
    start = text.index(name)
    return Mention(text=name, type=kind, start=start, end=start + len(name), label=label)


def plan(messages, found, who=None):
    return mentions.plan(messages, [f"e{i}" for i in range(len(messages))], found, who or {})


def names(result):
    return {(e.name, e.type, tuple(e.aliases)) for e in result.entities}


def test_speakers_by_name_and_by_role():
    result = plan([msg("hi", speaker="Nora"), msg("hello"), msg("hey", role="assistant"), msg("{}", role="tool")],
                  [[], [], [], []], {"agent_id": "bot-1"})
    assert names(result) == {("Nora", "person", ()), ("user", "user", ()), ("bot-1", "agent", ())}
    assert [(result.entities[i].name, e) for i, e in result.spoke] == [("Nora", "e0"), ("user", "e1"), ("bot-1", "e2")]
    assert plan([msg("hello")], [[]], {"user_id": "maria"}).entities[0].name == "maria"


def test_a_short_form_of_a_speaker_is_the_speaker_and_a_label_is_no_mention():
    texts = ["Melanie: I painted a lake", "Hey Mel, lovely!", "Melanie, Caroline and Mel went out"]
    found = [[at(texts[0], "Melanie")], [at(texts[1], "Mel")], [at(texts[2], "Melanie"), at(texts[2], "Caroline")]]
    result = plan([msg(texts[0], speaker="Melanie"), msg(texts[1], speaker="Caroline"), msg(texts[2], speaker="Jon")],
                  found)
    melanie = next(i for i, e in enumerate(result.entities) if e.name == "Melanie")
    assert result.entities[melanie].aliases == ["Mel"]
    linked = {(m.episode, result.entities[m.entity].name): (m.starts, m.ends) for m in result.mentions}
    assert ("e0", "Melanie") not in linked  # "Melanie:" is the speaker's label
    assert linked[("e1", "Melanie")] == ((4,), (7,)) and ("e2", "Caroline") in linked


def test_one_type_per_name_by_vote_and_a_first_name_is_the_only_full_name():
    texts = ["Maria Silva called", "Maria is here", "Maria again", "Maria, hi"]
    found = [[at(texts[0], "Maria Silva")], [at(texts[1], "Maria", "group", "NORP")], [at(texts[2], "Maria")],
             [at(texts[3], "Maria")]]
    result = plan([msg(t, speaker="Jo") for t in texts], found)
    assert ("Maria Silva", "person", ("Maria",)) in names(result) and len(result.entities) == 2


def test_the_batch_says_who_the_user_is():
    texts = ["Hi, I'm Priya", "Welcome Priya!", "I moved to Glasgow"]
    found = [[at(texts[0], "Priya")], [at(texts[1], "Priya")], []]
    result = plan([msg(texts[0]), msg(texts[1], role="assistant"), msg(texts[2])], found)
    said = {e: result.entities[i].name for i, e in result.spoke}
    assert said == {"e0": "Priya", "e1": "assistant", "e2": "Priya"}
    two = plan([msg("I'm Ann"), msg("I'm Bea")], [[at("I'm Ann", "Ann")], [at("I'm Bea", "Bea")]])
    assert {result for result in (two.entities[i].name for i, _ in two.spoke)} == {"user"}  # two names: no one
