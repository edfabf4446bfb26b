"""The prompt block for an agent's next turn, without I/O: how the token budget is shared
between sections by priority, and how each section is trimmed to its share. The I/O is in
``_async/turn.py``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._context import estimate_tokens
from ._errors import InvalidInputError

SECTIONS = {"notes": "Core notes", "profile": "User profile", "memories": "Relevant memories",
            "summaries": "Earlier in this conversation", "messages": "Recent messages"}
"""The sections of ``context_for_turn``, in the order they are rendered."""

DEFAULT_PRIORITIES = {"notes": 3, "profile": 2, "memories": 4, "summaries": 2, "messages": 4}


def priorities(value: Mapping[str, Any] | None) -> dict[str, int]:
    """The weights, defaults overridden by ``value``; a weight of 0 drops the section."""
    out = dict(DEFAULT_PRIORITIES)
    if value is None:
        return out
    if not isinstance(value, Mapping):
        raise InvalidInputError("priorities", "must be a mapping of section name to weight")
    for name, weight in value.items():
        if name not in SECTIONS:
            raise InvalidInputError("priorities", f"{name!r} is not one of {', '.join(SECTIONS)}")
        if isinstance(weight, bool) or not isinstance(weight, int) or weight < 0:
            raise InvalidInputError("priorities", f"the weight of {name!r} must be an integer >= 0")
        out[name] = weight
    return out


def shares(max_tokens: Any, weights: Mapping[str, int]) -> dict[str, int]:
    """Each section's token budget: ``max_tokens`` split in proportion to the weights
    (rounded down, so the shares never add up to more than the whole)."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError("max_tokens", "must be a positive integer")
    total = sum(weights.values())
    if total == 0:
        raise InvalidInputError("priorities", "at least one section needs a weight above 0")
    return {name: max_tokens * weights[name] // total for name in SECTIONS if weights.get(name)}


def section(name: str, lines: list[str], budget: int, *, newest_last: bool = False) -> str:
    """``## Title`` and as many of ``lines`` as fit in ``budget`` tokens, separators
    included; empty when none fits. Lines are kept best first in the order given, or, with
    ``newest_last`` (a conversation), from the end, so the oldest are dropped first."""
    head = f"## {SECTIONS[name]}\n"
    used = estimate_tokens(head + "\n\n")
    kept = []
    for line in (reversed(lines) if newest_last else lines):
        cost = estimate_tokens(line + "\n")
        if used + cost > budget:
            if newest_last:
                break  # a conversation keeps an unbroken tail
            continue
        kept.append(line)
        used += cost
    if newest_last:
        kept.reverse()
    return head + "\n".join(kept) if kept else ""


def join(blocks: Iterable[str]) -> str:
    return "\n\n".join(b for b in blocks if b)


def one_line(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
