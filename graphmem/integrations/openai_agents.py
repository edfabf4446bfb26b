"""graphmem for the OpenAI Agents SDK: a ``Session`` that keeps a conversation in graphmem
and learns from it, and a model input filter that adds what graphmem remembers to the
instructions.

``pip install 'graphmem[openai-agents]'``::

    session = GraphMemSession(memory, "conv-42", scope="shop", user_id="ann")
    result = await Runner.run(agent, "What is my cat called?", session=session,
                              run_config=RunConfig(call_model_input_filter=session.model_input_filter))

The session is the SDK's extension point for history: the runner reads it before a run
(``get_items``) and hands it each turn's items (``add_items``), which graphmem stores as
episodes through ``after_turn`` (their text: what a person would read), so with ``llm``
they are also learned from in the background; each item's exact JSON is kept beside its
episode as a key-value item below the user's scope, where no recall reads it. The filter
runs before each model call and appends the block of ``context_for_turn`` for the newest
user message to the instructions: the user's profile and notes, and what earlier
conversations said. Takes a ``Memory`` (called in a worker thread) or an ``AsyncMemory``
(awaited; use it on the event loop it was opened on, so not with ``Runner.run_sync``). The tenant is the memory's; the conversation lives at
``<scope>/<user_id>``, so users never read each other's memories: a model never chooses
the tenant, the scope or the user.
"""

from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import Any

from agents.memory.session_settings import SessionSettings, coerce_session_settings, resolve_session_limit
from agents.run_config import CallModelData, ModelInputData

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.public import publish
from .._base.traced import instrument
from ._agent_turns import ALL_SENT, DEFAULT_MAX_TOKENS, TurnMemory
from ._bridge import acall
from ._oai_items import SessionItems, kind, to_kept

__all__ = ["GraphMemSession"]

_POP_WINDOW = 50


def _settings(value: Any) -> SessionSettings:
    if value is None:
        return SessionSettings()
    try:
        return coerce_session_settings(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("session_settings", str(exc)) from None


def _user_text(items: Sequence[Any]) -> str | None:
    """The text of the newest user message among ``items`` (a string content, or the
    ``input_text`` parts of a list), or None when there is none with text."""
    for item in reversed(items):
        if not isinstance(item, Mapping) or item.get("role") != "user" or item.get("type", "message") != "message":
            continue
        content = item.get("content")
        if isinstance(content, list):
            content = "\n".join(p["text"] for p in content
                                if isinstance(p, Mapping) and p.get("type") == "input_text" and isinstance(p.get("text"), str))
        if isinstance(content, str) and not check.blank(content):
            return content
    return None


@instrument("graphmem.openai_agents")
class GraphMemSession:
    """An Agents SDK ``Session`` (the protocol: ``session_id``, ``session_settings``,
    ``get_items``, ``add_items``, ``pop_item``, ``clear_session``) over the graphmem
    conversation ``session_id`` of ``user_id``, at scope ``<scope>/<user_id>``.

    ``add_items`` keeps each item twice under one id (``oai-<uuid4 hex>``): its exact JSON,
    without its ``id``, as a key-value item at ``<scope>/<user_id>/openai-sessions/<session>``
    (below the user's scope, so no recall or prompt block reads it), written first in one
    transaction; then its episode, the role and the text a person would read (a call reads
    ``calls name(arguments)``), all in one ``after_turn`` (with ``llm``, any langchain-core
    chat model, facts and the user's profile are extracted from them in the background;
    ``last_turn`` is that call's handle). ``get_items`` lists the episodes and reads their
    items in one read, oldest first: messages, function calls and their outputs (and custom
    tool calls) come back as they were added, without their ``id``; an episode with no item
    (written by another door) comes back as a ``{"role", "content"}`` message. Items with no
    text to remember are not kept: reasoning items (encrypted, and tied to the response that
    made them), hosted tools' calls, computer, shell, patch and MCP exchanges, item
    references. Ids go because the Responses API refuses an item whose id names a reasoning
    item that is not replayed with it; the runner then matches items without ids
    (``_ignore_ids_for_matching``, the SDK's convention for stores that drop them).

    Adding the same item twice stores it twice, as the SDK's SQLite session does: item ids
    are not unique (Chat Completions models and the test model give every message the
    same one). ``pop_item`` and ``clear_session`` forget episodes (``forget``,
    ``clear_session``), which stay as tombstones, and delete their items; what was learned
    from them is kept (``Memory.erase(user_id=...)`` removes all of it). An item's JSON, as
    stored, is at most 1 MiB (an inline image or file included), else ``InvalidInputError``;
    ``get_items`` returns at most the newest 10,000 items."""

    session_settings: SessionSettings | None = None
    _ignore_ids_for_matching = True

    def __init__(self, memory: Any, session_id: str, *, scope: str, user_id: str, agent_id: str | None = None,
                 llm: Any = None, session_settings: SessionSettings | Mapping[str, Any] | None = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, timezone: str = "UTC") -> None:
        self.turns = TurnMemory(memory, scope=scope, agent_id=agent_id, llm=llm, max_tokens=max_tokens,
                                timezone=timezone)
        self.memory = self.turns.memory
        self.place = self.turns.place(user_id, session_id)
        self.session_id: str = session_id
        self.session_settings = _settings(session_settings)
        self.items = SessionItems(self.memory, self.place.scope, session_id, self.place.user_id)
        self.last_turn: Any = None
        self._block = ""

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` items (default: ``session_settings.limit``, else all), oldest
        first; none for a limit of 0 or less."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidInputError("limit", f"must be an integer or None, got {limit!r}")
        wanted = resolve_session_limit(limit, self.session_settings)
        if wanted is not None and wanted <= 0:
            return []
        episodes = await self.turns.history(self.place, ALL_SENT if wanted is None else min(wanted, ALL_SENT))
        return [item for item in await self.items.read(episodes) if item is not None]

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        """Store ``items`` (Responses input items): their key-value items in one transaction,
        then their episodes in one ``after_turn``, after checking every one
        (``InvalidInputError`` naming ``items[i]...``, nothing written). Should the episodes
        fail to land, the items are deleted again."""
        if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
            raise InvalidInputError("items", "must be a list of Responses input items")
        kept = [k for i, item in enumerate(items) if (k := to_kept(item, f"items[{i}]")) is not None]
        if not kept:
            return
        await self.items.put(kept)
        try:
            self.last_turn = await self.turns.after(self.place, [k.message for k in kept])
        except Exception:
            with suppress(Exception):
                await self.items.delete([k.key for k in kept])
            raise

    async def pop_item(self) -> dict[str, Any] | None:
        """Forget the newest item's episode, delete its key-value item and return the item
        (None when the conversation is empty)."""
        for _ in range(5):  # another writer may forget it first: then the next newest
            newest = await self.items.newest(await self.turns.history(self.place, _POP_WINDOW))
            if newest is None:
                return None
            episode, item = newest
            if await acall(self.memory, "forget", scope=self.place.scope, id=episode.id):
                await self.items.delete([episode.id])
                return item
        return None

    async def clear_session(self) -> None:
        """Forget every episode of the conversation (``clear_session``), then delete its
        key-value items."""
        self._block = ""
        await self.turns.clear(self.place)
        await self.items.clear()

    async def model_input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig.call_model_input_filter``: the model's input unchanged, and the
        instructions followed by graphmem's block for the newest user message
        (``context_for_turn`` in this conversation's place; nothing added when the block is
        empty). It runs before every model call of a run, so a run that calls tools recalls
        once per step; a call whose input holds no user message (a server-managed
        conversation's later steps) reuses the last block. To combine it with a filter of
        your own, call it from yours."""
        model_data = data.model_data
        text = _user_text(model_data.input)
        if text is not None:
            # the conversation's items in this input are sent anyway: the block does not repeat
            # them, and what a session limit leaves out of the input can come back as memories
            sent = sum(1 for item in model_data.input if isinstance(item, Mapping) and kind(item) is not None)
            self._block = await self.turns.before(self.place, text, sent=min(sent, ALL_SENT))
        if not self._block:
            return model_data
        instructions = model_data.instructions
        return ModelInputData(input=model_data.input,
                              instructions=f"{instructions}\n\n{self._block}" if instructions else self._block)


publish(__name__, globals())
