"""Extraction requests sized by tokens, not messages: the messages of one ``ingest`` (or
turn) go to the model in as few requests as fit ``LearningSettings.extraction_batch_tokens``
of message text each, in order; a message longer than that goes alone, in pieces cut at
whitespace, each piece a request of its own that cites the same stored episode. Tokens
are estimated as 4 characters each (the rule the context budget uses), so no tokenizer is
needed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._recall.context import CHARS_PER_TOKEN

_FRAME = 16
"""Characters each message adds to the prompt besides its text ("12. user: ")."""


@dataclass(frozen=True)
class Part:
    """One extraction request: its messages (``ingest``'s message mappings, a long one's
    piece standing for it), the ids of their episodes, and where in the call's messages
    it starts (0-based) and how many it covers."""

    msgs: list[dict[str, Any]]
    episode_ids: list[str]
    first: int
    pieces: int = 1
    """How many pieces the one long message of this part was cut into (1 otherwise)."""


def parts(msgs: list[dict[str, Any]], episode_ids: list[str], budget_tokens: int) -> list[Part]:
    """``msgs`` (with their ``episode_ids``) as extraction requests of at most
    ``budget_tokens`` of text each, in order."""
    limit = budget_tokens * CHARS_PER_TOKEN
    out: list[Part] = []
    current: list[int] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        if current:
            out.append(Part([msgs[i] for i in current], [episode_ids[i] for i in current], current[0]))
        current, size = [], 0

    for i, msg in enumerate(msgs):
        length = len(msg["content"]) + _FRAME
        if length > limit:
            flush()
            pieces = cut(msg["content"], limit - _FRAME)
            out += [Part([{**msg, "content": piece}], [episode_ids[i]], i, len(pieces)) for piece in pieces]
            continue
        if size + length > limit:
            flush()
        current.append(i)
        size += length
    flush()
    return out


def cut(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at the last whitespace before
    the limit when there is one in its second half (else at the limit)."""
    pieces = []
    while len(text) > limit:
        at = text.rfind(" ", limit // 2, limit + 1)
        at = limit if at <= 0 else at
        pieces.append(text[:at].strip())
        text = text[at:].lstrip()
    if text:
        pieces.append(text)
    return [p for p in pieces if p]
