"""The entities a question is about, as recall's statement looks them up: every run of one
to four of its words as an entity lookup key (an entity is found when its normalised name
or an alias is one of them, through the ``entity_keys`` index), and the speakers its
pronouns imply ("I", "my": the user; "you": the agent). Scoring what the graph side finds
is in ``_recall/fusion.py``."""

from __future__ import annotations

from collections.abc import Sequence

from .._base import keys as _keys
from .._base import validate as check
from .fulltext import FUNCTION_WORDS, is_stop_word

MAX_WORDS = 4
"""The longest name looked up, in words ("Amy Ellis Nutt", "the Pacific Northwest")."""
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself"})
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


def roles(question: str) -> list[str]:
    """The speakers a question implies by its pronouns: the user's entity type (``user``)
    for "I", "me", "my"; the agent's (``agent``) for "you", "your"."""
    words = set(check.text_key(question).split())
    out = []
    if words & FIRST_PERSON:
        out.append("user")
    if words & SECOND_PERSON:
        out.append("agent")
    return out


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
