"""What the agent-framework adapters share (ADK, Agent Framework, OpenAI Agents, PydanticAI,
LlamaIndex): where a framework's application, user and conversation land in graphmem, the
prompt block read before a run and the turn stored after it. No framework is imported here.

Placement: the tenant is always the ``Memory``'s (the operator's hard wall). The adapter's
``scope`` is the application's; each user gets a scope of their own below it
(``<scope>/<user>``, and ``<scope>/<app>/<user>`` where the framework names applications,
as ADK's ``app_name`` does), so two users of one application are siblings and never read
each other's memories, while what the application keeps at ``<scope>`` itself is seen by
all of them. The framework's user and conversation ids are also the records' ``user_id``
and ``session_id``. An id that is not a valid scope segment (a ``/``, spaces at its ends)
is escaped as LangGraph's namespace labels are, reversibly."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._async.llm import check_llm
from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from ._bridge import acall, check_memory
from ._lg_namespaces import to_segment

ALL_SENT = 10_000
"""``before``'s ``sent`` when the framework sends the whole conversation: the most messages
``context_for_turn`` looks back over (``Memory.messages``' bound)."""

_MESSAGE_FIELD = re.compile(r"^messages\[(\d+)\](.*)$", flags=re.S)

DEFAULT_MAX_TOKENS = 2_000
"""The prompt block's budget when an adapter is given none (``context_for_turn``'s default)."""

FRAMEWORK_KEEPS_HISTORY = {"messages": 0}
"""The block's section weights by default: every framework here sends the conversation's own
messages to the model itself, so the block leaves out its ``messages`` section (the
conversation's newest messages) rather than show them twice; its share goes to the memories."""


@dataclass(frozen=True)
class Placement:
    """Where one user's conversation lives: the scope, and the ids written on its records."""

    scope: str
    user_id: str
    session_id: str | None
    agent_id: str | None


class TurnMemory:
    """One application's memory as the adapters use it: ``place`` a user's conversation,
    ``before`` a run (the prompt block), ``after`` it (the turn stored, learned from in the
    background with ``llm``), and ``search``, ``history``, ``clear`` for the frameworks'
    memory and session interfaces. Every argument is checked here, so each adapter goes
    through the same checks as every other door (``InvalidInputError`` naming the field)."""

    def __init__(self, memory: Any, *, scope: str | None, agent_id: str | None = None, llm: Any = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, timezone: str = "UTC",
                 priorities: Mapping[str, int] | None = None) -> None:
        self.memory = check_memory(memory)
        check_llm(llm, allow_none=True)  # refused at construction, not at the first stored turn
        self.scope = None if scope is None else scopes.check_path(scope)
        self.agent_id = check.identifier(agent_id, "agent_id", allow_none=True)
        self.llm = llm
        self.max_tokens = check.count(max_tokens, "max_tokens")
        if not isinstance(timezone, str):
            raise InvalidInputError("timezone", "must be an IANA timezone name")
        self.timezone = timezone
        self.priorities = dict(FRAMEWORK_KEEPS_HISTORY if priorities is None else priorities)

    def place(self, user_id: Any, session_id: Any = None, *, app: Any = None, user_field: str = "user_id",
              session_field: str = "session_id", app_field: str = "app_name") -> Placement:
        """The placement of ``user_id``'s conversation ``session_id`` (None: no conversation),
        in application ``app`` when the framework names one. The ``*_field`` arguments are the
        framework's own names for them, used in errors."""
        user = check.identifier(user_id, user_field)
        session = check.identifier(session_id, session_field, allow_none=True)
        if self.scope is None and app is None:
            raise InvalidInputError("scope", "is needed when the framework names no application")
        parts = [] if self.scope is None else [self.scope]
        if app is not None:
            segment = to_segment(check.identifier(app, app_field))
            parts.append(scopes.check_path(segment, app_field))  # '.' and '..' are no segment
        parts.append(to_segment(user))
        return Placement(scopes.check_path("/".join(parts), user_field), user, session, self.agent_id)

    async def before(self, place: Placement, text: str | None, *, sent: int = ALL_SENT) -> str:
        """The prompt block for the turn that answers ``text`` (``context_for_turn``): "" when
        there is no text to recall for (a turn of tool results only). ``sent`` is how many of
        the conversation's newest messages the framework itself sends the model with this
        request (all of them by default): those are not repeated among the memories, while
        older ones it no longer sends (a trimmed history, a flushed buffer) can come back."""
        if text is None or check.blank(text):
            return ""
        return str(await acall(self.memory, "context_for_turn", text, scope=place.scope, session_id=place.session_id,
                               user_id=place.user_id, agent_id=place.agent_id, max_tokens=self.max_tokens,
                               priorities=self.priorities, window=check.count(sent, "sent", least=0, most=ALL_SENT)))

    async def after(self, place: Placement, messages: Sequence[dict[str, Any]], *, field: str = "messages",
                    origins: Sequence[int] | None = None) -> Any:
        """Store a finished turn (``after_turn``): ``{"role", "content"[, "id", "name",
        "occurred_at"]}`` messages; nothing when none has text. Returns the turn's handle, or
        None. An error about one message names it as ``<field>[i]``, ``i`` its place in the
        caller's list (``origins[j]`` for ``messages[j]`` when the caller left some out)."""
        kept = [(i, m) for i, m in enumerate(messages)
                if isinstance(m.get("content"), str) and not check.blank(m["content"])]
        if not kept:
            return None
        try:
            return await acall(self.memory, "after_turn", [m for _, m in kept], scope=place.scope, llm=self.llm,
                               session_id=place.session_id, user_id=place.user_id, agent_id=place.agent_id,
                               timezone=self.timezone)
        except InvalidInputError as error:
            found = _MESSAGE_FIELD.match(error.field or "")
            if found is None:
                raise
            i = kept[int(found.group(1))][0]
            raise InvalidInputError(f"{field}[{origins[i] if origins is not None else i}]{found.group(2)}",
                                    error.message) from error

    async def search(self, place: Placement, query: str, k: int = 10) -> list[Any]:
        """``recall`` in the user's scope: what the user and the application keep."""
        return list(await acall(self.memory, "recall", check.text(query, "query"), scope=place.scope, k=k))

    async def history(self, place: Placement, max_messages: int = 100) -> list[Any]:
        """The conversation's episodes at the user's own scope, oldest first (``messages``;
        an episode the application keeps above it under the same session id is not the
        user's conversation)."""
        if place.session_id is None:
            raise InvalidInputError("session_id", "is needed to read a conversation")
        return [e for e in await acall(self.memory, "messages", place.session_id, scope=place.scope,
                                       max_messages=max_messages) if e.scope == place.scope]

    async def clear(self, place: Placement) -> int:
        """Forget the conversation's episodes at the user's own scope (kept as tombstones, as
        ``clear_session`` does); an episode of the same session id above it (the
        application's) is left alone."""
        if place.session_id is None:
            raise InvalidInputError("session_id", "is needed to clear a conversation")
        visible = await acall(self.memory, "messages", place.session_id, scope=place.scope, max_messages=ALL_SENT)
        if all(e.scope == place.scope for e in visible):
            return int(await acall(self.memory, "clear_session", place.session_id, scope=place.scope))
        forgotten = 0
        for episode in visible:
            if episode.scope == place.scope:
                forgotten += int(await acall(self.memory, "forget", scope=place.scope, id=episode.id))
        return forgotten
