"""Google ADK's memory service over graphmem (``graphmem.integrations.adk``): ADK's
``BaseMemoryService`` and a tool that puts graphmem's prompt block in the system instruction."""

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.tools.base_tool import BaseTool
from google.genai import types

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.traced import instrument
from ._agent_turns import ALL_SENT, DEFAULT_MAX_TOKENS, Placement, TurnMemory
from ._bridge import acall

MAX_SEARCH_RESULTS = 10
"""How many memories ``search_memory`` returns unless told otherwise (ADK's own services keep 10 or fewer)."""
MAX_RECALL = 1_000
"""The most ``max_results`` may be (``recall``'s ``k``)."""


def content_text(content: Any) -> str:
    """The text of a ``types.Content``: its text parts (thoughts left out), one per line."""
    parts = getattr(content, "parts", None) or []
    return "\n".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))


def event_message(event: Any) -> dict[str, Any] | None:
    """An ADK ``Event`` as a graphmem message (None for an event without text: function
    calls and responses, partial chunks, state changes). The event's id becomes the
    episode's, so an event stored twice is kept once; an agent's name is its speaker."""
    if getattr(event, "partial", None):
        return None
    text = content_text(getattr(event, "content", None))
    if not text.strip():
        return None
    author = getattr(event, "author", "") or ""
    message: dict[str, Any] = {"role": "user" if author == "user" else "assistant", "content": text}
    if getattr(event, "id", None):
        message["id"] = event.id  # checked by after_turn, named events[i].id
    if author and author != "user":
        message["name"] = author
    stamp = getattr(event, "timestamp", None)
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        message["occurred_at"] = datetime.fromtimestamp(stamp, timezone.utc)
    return message


@instrument("graphmem.adk")
class GraphMemMemoryService(BaseMemoryService):
    """ADK's long-term memory in graphmem: pass it as ``Runner(memory_service=...)``.

    Each user's memories live at ``<scope>/<app_name>/<user_id>`` (``scope`` None: at
    ``<app_name>/<user_id>``), in the memory's tenant, with the user's and session's ids on
    every record: two users of an app, or two apps, never read each other's memories, and
    what the application keeps at ``<scope>/<app_name>`` is read by all its users.
    ``add_session_to_memory`` and ``add_events_to_memory`` store events with text as episodes
    through ``after_turn`` (learned from in the background with ``llm``, any langchain-core
    chat model); an event stored before is skipped. ``search_memory`` is ``recall`` (ADK's
    ``PreloadMemoryTool`` and ``LoadMemoryTool`` read it); ``GraphMemContextTool`` instead
    puts ``context_for_turn``'s block, with who said each line and when, in the system
    instruction. ``add_memory`` remembers explicit entries as facts; ``delete_memory`` erases
    one of the user's own memories for good."""

    def __init__(self, memory: Any, *, scope: str | None = None, llm: Any = None, agent_id: str | None = None,
                 max_results: int = MAX_SEARCH_RESULTS, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.turns = TurnMemory(memory, scope=scope, agent_id=agent_id, llm=llm, max_tokens=max_tokens)
        self.memory = self.turns.memory  # its spans go where the memory's go
        self.max_results = check.count(max_results, "max_results", most=MAX_RECALL)

    def place(self, app_name: Any, user_id: Any, session_id: Any = None) -> Placement:
        """Where ``user_id``'s memories of ``app_name`` live (``InvalidInputError`` naming a bad id)."""
        return self.turns.place(user_id, session_id, app=app_name)

    async def add_session_to_memory(self, session: Any) -> None:
        """Store the session's events that have text (those stored before are skipped)."""
        await self.add_events_to_memory(app_name=session.app_name, user_id=session.user_id, events=session.events,
                                        session_id=session.id)

    async def add_events_to_memory(self, *, app_name: str, user_id: str, events: Sequence[Any],
                                   session_id: str | None = None,
                                   custom_metadata: Mapping[str, object] | None = None) -> None:
        """Store ``events`` (a delta; those stored before are skipped) as episodes of
        ``session_id``. ``custom_metadata`` is accepted for portability and not used."""
        place = self.place(app_name, user_id, session_id)
        if isinstance(events, (str, bytes, Mapping)) or not isinstance(events, Sequence):
            raise InvalidInputError("events", "must be a list of ADK events")
        found = [(i, m) for i, e in enumerate(events) if (m := event_message(e)) is not None]
        if place.session_id is not None and found:
            known = {e.id for e in await self.turns.history(place, max_messages=ALL_SENT)}
            found = [(i, m) for i, m in found if m.get("id") not in known]
        await self.turns.after(place, [m for _, m in found], field="events", origins=[i for i, _ in found])

    async def add_memory(self, *, app_name: str, user_id: str, memories: Sequence[MemoryEntry],
                         custom_metadata: Mapping[str, object] | None = None) -> None:
        """Remember each entry's text as a fact of the user (provenance ``user``); an entry's
        ``id``, when given, is the fact's. All land in one transaction or none does (an
        error names ``memories[i]``)."""
        place = self.place(app_name, user_id)
        if isinstance(memories, (str, bytes, Mapping)) or not isinstance(memories, Sequence):
            raise InvalidInputError("memories", "must be a list of MemoryEntry")
        items = []
        for i, entry in enumerate(memories):
            if not isinstance(entry, MemoryEntry):
                raise InvalidInputError(f"memories[{i}]", f"must be a MemoryEntry, got {type(entry).__name__}")
            items.append({"text": check.text(content_text(entry.content), f"memories[{i}].content"),
                          "id": check.identifier(entry.id, f"memories[{i}].id", allow_none=True),
                          "scope": place.scope, "provenance": "user", "user_id": place.user_id,
                          "agent_id": place.agent_id})
        if not items:
            return
        try:
            await acall(self.turns.memory, "remember_many", items)
        except InvalidInputError as error:  # items[i].field -> memories[i].field
            if not error.field.startswith("items["):
                raise
            raise InvalidInputError("memories" + error.field.removeprefix("items"), error.message) from error

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        """The user's memories for ``query`` (``recall``, best first, at most ``max_results``):
        ``MemoryEntry`` with the record's id, its text as a user ``Content``, who said it
        (an episode's speaker) and when (ISO 8601), and ``custom_metadata`` kind and score.
        A query with no text finds nothing."""
        place = self.place(app_name, user_id)
        if not isinstance(query, str):
            raise InvalidInputError("query", "must be a string")
        if check.blank(query):
            return SearchMemoryResponse()
        results = await self.turns.search(place, query, k=self.max_results)
        return SearchMemoryResponse(memories=[memory_entry(r) for r in results])

    async def delete_memory(self, *, app_name: str, user_id: str, memory_id: str | None = None) -> None:
        """Erase the memory ``memory_id`` (a ``MemoryEntry.id``) for good, with what only it
        gave rise to (``erase``); only a memory in the user's own scope: another user's or
        the application's is left alone."""
        place = self.place(app_name, user_id)
        mid = check.identifier(memory_id, "memory_id")
        await acall(self.turns.memory, "erase", id=mid, scope=place.scope)

    async def context_block(self, *, app_name: str, user_id: str, session_id: str | None, text: str) -> str:
        """``context_for_turn``'s prompt block for the user's turn ``text`` ("" without text)."""
        return await self.turns.before(self.place(app_name, user_id, session_id), text)

    async def remember_session(self, callback_context: Any) -> None:
        """An ``after_agent_callback``: store the session's new events after each run
        (``LlmAgent(after_agent_callback=service.remember_session)``); returns None, so the
        agent's reply stands."""
        await self.add_session_to_memory(callback_context.session)


def memory_entry(result: Any) -> MemoryEntry:
    """A recall result as an ADK ``MemoryEntry``."""
    record = result.record
    when = getattr(record, "occurred_at", None) or getattr(record, "valid_from", None) or record.created_at
    return MemoryEntry(
        id=record.id,
        content=types.Content(role="user", parts=[types.Part(text=record.text)]),
        author=getattr(record, "speaker", None) or None,
        timestamp=when.isoformat() if when is not None else None,
        custom_metadata={"kind": record.kind, "score": result.score, "scope": record.scope},
    )


@instrument("graphmem.adk", names={"process_llm_request": "graphmem.adk.context"})
class GraphMemContextTool(BaseTool):
    """Put graphmem's prompt block for the user's turn (``context_for_turn``: notes,
    profile, the memories found, the session's recent messages, each line with who said it
    and when) in the system instruction before every model call of the agent. Give it the
    service: ``LlmAgent(tools=[GraphMemContextTool(service)])``. The model never calls it."""

    def __init__(self, service: GraphMemMemoryService) -> None:
        if not isinstance(service, GraphMemMemoryService):
            raise InvalidInputError("service", "must be a GraphMemMemoryService")
        super().__init__(name="graphmem_context", description="graphmem's memory of the user, read before each model call")
        self.service = service
        self.memory = service.memory

    async def process_llm_request(self, *, tool_context: Any, llm_request: Any) -> None:
        """Append the block for the invocation's user message to ``llm_request``'s system instruction."""
        session = tool_context.session
        block = await self.service.context_block(app_name=session.app_name, user_id=session.user_id,
                                                 session_id=session.id, text=content_text(tool_context.user_content))
        if block:
            llm_request.append_instructions([block])
