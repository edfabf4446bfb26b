"""Recall's graph side without I/O: the entities a question is about, as recall's statement
looks them up (every run of one to four of its words as an entity lookup key, found when an
entity's normalised name or an alias is one of them, through the ``entity_keys`` index), and
how the candidates
the statement returns are tied to them (the ``entity`` part of the score,
docs/design-notes.md#recall-entity-side). The fusion of the parts is ``_recall/fusion.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._base import keys as _keys
from .._base import validate as check
from .candidates import Candidate
from .fulltext import FUNCTION_WORDS, is_stop_word, word_set

MAX_WORDS = 4
"""The longest name looked up, in words ("Amy Ellis Nutt", "the Pacific Northwest")."""
_WORDS = 64  # words of a question that make keys


def _topical(word: str) -> bool:
    return len(word) > 1 and word not in FUNCTION_WORDS and not is_stop_word(word)


def keys(question: str) -> list[str]:
    """The lookup keys a question could name an entity by: each run of 1 to ``MAX_WORDS`` of
    its words (as ``text_key`` folds them: "Melanie's" is "melanie s") that begins and ends
    with a word that is not a function or stop word."""
    words = check.text_key(question).split()[:_WORDS]
    out = []
    for size in range(1, MAX_WORDS + 1):  # shorter runs first: a long question keeps them
        for i in range(len(words) - size + 1):
            if _topical(words[i]) and _topical(words[i + size - 1]):
                out.append(" ".join(words[i:i + size]))
    return list(dict.fromkeys(out))


QUERY_BUDGET = 9_000
"""Characters of the ``entity_keys`` query at most (the keys of the shortest runs first): recall's
statement keeps one plan while its string parameters stay under 10,000 characters."""


def query(question: str, tenant: str, chain: Sequence[str]) -> str | None:
    """The ``entity_keys`` query for the entities ``question`` names, or None."""
    wanted = keys(question)
    text = _keys.query(wanted, tenant, chain)
    while text is not None and len(text) > QUERY_BUDGET:
        wanted = wanted[: len(wanted) * 3 // 4]
        text = _keys.query(wanted, tenant, chain)
    return text


# how strongly a record is tied to an entity, by the edge: what the entity said (SPOKE), a
# fact about it (ABOUT), a turn a fact about it was derived from, and a turn that names it
# (MENTIONS; no tie when the entity speaks: a speaker named in a turn is mostly addressed,
# "Hey Mel")
# (docs/design-notes.md#recall-entity-side)
LINKS = {"SPOKE": 1.0, "ABOUT": 1.0, "FACT": 0.8, "MENTIONS": 0.6}
ENTITY_SHARE = 0.8
"""An entity tied to more than this share of the visible memories tells nothing apart (the
one user of a memory said every user turn): its ties count 0."""


def _seeds(rows: Sequence[Candidate]) -> list[dict[str, Any]]:
    return rows[0].seeds or [] if rows else []


def focus(rows: Sequence[Candidate]) -> dict[str, float]:
    """Per seed entity (those the question names or implies), whether being tied to it
    tells records apart: 1, or 0 when it is tied to more than ``ENTITY_SHARE`` of the
    visible memories."""
    visible = max(1, int(rows[0].in_scope or 0)) if rows else 1
    return {s["id"]: 1.0 if s["degree"] / visible <= ENTITY_SHARE else 0.0 for s in _seeds(rows)}


def seed_ids(rows: Sequence[Candidate]) -> frozenset[str]:
    """The ids of the seed entities."""
    return frozenset(s["id"] for s in _seeds(rows))


def speakers(rows: Sequence[Candidate]) -> frozenset[str]:
    """The seed entities that speak (have said something)."""
    return frozenset(s["id"] for s in _seeds(rows) if s.get("speaks"))


def only_about_seeds(rows: Sequence[Candidate], question: str | None) -> bool:
    """Whether every topical word of ``question`` is a word of a seed entity's name or alias
    ("What does Samira like to do?", "Who is Tariq?"): the question is about them and
    nothing else, so what is tied to them is the answer, and the other candidates match
    only function words (which a bag-of-words embedder turns into noise)."""
    named = {w for s in _seeds(rows) if s.get("type") not in ("user", "agent")
             for key in s.get("keys") or () for w in key.split()}
    topical = {w for w in word_set(question or "") if w not in FUNCTION_WORDS
               and not is_stop_word(w) and len(w) > 1}
    return bool(named) and bool(topical) and topical <= named


def entity_part(row: Candidate, focused: dict[str, float], speaking: frozenset[str] = frozenset()) -> float:
    """The ``entity`` part of one candidate: its strongest tie to a seed entity. A turn that
    only names a seed who speaks is no tie: it addresses them ("Hey Mel")."""
    return max((0.0 if t["link"] == "MENTIONS" and t["seed"] in speaking else LINKS.get(t["link"], 0.0))
               * focused.get(t["seed"], 0.0) for t in row.entities) if row.entities else 0.0


def ties(rows: Sequence[Candidate]) -> list[float]:
    """The ``entity`` part of each candidate row."""
    found, speaking = focus(rows), speakers(rows)
    return [entity_part(r, found, speaking) for r in rows]
