"""What each kind of memory is embedded as, in one place: the text a write gives the
embedder, and the text ``reembed`` gives a new embedder for a stored node, so that a store
re-embedded with an embedder holds the vectors a store written with it from the start holds.

- a fact: its text, and when it has a predicate, the predicate in words ("Carol moved to
  Denver (lives in)"), so a question about the attribute meets it; a LangGraph store item
  (predicate ``langgraph_item``) its text alone, and so a fact extracted by ``ingest``, which
  says so with ``embeddedFrom: 'text'`` (its contradiction check compares texts alone);
- any other kind: the properties its registry entry names (``_base/kinds.py``,
  ``Kind.embedded``), one per line: a procedure its text, trigger and condition, so a task
  matches on any of them; a decision the decision and its reasoning; the rest their text;
- a window (``:Chunk``) of a long episode: its slice of the episode's text (``window``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base.kinds import KIND

CHUNK_SIZE = 1_500
"""Characters of a long episode's window (its ``:Chunk`` node's embedded slice)."""
CHUNK_OVERLAP = 200
"""Characters a window shares with the next."""
STORE_ITEM = "langgraph_item"  # the predicate of LangGraph store items (_memory/store.py)
TEXT_ONLY = "text"
"""``embeddedFrom`` of a memory embedded from its text alone where its kind's rule says more."""


def fact_text(text: str, predicate: str | None) -> str:
    """A fact's embedded text: with its predicate in words, but for a store item's."""
    if predicate is None or predicate == STORE_ITEM:
        return text
    return f"{text} ({predicate.replace('_', ' ')})"


def kind_text(kind: str, props: Mapping[str, Any]) -> str:
    """A memory's embedded text by its kind's rule in the registry (``Kind.embedded``): the
    properties it names that are set, one per line."""
    return "\n".join(str(p) for p in (props.get(name) for name in KIND[kind].embedded) if p)


def window(text: str, position: int) -> str:
    """The slice of a long episode's ``text`` its window number ``position`` embeds."""
    start = position * (CHUNK_SIZE - CHUNK_OVERLAP)
    return text[start:start + CHUNK_SIZE]


def windows(text: str) -> list[str]:
    """Every window of an episode's ``text`` (none when it fits in one embedding)."""
    if len(text) <= CHUNK_SIZE:
        return []
    count = len(range(0, len(text) - CHUNK_OVERLAP, CHUNK_SIZE - CHUNK_OVERLAP))
    return [window(text, n) for n in range(count)]


def text_of(kind: str, props: Mapping[str, Any], episode_text: str | None = None) -> str | None:
    """What a stored memory of ``kind`` with ``props`` is embedded as (a window: with its
    episode's text); None when there is nothing to embed."""
    if kind == "chunk":
        position = props.get("position")
        return None if episode_text is None or position is None else window(episode_text, int(position))
    text = props.get("text")
    if text is None:
        return None
    if kind == "fact":
        return str(text) if props.get("embeddedFrom") == TEXT_ONLY else fact_text(text, props.get("predicate"))
    return kind_text(kind, props) if kind in KIND else str(text)
