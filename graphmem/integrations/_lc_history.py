"""A LangChain chat history over graphmem episodes
(``graphmem.integrations.langchain.GraphMemChatMessageHistory``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from .._base import scopes
from .._base.models import Episode
from .._base.traced import instrument
from ._bridge import acall, call, check_memory

__all__ = ["GraphMemChatMessageHistory", "episode_message"]


_MESSAGE = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage, "event": SystemMessage}


def episode_message(episode: Episode) -> BaseMessage:
    """An episode as a LangChain message (its id is the episode's id)."""
    if episode.role == "tool":
        return ToolMessage(content=episode.text, tool_call_id=episode.id, id=episode.id)
    return _MESSAGE[episode.role](content=episode.text, id=episode.id)


def _storable(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Messages with something to store: text, or tool calls (written as text by ingest)."""
    return [m for m in messages
            if (isinstance(m.content, str) and m.content.strip()) or (isinstance(m.content, list) and m.content)
            or getattr(m, "tool_calls", None)]


@instrument("graphmem.langchain.history")
class GraphMemChatMessageHistory(BaseChatMessageHistory):
    """A conversation kept as episodes (``session_id`` at ``scope``, of ``user_id``).

    ``messages`` are the newest ``max_messages`` turns, oldest first; ``add_messages``
    writes a batch in one transaction through ``ingest``; with ``llm`` (any langchain-core
    chat model) each batch is also extracted into entities and facts, and
    ``last_result`` holds the ``IngestResult``. ``clear`` forgets the session's episodes
    (see ``Memory.clear_session``). Works with ``RunnableWithMessageHistory``.

    Episodes keep text, not a message's structure: an assistant turn that only called
    tools reads back as text (``calls name({...})``), and tool results are left out of
    ``messages`` unless ``include_tool_results`` (then they are ``ToolMessage``s whose
    ``tool_call_id`` is the episode id, which a provider would not match to a call)."""

    def __init__(self, memory: Any, session_id: str, *, scope: str, user_id: str | None = None, llm: Any = None,
                 max_messages: int = 100, max_tokens: int | None = None, timezone: str = "UTC",
                 include_tool_results: bool = False) -> None:
        from .._base import validate as check

        self.memory = check_memory(memory)
        self.session_id = check.identifier(session_id, "session_id")
        self.scope = scopes.check_path(scope)
        self.user_id = check.identifier(user_id, "user_id", allow_none=True)
        self.llm = llm
        self.max_messages = max_messages
        self.max_tokens = max_tokens
        self.timezone = timezone
        self.include_tool_results = include_tool_results
        self.last_result: Any = None

    def _read(self) -> dict[str, Any]:
        return dict(scope=self.scope, max_messages=self.max_messages, max_tokens=self.max_tokens)

    def _write(self) -> dict[str, Any]:
        return dict(scope=self.scope, llm=self.llm, session_id=self.session_id, user_id=self.user_id,
                    timezone=self.timezone)

    def _converted(self, episodes: list[Episode]) -> list[BaseMessage]:
        return [episode_message(e) for e in episodes if self.include_tool_results or e.role != "tool"]

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return self._converted(call(self.memory, "messages", self.session_id, **self._read()))

    async def aget_messages(self) -> list[BaseMessage]:
        return self._converted(await acall(self.memory, "messages", self.session_id, **self._read()))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _storable(messages)
        if batch:
            self.last_result = call(self.memory, "ingest", batch, **self._write())

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _storable(messages)
        if batch:
            self.last_result = await acall(self.memory, "ingest", batch, **self._write())

    def clear(self) -> None:
        call(self.memory, "clear_session", self.session_id, scope=self.scope)

    async def aclear(self) -> None:
        await acall(self.memory, "clear_session", self.session_id, scope=self.scope)

