"""An agent's turn, without I/O: what ``after_turn`` reports and which tool calls it
learns a procedure from; the prompt block for the next turn (how the token budget is
shared between sections by priority, and how each section is trimmed to its share). The
I/O is in ``_async/turn.py``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base.errors import InvalidInputError
from .._base.models import Episode, Procedure
from .._learning.ingest import IngestResult
from .._learning.procedures import ToolCall
from .._recall.context import CHARS_PER_TOKEN, estimate_tokens

MIN_TOOL_CALLS = 2
"""A turn with at least this many tool calls is a trajectory ``after_turn`` learns from."""


class TurnResult(BaseModel):
    """What ``after_turn`` did with one turn: the ``episodes`` stored (always, before the
    call returned), the ``extraction`` (facts, entities and profile fields; ``None``
    without a model), the ``procedure`` induced from the turn's tool calls (``None`` when
    it made fewer than two), and every error met on the way (``ok`` is False then; each
    was also published as an ``extraction_failed`` event)."""

    model_config = ConfigDict(frozen=True)

    episodes: tuple[Episode, ...] = ()
    extraction: IngestResult | None = None
    procedure: Procedure | None = None
    errors: tuple[str, ...] = ()
    """One line per failure: what failed (``extraction``, ``procedure``) and why."""

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.errors


def tool_calls(messages: Iterable[Any]) -> list[ToolCall]:
    """The tool calls a turn made, in order, with what each returned: from langchain-core
    messages (an AI message's ``tool_calls``, answered by tool messages with the same
    ``tool_call_id``), or from ``{"role": "tool", "content": ...}`` mappings whose content
    is a ``{"tool", "args", "result"}`` JSON object. Anything else is not a tool call."""
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for item in messages:
        if isinstance(item, Mapping):
            if item.get("role") in ("tool", "function"):
                found = _json_call(item.get("content"))
                if found is not None:
                    calls.append(found)
            continue
        kind = getattr(item, "type", None)
        if kind == "ai":
            for call in getattr(item, "tool_calls", None) or []:
                name = call.get("name") if isinstance(call, Mapping) else None
                if isinstance(name, str) and name.strip():
                    entry: dict[str, Any] = {"tool": name, "args": dict(call.get("args") or {}), "result": None}
                    calls.append(entry)
                    if call.get("id"):
                        by_id[str(call["id"])] = entry
        elif kind == "tool":
            answered = by_id.get(str(getattr(item, "tool_call_id", "")))
            if answered is not None:
                answered["result"] = _result(getattr(item, "content", None))
    out = []
    for call_row in calls:
        try:
            out.append(ToolCall.model_validate(call_row))
        except ValueError:
            continue
    return out


def _json_call(content: Any) -> dict[str, Any] | None:
    try:
        data = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("tool"), str) and set(data) <= {"tool", "args", "result"}:
        return {"tool": data["tool"], "args": data.get("args") or {}, "result": data.get("result")}
    return None


def _result(content: Any) -> Any:
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return content
    return content

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


MEMORIES = ("facts", "insights", "procedures", "episodes")
"""The sections of ``context`` that make the memories of ``context_for_turn``."""


def join(blocks: Iterable[str]) -> str:
    return "\n\n".join(b for b in blocks if b)


def room(max_tokens: int, blocks: Iterable[str]) -> int:
    """The tokens left for one more section beside ``blocks`` (joined by ``join``), so the
    whole stays within ``max_tokens`` (``estimate_tokens``)."""
    rendered = join(blocks)
    used = len(rendered) + (2 if rendered else 0)  # and the blank line before the next section
    return max(0, (max_tokens * CHARS_PER_TOKEN - used) // CHARS_PER_TOKEN)


def one_line(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """An error in one line: its type and message."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def tally(result: TurnResult) -> dict[str, Any]:
    """What a turn's extraction wrote, counted (the ``detail`` of ``extraction_done``)."""
    x = result.extraction
    return {
        "facts": len(x.facts) if x else 0,
        "entities": len(x.entities_created) + len(x.entities_merged) if x else 0,
        "profile": list(x.profile) if x else [],
        "procedure": result.procedure.id if result.procedure else None,
    }
