"""How an OpenAI Agents SDK session item (a Responses-API input item) is kept as a graphmem
episode and read back (``graphmem.integrations.openai_agents.GraphMemSession``).

An episode keeps a role, a text, an id and a time, and nothing else. So the text is what a
person would read (what was said; ``calls name(arguments)`` for a tool call; a tool's
output), and the id, which is ours to choose, carries the rest: ``oai1:<uuid>:<shape>``,
the shape being the item as JSON without its ``id`` and with each text replaced by its
length. Reading the episode puts the texts back in place, so a message, a function call or
a function call's output comes back as it was added, minus its ``id`` (see
``GraphMemSession``). No framework is imported here."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Mapping
from typing import Any

from .._base import validate as check
from .._base.errors import InvalidInputError

PREFIX = "oai1:"
ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
"""An item's role and the episode role it is kept under (graphmem has no developer role)."""
CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
"""The tool calls kept, and the field their text is: kept as ``calls name(<text>)``."""
OUTPUTS = ("function_call_output", "custom_tool_call_output")
TEXT_PARTS = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
EMPTY = "(empty)"
"""The text of an item with no text to show (its texts are then kept in the id)."""


def kind(item: Mapping[str, Any]) -> str | None:
    """``message``, a tool call or a tool output type, or None: an item that is not kept
    (a reasoning item, a hosted tool's call, a computer, shell or MCP exchange...)."""
    kind_ = item.get("type", "message" if "role" in item else None)
    if kind_ == "message" or kind_ in CALLS or kind_ in OUTPUTS:
        return str(kind_)
    return None


def _text_key(part: Any) -> str | None:
    """The field holding a content part's text (``text``, ``refusal``), or None: no text part."""
    kind_ = part.get("type") if isinstance(part, dict) else None
    return TEXT_PARTS.get(kind_) if isinstance(kind_, str) else None


def _slots(shape: dict[str, Any], key: str, field: str) -> list[str]:
    """Take the texts out of ``shape[key]`` (a string, or parts with texts), leaving each
    text's length in its place; what is not text (an image, a file) stays as it is."""
    value = shape.get(key)
    if isinstance(value, str):
        shape[key] = len(value)
        return [value]
    if not isinstance(value, list):
        raise InvalidInputError(f"{field}.{key}", "must be a string or a list of content parts")
    found = []
    for j, part in enumerate(value):
        name = _text_key(part)
        if name is None:
            continue
        if not isinstance(part.get(name), str):
            raise InvalidInputError(f"{field}.{key}[{j}].{name}", "must be a string")
        found.append(part[name])
        part[name] = len(part[name])
    return found


def _frame(shape: Mapping[str, Any]) -> tuple[str, str]:
    """What surrounds an item's texts in its episode: ``calls name(`` and ``)`` for a tool call."""
    if shape.get("type") in CALLS:
        return f"calls {shape.get('name')}(", ")"
    return "", ""


def to_message(item: Any, field: str) -> dict[str, Any] | None:
    """The ``after_turn`` message that keeps ``item``, or None when the item is not kept.
    ``InvalidInputError`` naming ``field`` for an item that is not a mapping, a message of
    an unknown role, a text that is not a string or one too long for an episode."""
    if not isinstance(item, Mapping):
        raise InvalidInputError(field, f"must be a Responses input item (a mapping), got {type(item).__name__}")
    what = kind(item)
    if what is None:
        return None
    shape = copy.deepcopy({k: v for k, v in item.items() if k != "id"})
    if what == "message":
        said = shape.get("role")
        role = ROLES.get(said) if isinstance(said, str) else None
        if role is None:
            raise InvalidInputError(f"{field}.role", f"{said!r} is not one of {', '.join(ROLES)}")
        texts = _slots(shape, "content", field)
    elif what in CALLS:
        role = "assistant"
        for name in ("call_id", "name"):
            check.identifier(shape.get(name), f"{field}.{name}")
        texts = _slots(shape, CALLS[what], field) if isinstance(shape.get(CALLS[what]), str) else []
        if not texts:
            raise InvalidInputError(f"{field}.{CALLS[what]}", "must be a string")
    else:
        role = "tool"
        check.identifier(shape.get("call_id"), f"{field}.call_id")
        texts = _slots(shape, "output", field)
    before, after = _frame(shape)
    text = before + "\n".join(texts) + after
    if check.blank(text):  # nothing to read: the (blank) texts go into the id as they are
        shape = copy.deepcopy({k: v for k, v in item.items() if k != "id"})
        text = EMPTY
    if len(text) > check.MAX_EPISODE_LENGTH:
        raise InvalidInputError(field, f"has {len(text)} characters of text; an episode holds {check.MAX_EPISODE_LENGTH}")
    try:
        key = f"{PREFIX}{uuid.uuid4().hex}:{json.dumps(shape, separators=(',', ':'))}"
    except (TypeError, ValueError):
        raise InvalidInputError(field, "must hold JSON values only (strings, numbers, lists, mappings)") from None
    if len(key) > check.MAX_ID_LENGTH:
        raise InvalidInputError(field, f"is too large to keep: its fields other than text take {len(key)} "
                                       f"characters, and {check.MAX_ID_LENGTH} fit (an image or a file inline?)")
    return {"role": role, "content": text, "id": key}


def _fill(shape: dict[str, Any], key: str, texts: list[str]) -> None:
    value = shape.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        shape[key] = texts.pop(0)
    elif isinstance(value, list):
        for part in value:
            name = _text_key(part)
            if name is not None and isinstance(part.get(name), int):
                part[name] = texts.pop(0)


def _lengths(shape: Mapping[str, Any], key: str) -> list[int]:
    value = shape.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, list):
        return [p[n] for p in value if (n := _text_key(p)) is not None and isinstance(p.get(n), int)]
    return []


def to_item(role: str, text: str, key: str) -> dict[str, Any] | None:
    """The item an episode keeps (its ``role``, ``text`` and id ``key``). An episode written
    by other means reads as a plain ``{"role", "content"}`` message; a tool or event
    episode among them is not an item (None)."""
    if not key.startswith(PREFIX) or key.count(":") < 2:
        return {"role": role, "content": text} if role in ("user", "assistant", "system") else None
    shape = json.loads(key.split(":", 2)[2])
    field = CALLS.get(shape.get("type"), "output" if shape.get("type") in OUTPUTS else "content")
    lengths = _lengths(shape, field)
    if lengths:
        before, _ = _frame(shape)
        texts, at = [], len(before)
        for n in lengths:
            texts.append(text[at:at + n])
            at += n + 1
        _fill(shape, field, texts)
    return dict(shape)
