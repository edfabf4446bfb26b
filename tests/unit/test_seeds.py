"""Recall's graph side without a database: the lookup keys a question names entities by
and how the candidates are tied to the seeds."""

from __future__ import annotations

from graphmem._recall import seeds
from graphmem._recall.candidates import candidate


def test_keys_are_runs_of_words_that_begin_and_end_with_a_topical_word():
    assert seeds.keys("What did Caroline's kids paint?") == [  # shorter runs first
        "caroline", "kids", "paint", "kids paint", "caroline s kids", "caroline s kids paint"]
    assert seeds.keys("Where is the Pacific Northwest?") == ["pacific", "northwest", "pacific northwest"]
    assert seeds.keys("what did you do?") == []


def test_a_long_question_keeps_its_short_runs_within_the_query_budget():
    question = " ".join(f"word{i} averyveryverylongword{i}" for i in range(40))
    text = seeds.query(question, "t", ["a", "a/b"])
    assert text is not None and len(text) <= seeds.QUERY_BUDGET
    assert '"word0"' in text and '"averyveryverylongword0"' in text  # one-word keys come first
    assert seeds.query("x?", "t", ["a"]) is None


def test_a_quote_in_a_key_cannot_end_it():
    from graphmem._base import keys

    text = keys.query(['o"neil', "back\\slash"], "t", ["a"])
    assert 'nameKey:"o\\"neil"' in text and 'nameKey:"back\\\\slash"' in text
    assert keys.prefix_query("mel", "t", ["a"]).endswith("+nameKey:mel*")
    assert keys.prefix_query("o'neil", "t", ["a"]) is None  # only letters and digits go unquoted


def row(*ties, **counts):
    return candidate(entities=[{"seed": s, "link": link} for s, link in ties], **counts)


def test_ties_weigh_the_edge_and_ignore_an_address_and_a_seed_everyone_is_tied_to():
    first = dict(in_scope=100, seeds=[
        {"id": "mel", "degree": 50, "speaks": True, "type": "person", "keys": ["melanie", "mel"]},
        {"id": "tariq", "degree": 3, "speaks": False, "type": "person", "keys": ["tariq"]},
        {"id": "user", "degree": 95, "speaks": True, "type": "user", "keys": ["user"]}])
    rows = [row(("mel", "SPOKE"), **first), row(("mel", "MENTIONS")), row(("tariq", "MENTIONS")),
            row(("user", "SPOKE")), row(("tariq", "FACT"), ("mel", "MENTIONS")), row()]
    assert seeds.ties(rows) == [1.0, 0.0, 0.6, 0.0, 0.8, 0.0]


def test_a_question_about_its_named_entities_and_nothing_else():
    first = candidate(seeds=[{"id": "s", "type": "person", "keys": ["samira", "sam"]},
                             {"id": "u", "type": "user", "keys": ["user"]}])
    assert seeds.only_about_seeds([first], "What does Samira like to do?")
    assert seeds.only_about_seeds([first], "Who is Sam?")
    assert not seeds.only_about_seeds([first], "What does Samira paint?")
    assert not seeds.only_about_seeds([first], "What do I like?")  # the user's entity is no name
    assert not seeds.only_about_seeds([candidate(seeds=[])], "Who is Sam?")
