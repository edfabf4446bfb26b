"""graphmem for LlamaIndex: a memory block that puts what graphmem remembers of a user into
every prompt of a ``Memory``, and a ``Memory`` that stores each turn in graphmem as it
happens.

``pip install 'graphmem[llamaindex]'``. Both take a ``Memory`` (called in a worker thread, so
the event loop never blocks) or an ``AsyncMemory``. The tenant is the memory's, ``scope`` is
the application's and every user gets ``<scope>/<user_id>`` below it (``TurnMemory.place``):
the user id is the application's, never a model's or a prompt's, and two users of one
application never read each other's memories.

LlamaIndex's ``Memory`` keeps the conversation in a short-term queue and gives its memory
blocks (``_aput``) only the messages it flushes out of that queue, once the conversation
outgrows ``token_limit * chat_history_token_ratio`` (21,000 tokens by default): a short
conversation never reaches a block, so a block alone would not remember it in the next
session. Hence two ways to use the block, each storing every message once:

* ``GraphMemMemory`` (recommended): a ``Memory`` whose ``aput`` / ``aput_messages`` (the agent's
  user message, then its replies and tool calls) also store the messages in graphmem, a user
  message with its reply as one turn, through every ``GraphMemMemoryBlock`` among its
  ``memory_blocks``; what it later flushes was stored already, so the blocks skip the flush.
* ``Memory.from_defaults(memory_blocks=[GraphMemMemoryBlock(...)])``: LlamaIndex's own rule,
  only the flushed messages are stored (graphmem as the long-term store of what leaves the
  window). Call ``block.remember_turn(messages)`` to store more yourself, and give the block
  ``accept_short_term_memory=False`` then, so the flush does not store those messages again.

Either way the block does not repeat the stored messages the queue still sends with the
prompt, and what was flushed out of the queue can come back in it, in the same session too."""

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory import BaseMemoryBlock, Memory

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.public import publish
from .._base.traced import instrument
from ._agent_turns import DEFAULT_MAX_TOKENS, Placement, TurnMemory

__all__ = ["GraphMemMemory", "GraphMemMemoryBlock", "turn_messages"]

CHARS_PER_TOKEN = 4
"""graphmem's token estimate (characters / 4), used to cut a block to a token budget."""

_ROLES = {"chatbot": "assistant", "model": "assistant"}
"""LlamaIndex roles graphmem names otherwise (``function`` and ``developer`` it reads as tool
and system itself)."""

_STORED_WHEN_PUT: ContextVar[bool] = ContextVar("graphmem_llamaindex_stored_when_put", default=False)
"""True while a ``GraphMemMemory`` puts messages: what its queue flushes then was stored when
it was put, and its graphmem blocks leave the flush alone."""


def _text(message: ChatMessage) -> str:
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock))


def _call(block: ToolCallBlock) -> str:
    args = block.tool_kwargs if isinstance(block.tool_kwargs, str) else \
        json.dumps(block.tool_kwargs, sort_keys=True, default=str)
    return f"calls {block.tool_name}({args})"


def turn_messages(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """LlamaIndex ``ChatMessage``s as graphmem's ``{"role", "content"}`` messages: the text of
    each message's text blocks, or, for an assistant message that only calls tools, its calls
    as ``calls name({...})`` (as graphmem writes LangChain's), so the turn keeps what was done.
    ``chatbot`` and ``model`` are assistant roles, ``function`` a tool result, ``developer`` a
    system message. Images, audio and documents are left out; a message with no text is
    passed on empty (``TurnMemory.after`` skips it). ``InvalidInputError`` (``messages[i]``)
    for anything that is not a ``ChatMessage``."""
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidInputError("messages", "must be a list of LlamaIndex ChatMessages")
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        if not isinstance(message, ChatMessage):
            raise InvalidInputError(f"messages[{i}]", f"must be a LlamaIndex ChatMessage, got {type(message).__name__}")
        role = str(getattr(message.role, "value", message.role))
        text = _text(message)
        if not text.strip():
            text = "; ".join(_call(b) for b in message.blocks if isinstance(b, ToolCallBlock))
        out.append({"role": _ROLES.get(role, role), "content": text})
    return out


def _latest_user_text(messages: Sequence[ChatMessage] | None) -> str | None:
    for message in reversed(messages or ()):
        if isinstance(message, ChatMessage) and message.role == "user":
            return _text(message)
    return None


async def _resent(turns: TurnMemory, place: Placement, messages: Sequence[Any]) -> int:
    """How many of the conversation's newest episodes ``messages`` (the short-term history the
    ``Memory`` sends the model with this prompt) carry again: ``TurnMemory.before``'s ``sent``.

    Which of them graphmem holds depends on the setup: a plain ``Memory``'s block stores only
    what the queue flushed, so none; ``GraphMemMemory`` each one it was given to put, except
    the question still waiting for its reply and a message without text; ``remember_turn``
    whatever the application gave it. Rather than guess the setup, the episodes are matched,
    newest first, against the messages, newest first, by the text ``turn_messages`` gives
    (the text each was stored with); a message with no episode (the waiting question, the
    ``input`` the ``Memory`` appends) is passed over, and the first episode no message
    matches ends the count. So an episode is left out of the block only when a message sent
    says the same; it and everything older otherwise can come back."""
    if place.session_id is None:
        return 0
    said = [m["content"] for m in turn_messages(m for m in messages if isinstance(m, ChatMessage))
            if not check.blank(m["content"])]
    if not said:
        return 0
    episodes = [e.text for e in reversed(await turns.history(place, max_messages=len(said)))]
    matched = 0
    for text in reversed(said):
        if matched < len(episodes) and text == episodes[matched]:
            matched += 1
    return matched


def _turns(memory: Any, scope: Any, agent_id: Any, llm: Any, max_tokens: Any, timezone: Any) -> TurnMemory:
    # graphmem learns with a langchain-core chat model: a LlamaIndex LLM is refused by
    # TurnMemory when the block is built, rather than when the first turn is stored
    return TurnMemory(memory, scope=scope, agent_id=agent_id, llm=llm, max_tokens=max_tokens, timezone=timezone)


@instrument("graphmem.llamaindex", names={"_aget": "graphmem.llamaindex.get", "_aput": "graphmem.llamaindex.put",
                                          "remember_turn": "graphmem.llamaindex.remember_turn"})
class GraphMemMemoryBlock(BaseMemoryBlock[str]):
    """A LlamaIndex memory block over graphmem, for ``Memory.from_defaults(memory_blocks=[...])``
    or ``GraphMemMemory``.

    ``aget`` (each time the ``Memory`` builds a prompt) returns ``context_for_turn`` for the
    latest user message's text: the user's notes and profile and the memories found for it,
    in a ``<graphmem>`` section of the ``Memory``'s ``<memory>`` block. The conversation's
    messages in the short-term queue, which LlamaIndex sends with the prompt, are not
    repeated among them; those flushed out of the queue can come back. ``aput`` (messages flushed out of
    the short-term queue) stores them with ``after_turn``; with ``llm`` (a langchain-core chat
    model) graphmem also learns facts from them in the background.

    The conversation is ``session_id`` when given (a block bound to one conversation), else the
    ``Memory``'s ``session_id``. ``priority`` is LlamaIndex's: 0 (the default) never truncates
    the block; above 0 it may be cut from its end (``atruncate``) when the prompt outgrows the
    ``Memory``'s ``token_limit``. Bad arguments raise ``InvalidInputError``
    naming the field when the block is built (graphmem's checks run before pydantic's)."""

    name: str = Field(default="graphmem", description="The block's name: its tag in the <memory> block.")
    description: str | None = Field(default="What graphmem remembers of the user across conversations.")
    memory: Any = Field(exclude=True, description="A graphmem Memory or AsyncMemory.")
    scope: str = Field(description="The application's scope; the user's is <scope>/<user_id>.")
    user_id: str = Field(description="The user: picks the scope, and is the records' user_id.")
    session_id: str | None = Field(default=None, description="The conversation; None: the Memory's session_id.")
    agent_id: str | None = Field(default=None, description="The agent, written on the records and whose notes are read.")
    llm: Any = Field(default=None, exclude=True, description="A langchain-core chat model graphmem learns facts with.")
    max_tokens: int = Field(default=DEFAULT_MAX_TOKENS, description="The block's budget (characters / 4).")
    timezone: str = Field(default="UTC", description="The IANA timezone dates in messages are read in.")

    def __init__(self, **data: Any) -> None:
        # graphmem's checks first: a bad value is an InvalidInputError naming the field, not a
        # pydantic ValidationError wrapping it (pydantic wraps what its validators raise)
        _turns(data.get("memory"), data.get("scope"), data.get("agent_id"), data.get("llm"),
               data.get("max_tokens", DEFAULT_MAX_TOKENS), data.get("timezone", "UTC")
               ).place(data.get("user_id"), data.get("session_id"))
        super().__init__(**data)

    def _placed(self, session_id: Any) -> tuple[TurnMemory, Placement]:
        """The block's memory and the user's conversation, checked again on every call (the
        model's fields can be reassigned after it was built)."""
        turns = _turns(self.memory, self.scope, self.agent_id, self.llm, self.max_tokens, self.timezone)
        return turns, turns.place(self.user_id, self.session_id if self.session_id is not None else session_id)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """The prompt block for the latest user message in ``messages`` ("" when there is none,
        or it has no text); the ``Memory`` passes its ``session_id`` in ``block_kwargs``, and in
        ``messages`` the short-term history it sends: the conversation's episodes among them are
        not repeated in the block, the others (flushed out of the queue) can come back."""
        turns, place = self._placed(block_kwargs.get("session_id"))
        text = _latest_user_text(messages)
        if text is None or check.blank(text):
            return ""
        return await turns.before(place, text, sent=await _resent(turns, place, messages or []))

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store the messages the ``Memory`` flushed out of its queue (their ``session_id`` is
        in ``additional_kwargs``), unless a ``GraphMemMemory`` stored them when they were put."""
        if _STORED_WHEN_PUT.get():
            return
        session = next((m.additional_kwargs["session_id"] for m in messages
                        if isinstance(m, ChatMessage) and m.additional_kwargs.get("session_id") is not None), None)
        await self._store(messages, session)

    def _checked(self, messages: Sequence[ChatMessage], session_id: Any) -> None:
        """``remember_turn``'s checks, writing nothing: ``InvalidInputError`` for a bad id or
        message (``messages[i]``, ``messages[i].content``)."""
        self._placed(session_id)
        batch = turn_messages(messages)
        for i, message in enumerate(batch):
            if not check.blank(message["content"]):
                check.text(message["content"], f"messages[{i}].content", limit=check.MAX_EPISODE_LENGTH)

    async def remember_turn(self, messages: Sequence[ChatMessage], *, session_id: str | None = None) -> Any:
        """Store ``messages`` now, as one turn of the conversation (the block's ``session_id``,
        else ``session_id``): what ``GraphMemMemory`` calls for each turn, and what to call with
        a plain ``Memory`` to store turns before they are flushed. Messages without text are
        skipped. Returns graphmem's turn handle (``.episodes``), or None when nothing had text.
        Every message and id is checked before anything is written."""
        return await self._store(messages, session_id)

    async def _store(self, messages: Sequence[ChatMessage], session_id: Any) -> Any:
        turns, place = self._placed(session_id)
        return await turns.after(place, turn_messages(messages))

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """The block less about ``tokens_to_truncate`` tokens (characters / 4), cut by whole lines
        from its end, so the block's sections go in reverse order (the conversation's summaries,
        the memories, episodes before facts, then the profile, the notes last); a section left
        without lines loses its heading. None when nothing is left."""
        lines = content.split("\n")
        keep = len(content) - max(0, tokens_to_truncate) * CHARS_PER_TOKEN
        while lines and (len("\n".join(lines)) > keep or not lines[-1].strip() or lines[-1].startswith("## ")):
            lines.pop()
        return "\n".join(lines) or None


class GraphMemMemory(Memory):
    """A LlamaIndex ``Memory`` that stores the messages put into it in graphmem, turn by turn,
    through each ``GraphMemMemoryBlock`` among its ``memory_blocks`` (at least one is needed:
    ``InvalidInputError`` on ``memory_blocks`` otherwise). Build it as a ``Memory``:
    ``GraphMemMemory.from_defaults(session_id=..., memory_blocks=[block])``, and give it to an
    agent (``agent.run(..., memory=mem)``); the conversation is its ``session_id`` unless the
    block names its own.

    A put of user messages only (an agent run's input) opens a turn: they wait until its first
    reply is put (a ``FunctionAgent`` puts its replies and tool calls when the run ends) and
    are stored with it as one turn, so the prompt built in between does not recall the
    question as a memory of itself, and an extraction model sees question and answer together.
    Anything else is stored when it is put. A turn left without a reply (the run failed) is
    stored when the next user message is put. Each message is checked when it is put, before
    LlamaIndex queues it (``InvalidInputError``).

    What the queue later flushes was stored already, so the graphmem blocks skip the flush;
    other blocks get it as usual. Messages given with ``aset`` or an agent's ``chat_history``
    (a replay of a conversation the caller kept) are not stored: graphmem stored them when
    they were first put."""

    _waiting: list[ChatMessage] = PrivateAttr(default_factory=list)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        if not self._graphmem_blocks():
            raise InvalidInputError("memory_blocks", "needs a GraphMemMemoryBlock: it is what stores the messages")

    def _graphmem_blocks(self) -> list[GraphMemMemoryBlock]:
        return [b for b in self.memory_blocks if isinstance(b, GraphMemMemoryBlock)]

    async def _put(self, messages: list[ChatMessage], queue: Callable[[], Awaitable[None]]) -> None:
        blocks = self._graphmem_blocks()
        for block in blocks:  # every check before anything is stored or queued
            GraphMemMemoryBlock._checked(block, messages, self.session_id)
        opens_a_turn = bool(messages) and all(m.role == "user" for m in messages)
        ready = self._waiting if opens_a_turn else [*self._waiting, *messages]
        if ready:
            for block in blocks:
                await block.remember_turn(ready, session_id=self.session_id)
        self._waiting = list(messages) if opens_a_turn else []
        token = _STORED_WHEN_PUT.set(True)
        try:
            await queue()
        finally:
            _STORED_WHEN_PUT.reset(token)

    async def aput(self, message: ChatMessage) -> None:
        """Store ``message`` in graphmem (a user message with its reply), then queue it
        (``Memory.aput``)."""
        await self._put([message], lambda: super(GraphMemMemory, self).aput(message))

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        """Store ``messages`` in graphmem as one turn (user messages only: with their reply),
        then queue them (``Memory.aput_messages``)."""
        batch = list(messages)
        await self._put(batch, lambda: super(GraphMemMemory, self).aput_messages(batch))


publish(__name__, globals())
