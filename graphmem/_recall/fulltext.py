"""The full-text side of recall: the Lucene query sent to the ``memory_text`` index."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from .._base import dates, scopes
from .._base.records import Row

_WORD = re.compile(r"\w+", re.UNICODE)
_LUCENE_WORDS = 64
# a name of a question is common in the memory (and left out of what a bag-of-words embedder
# embeds) when more than this share of the visible memories hold it, and at least LEAST of
# them, or MOST in a memory of over ten times MOST (a thousand lines that name someone crowd
# any top ten): LoCoMo's speakers are on about half the lines; a place or product a
# question names, on few (docs/design-notes.md#recall-names)
COMMON_NAME_SHARE = 0.1
COMMON_NAME_LEAST = 2
COMMON_NAME_MOST = 1000
COMMON_NAME_KEPT_SECONDS = 60.0  # how long a memory object trusts a name's count in some scopes
COMMON_NAME_KEPT = 4096  # (scopes, name) counts a memory object keeps at most



@dataclass(frozen=True, slots=True)
class CommonRow(Row):
    """Whether a name of a question is common among the memories of some scopes."""

    TEMPLATES = ("name_frequency",)
    word: str
    common: bool


# Words that carry no topic in a question (question words, auxiliaries, pronouns,
# quantifiers): left out of the full-text query and, for bag-of-words embedders, of the
# text embedded for the question (docs/recall-generalisation.md, step A).
FUNCTION_WORDS = frozenset("""
what whats which who whom whose when where why how did do does done doing have has had having
was were been being am i me my mine myself you your yours yourself he him his himself she her hers
herself we us our ours ourselves they them their theirs themselves its itself would could should
can may might must shall about from up down out over under again further once here there all any
both each few more most other some so than too very just also only own same s t d ll m re ve
ever kind kinds type types like get got give gave go went going make made know tell told say said
much many lot something anything thing things one ones time times
""".split())
# Lucene's English stop words (the full-text index's analyzer drops them too)
_STOP_WORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their "
                        "then there these they this to was will with".split())


def lucene_query(query: str, tenant: str | None, chain: Sequence[str]) -> str | None:
    """A Lucene query for the full-text index: the query's words (lower-cased, so no
    operator survives), restricted to the tenant's visible scopes by their exact
    ``lexKey`` tokens (no restriction when ``tenant`` is None: the caller filters). The
    words of time expressions ("a week ago", "last March") are left out: they name a
    time, not a topic (docs/design-notes.md#recall-time-words)."""
    return lucene(words(query), tenant, chain)


def words(query: str, *, keep_function_words: bool = False) -> str | None:
    """The words of ``query`` that the full-text index is asked for (without time
    expressions and, unless nothing else is left, without function words), or None."""
    for start, end, _ in reversed(dates.mentions(query, datetime.now(timezone.utc), timezone.utc)):
        query = query[:start] + " " + query[end:]
    found = [w.lower() for w in _WORD.findall(query)][:_LUCENE_WORDS]
    if not keep_function_words:
        found = [w for w in found if w not in FUNCTION_WORDS] or found
    return " ".join(found) or None


def content_words(query: str) -> str:
    """The question without function and stop words, for a bag-of-words embedder (whose
    vector is an average over words: "what did I ..." would pull every question alike); the
    question itself when nothing else is left."""
    kept = [w for w in _WORD.findall(query) if w.lower() not in FUNCTION_WORDS and w.lower() not in _STOP_WORDS]
    return " ".join(kept) or query


def is_stop_word(word: str) -> bool:
    """Whether the full-text index's analyzer drops ``word`` (lower-cased)."""
    return word in _STOP_WORDS


def word_set(text: str) -> set[str]:
    """The lower-cased words of ``text``."""
    return {w.lower() for w in _WORD.findall(text)}


_ENDINGS = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def same_word(a: str, b: str) -> bool:
    """Whether two lower-cased words are one word as far as the full-text index's stemming
    goes, roughly: without an ending ("-ing", "-ed", "-es", "-s") they share all but at most
    the last letter of the shorter one, and three letters at least ("live", "lives", "lived";
    "camped", "camping"; "city", "cities"). It errs towards "the same": it is used to tell
    that a question's words found nothing, and a word wrongly taken as found only keeps the
    floor as it is."""
    a, b = _stem(a), _stem(b)
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return a == b or common >= max(3, min(len(a), len(b)) - 1)


def _is_name(token: str) -> bool:
    word = _bare(token)
    return len(word) > 1 and word[0].isupper() and word[1:].islower() and word != "I"


def _bare(token: str) -> str:
    word = token.strip("?,.!:;\"()[]")
    return word[:-2] if word.endswith(("'s", "\u2019s")) else word


def _name_positions(tokens: list[str]) -> list[int]:
    """Which of a question's tokens are names: capitalised words that do not open a sentence
    (acronyms such as LGBTQ and the first word are not)."""
    return [i for i, t in enumerate(tokens) if i > 0 and not tokens[i - 1].endswith((".", "!", "?")) and _is_name(t)]


def names(query: str) -> list[str]:
    """The names in a question as lower-case words, each once ("When did Caroline meet
    Mel?" -> ["caroline", "mel"])."""
    tokens = query.split()
    return list(dict.fromkeys(_bare(tokens[i]).lower() for i in _name_positions(tokens)))


def without_names(query: str, common: Collection[str] | None = None) -> str:
    """The question without the names in it ("When did Caroline go to the support group?"
    -> "When did go to the support group?"), or without those of ``common`` only; the
    question itself when nothing else is left (docs/design-notes.md#recall-names)."""
    tokens = query.split()
    dropped = {i for i in _name_positions(tokens) if common is None or _bare(tokens[i]).lower() in common}
    return " ".join(t for i, t in enumerate(tokens) if i not in dropped) or query


def embedded_question(query: str, *, bag_of_words: bool, common: Collection[str] | None = None) -> str:
    """What recall embeds for a question. A bag-of-words embedder (an average over words)
    gets the question's content words without the names that are common in the memory
    (``common``; all names when None): a name that many records hold, a speaker's name on
    every line they said, says whom the question is about, which the full-text side matches
    exactly, while in an average it outweighs the rest and makes every such line look like
    an answer; a rare name (a restaurant, a city, a product) is what the question is about
    and stays. A contextual embedder gets the question as it is."""
    if not bag_of_words:
        return query
    return content_words(without_names(query, common))


def name_queries(query: str, tenant: str, chain: Sequence[str]) -> list[dict[str, str]]:
    """For each name of a question, the Lucene query that finds the visible records holding
    it (``name_frequency``): ``{"word": ..., "lucene": ...}``."""
    out = []
    for name in names(query):
        found = " ".join(w.lower() for w in _WORD.findall(name))
        lucene_text = lucene(found or None, tenant, chain)
        if lucene_text is not None:
            out.append({"word": name, "lucene": lucene_text})
    return out


def lucene(found: str | None, tenant: str | None, chain: Sequence[str]) -> str | None:
    """The Lucene query for ``found`` words, narrowed to ``chain`` when ``tenant`` is given."""
    if found is None:
        return None
    if tenant is None:
        return f"text:({found})"
    keys = scope_keys(tenant, chain)
    # zero weight: the scope keys filter, they must not score (a smaller scope's rarer key
    # would lift a text above its twin in a bigger scope)
    return f"text:({found}) AND (lexKey:({keys}))^0"


def scope_keys(tenant: str, chain: Sequence[str]) -> str:
    """The ``lexKey`` tokens of ``chain`` as a Lucene disjunction ("k1 OR k2")."""
    return " OR ".join(scopes.lexical_key(tenant, scope) for scope in chain)
