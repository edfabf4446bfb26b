"""How an OpenAI Agents SDK session item (a Responses-API input item) is kept in graphmem and
read back (``graphmem.integrations.openai_agents.GraphMemSession``).

A kept item is two records with one id, ``oai-<uuid4 hex>``:

- an episode of the user's conversation, at the user's scope: its role and the text a person
  would read (what was said; ``calls name(arguments)`` for a tool call; a tool's output).
  This is what ``recall``, ``context_for_turn`` and extraction see.
- a key-value item (the core's ``ItemStore``/``AsyncItemStore``, as LangGraph's store and
  ADK's sessions use it) whose key is the episode's id and whose value is the item's exact
  JSON without its ``id``, as ASCII text (an item's strings may hold no control character;
  an item's texts often do). It lives at ``<user scope>/openai-sessions/<session>``, below
  the user's scope: a scope sees itself and its ancestors only, so no recall, context or
  extraction at the user's scope ever reads it. It is written with the user's ``user_id``,
  so ``Memory.erase(user_id=...)`` removes it with the episodes.

The item is written before its episode, so a reader that lists the episodes and then reads
their items never meets an episode of this session without its item; an episode written by
another door (no item) reads as a plain message. No framework is imported here."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._memory.store import MAX_VALUE_BYTES, ItemDelete, ItemGet, ItemPut, ItemRead, ItemResults, ItemSearch, ItemWrite
from ._bridge import item_batch, item_store
from ._lg_namespaces import to_segment

PREFIX = "oai-"
"""The start of a kept item's id (its episode's and its key-value item's key)."""
SEGMENT = "openai-sessions"
"""The scope segment below a user's scope that holds the user's sessions' items."""
ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
"""An item's role and the episode role it is kept under (graphmem has no developer role)."""
CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
"""The tool calls kept, and the field their text is: kept as ``calls name(<text>)``."""
OUTPUTS = ("function_call_output", "custom_tool_call_output")
TEXT_PARTS = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
EMPTY = "(empty)"
"""The text of an item with no text to show (an image alone, a blank tool output)."""
_CLEAR_BATCH = 1_000


@dataclass(frozen=True)
class Kept:
    """One item as it is written: the ``after_turn`` message of its episode and the value
    of its key-value item (key: the message's ``id``)."""

    message: dict[str, str]
    value: dict[str, str]

    @property
    def key(self) -> str:
        return self.message["id"]


def kind(item: Mapping[str, Any]) -> str | None:
    """``message``, a tool call or a tool output type, or None: an item that is not kept
    (a reasoning item, a hosted tool's call, a computer, shell or MCP exchange...)."""
    kind_ = item.get("type", "message" if "role" in item else None)
    if kind_ == "message" or kind_ in CALLS or kind_ in OUTPUTS:
        return str(kind_)
    return None


def _texts(item: Mapping[str, Any], key: str, field: str) -> list[str]:
    """The texts of ``item[key]``: a string, or the text parts of a list of content parts
    (what is not text, an image or a file, shows no text)."""
    value = item.get(key)
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise InvalidInputError(f"{field}.{key}", "must be a string or a list of content parts")
    found = []
    for j, part in enumerate(value):
        kind_ = part.get("type") if isinstance(part, Mapping) else None
        name = TEXT_PARTS.get(kind_) if isinstance(kind_, str) else None
        if name is None:
            continue
        if not isinstance(part.get(name), str):
            raise InvalidInputError(f"{field}.{key}[{j}].{name}", "must be a string")
        found.append(part[name])
    return found


def to_kept(item: Any, field: str) -> Kept | None:
    """How ``item`` is kept, or None when it is not. ``InvalidInputError`` naming ``field``
    for an item that is not a mapping, a message of an unknown role, a text that is not a
    string, a text an episode cannot hold, or an item whose JSON does not fit an item value."""
    if not isinstance(item, Mapping):
        raise InvalidInputError(field, f"must be a Responses input item (a mapping), got {type(item).__name__}")
    what = kind(item)
    if what is None:
        return None
    before = after = ""
    if what == "message":
        said = item.get("role")
        role = ROLES.get(said) if isinstance(said, str) else None
        if role is None:
            raise InvalidInputError(f"{field}.role", f"{said!r} is not one of {', '.join(ROLES)}")
        texts = _texts(item, "content", field)
    elif what in CALLS:
        role = "assistant"
        for name in ("call_id", "name"):
            check.identifier(item.get(name), f"{field}.{name}")
        if not isinstance(item.get(CALLS[what]), str):
            raise InvalidInputError(f"{field}.{CALLS[what]}", "must be a string")
        texts = [item[CALLS[what]]]
        before, after = f"calls {item['name']}(", ")"
    else:
        role = "tool"
        check.identifier(item.get("call_id"), f"{field}.call_id")
        texts = _texts(item, "output", field)
    text = before + "\n".join(texts) + after
    if check.blank(text):
        text = EMPTY
    if len(text) > check.MAX_EPISODE_LENGTH:
        raise InvalidInputError(field, f"has {len(text):,} characters of text; an episode holds {check.MAX_EPISODE_LENGTH:,}")
    check.storable(text, field)
    try:
        value = {"item": json.dumps({k: v for k, v in item.items() if k != "id"}, ensure_ascii=True)}
    except (TypeError, ValueError):
        raise InvalidInputError(field, "must hold JSON values only (strings, numbers, lists, mappings)") from None
    size = len(json.dumps(value))  # ASCII: characters are bytes
    if size > MAX_VALUE_BYTES:
        raise InvalidInputError(field, f"is {size:,} bytes as stored JSON; an item holds {MAX_VALUE_BYTES:,}")
    return Kept({"role": role, "content": text, "id": f"{PREFIX}{uuid.uuid4().hex}"}, value)


def from_episode(role: str, text: str) -> dict[str, Any] | None:
    """The item an episode with no item stands for (one written by another door): a plain
    ``{"role", "content"}`` message; a tool or event episode is not an item (None)."""
    return {"role": role, "content": text} if role in ("user", "assistant", "system") else None


class SessionItems:
    """The key-value items of one conversation of one user, at
    ``<user scope>/openai-sessions/<session_id, escaped>``, written with ``user_id``."""

    def __init__(self, memory: Any, user_scope: str, session_id: str, user_id: str) -> None:
        self.scope = scopes.check_path(f"{user_scope}/{SEGMENT}/{to_segment(session_id)}", "session_id")
        self.user_id = user_id
        self.session_id = session_id
        self._store = item_store(memory)

    async def _batch(self, reads: Sequence[ItemRead] = (), writes: Sequence[ItemWrite] = ()) -> ItemResults:
        """Reads, then writes, in one transaction (a ``Memory``'s in a worker thread)."""
        return await item_batch(self._store, reads, writes)

    async def put(self, kept: Sequence[Kept]) -> None:
        """Write the items of ``kept``, in one transaction."""
        await self._batch(writes=[ItemPut(self.scope, k.key, k.value, text=f"OpenAI Agents session item {k.key}",
                                          embed=False, user_id=self.user_id, session_id=self.session_id)
                                  for k in kept])

    async def delete(self, keys: Sequence[str]) -> None:
        """Delete the items of ``keys`` (an absent one is no error), in one transaction."""
        if keys:
            await self._batch(writes=[ItemDelete(self.scope, key) for key in keys])

    async def read(self, episodes: Sequence[Any]) -> list[dict[str, Any] | None]:
        """The item of each episode (in one read), else what ``from_episode`` makes of it."""
        if not episodes:
            return []
        got = (await self._batch([ItemGet(self.scope, e.id) for e in episodes])).got
        return [from_episode(e.role, e.text) if stored is None else json.loads(stored.value["item"])
                for e, stored in zip(episodes, got)]

    async def newest(self, episodes: Sequence[Any]) -> tuple[Any, dict[str, Any]] | None:
        """The newest of ``episodes`` (oldest first) that is an item, with the item: the
        newest alone is read first, as it almost always is one."""
        for chunk in (episodes[-1:], episodes[:-1]):
            for episode, item in zip(reversed(chunk), reversed(await self.read(chunk))):
                if item is not None:
                    return episode, item
        return None

    async def clear(self) -> None:
        """Delete every item of the conversation (they stay in the items' history until
        ``Memory.erase``, as every deleted item does)."""
        while True:
            found = (await self._batch([ItemSearch(self.scope, _CLEAR_BATCH)])).found[0]
            await self.delete([item.key for item in found])
            if len(found) < _CLEAR_BATCH:
                return
