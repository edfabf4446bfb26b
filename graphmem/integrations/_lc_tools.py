"""LangChain tools over a graphmem memory (``graphmem.integrations.langchain.memory_tools``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from .._async.memory import AsyncMemory
from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, NotFoundError
from .._base.models import Fact, Provenance, Record
from .._base.observe import Observability
from .._base.traced import instrument, observer
from .._recall import lines
from .._recall.fusion import ScoredMemory
from ._arguments import argument_errors
from ._bridge import Caller, check_memory, twins

__all__ = ["memory_tools"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RememberArgs(_Strict):
    """Store one statement in long-term memory."""

    text: str = Field(description="The statement to remember, as one complete sentence, e.g. "
                                  "'Alice is allergic to peanuts'. One fact per call.")
    subject: str | None = Field(None, description="Optional short id of who or what the statement is about, "
                                                  "e.g. 'alice'. Give subject and predicate together so a later "
                                                  "value replaces this one.")
    predicate: str | None = Field(None, description="Optional attribute in snake_case, e.g. 'lives_in', "
                                                    "'favourite_food'.")
    object: str | None = Field(None, description="Optional value of the attribute, e.g. 'Berlin'.")


class RecallArgs(_Strict):
    """Search long-term memory."""

    query: str = Field(description="What to look for, as a question or keywords, e.g. 'where does Alice live?'.")
    k: int = Field(5, ge=1, le=20, description="How many memories to return (1-20).")


class ForgetArgs(_Strict):
    """Forget one memory."""

    id: str = Field(description="The id of the memory to forget, exactly as shown in square brackets by "
                                "recall, remember or history.")


class CorrectArgs(_Strict):
    """Replace a wrong fact with the right statement."""

    id: str = Field(description="The id of the wrong fact, exactly as shown in square brackets by recall or history.")
    corrected_text: str = Field(description="The right statement, as one complete sentence.")
    object: str | None = Field(None, description="Optional corrected value, when the fact has a subject and "
                                                 "predicate, e.g. 'Munich'.")


class HistoryArgs(_Strict):
    """Show how a fact changed over time."""

    id: str = Field(description="The id of a fact, exactly as shown in square brackets by recall or remember.")


def _line(record: Record, score: float | None = None) -> str:
    """One record for the model: id, kind and score, then what it says as ``context()`` says
    it (an episode's date and speaker, a fact's validity: ``_recall/lines.py``)."""
    head = f"[{record.id}] {record.kind}"
    if score is not None:
        head += f" {score:.2f}"
    extra = []
    if record.invalidated_at is not None:
        extra.append(f"{record.invalidation_reason or 'invalidated'} {_day(record.invalidated_at)}")
    if record.status.value != "active":
        extra.append(record.status.value)
    return f"{head}: {lines.body(record)}" + (f" ({'; '.join(extra)})" if extra else "")


def _day(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d")


def _history_lines(versions: list[Record]) -> str:
    lines = []
    for v in versions:
        line = _line(v)
        if v.superseded_by:
            line += " -> " + ", ".join(f"{s.reason} by [{s.by}]" for s in v.superseded_by)
        lines.append(line)
    return "\n".join(lines)


class _Tools:
    """The tools, each written once as a coroutine of a ``caller`` (``_bridge.twins`` derives
    the sync and async callables from it), and the state they share: the memory's scope and
    what the application bound."""

    def __init__(self, scope: str, user_id: str | None, session_id: str | None, provenance: Provenance,
                 observe: Observability, tenant: str) -> None:
        self.scope = scope
        self.user_id = user_id
        self.session_id = session_id
        self.provenance = provenance
        self._observe = observe
        self._tenant = tenant

    def owned(self, record: Record | None, rid: str, what: str = "memory") -> Record:
        """The record, if this scope may change it: stored at the bound scope or below."""
        if record is None or not scopes.within(record.scope, self.scope):
            raise ToolException(f"No {what} with id {rid!r} can be changed here (ids come from recall or remember).")
        if what == "fact" and record.kind != "fact":
            raise ToolException(f"{rid!r} is a {record.kind}, not a fact: only facts can be corrected.")
        return record

    def visible(self, record: Record | None, rid: str) -> Record:
        if record is None or record.scope not in scopes.chain(self.scope):
            raise ToolException(f"No memory with id {rid!r} is visible here.")
        return record

    async def remember(self, memory: Caller, text: str, subject: str | None = None, predicate: str | None = None,
                       object: str | None = None) -> str:
        fact = await memory("remember", text, scope=self.scope, subject=subject, predicate=predicate, object=object,
                            provenance=self.provenance, user_id=self.user_id, session_id=self.session_id)
        if fact is None:
            return "Not stored: the user asked to forget this before."
        return f"Remembered [{fact.id}]: {fact.text}"

    async def recall(self, memory: Caller, query: str, k: int = 5) -> str:
        results: list[ScoredMemory] = await memory("recall", query, scope=self.scope, k=k)
        if not results:
            return "No memories match that."
        return "\n".join(_line(r.record, r.score) for r in results)

    async def forget(self, memory: Caller, id: str) -> str:
        record = self.owned(await memory("get", id), id)
        if not await memory("forget", scope=record.scope, id=record.id):
            raise ToolException(f"[{id}] is already forgotten or no longer current.")
        return f"Forgot [{id}]."

    async def correct(self, memory: Caller, id: str, corrected_text: str, object: str | None = None) -> str:
        self.owned(await memory("get", id), id, "fact")
        fixed = await memory("correct", id, corrected_text, object=object)
        return f"Corrected [{id}] -> [{fixed.id}]: {fixed.text}"

    async def history(self, memory: Caller, id: str) -> str:
        record = self.visible(await memory("get", id), id)
        if not isinstance(record, Fact) or record.subject is None:
            return _history_lines([record])
        return _history_lines(await memory("history", subject=record.subject, predicate=record.predicate,
                                           scope=self.scope))


_SPECS: dict[str, tuple[type[BaseModel], str]] = {
    "remember": (RememberArgs,
                 "Save one durable fact about the user or their world to long-term memory, so it is "
                 "known in later conversations. Use it for preferences, personal details, decisions "
                 "and corrections the user states. Returns the new memory's id in square brackets."),
    "recall": (RecallArgs,
               "Search long-term memory before answering anything that may depend on what the user "
               "told you earlier. Returns one memory per line: [id] kind score: text (validity)."),
    "forget": (ForgetArgs,
               "Forget one memory when the user asks you to. Pass the id shown in square brackets "
               "by recall or remember. It will not be recalled again."),
    "correct": (CorrectArgs,
                "Fix a fact that is wrong (not one that changed over time: remember the new value "
                "instead). Pass the wrong fact's id and the right statement; returns the new id."),
    "history": (HistoryArgs,
                "Show every version of a fact, oldest first, with when each was valid and what "
                "replaced it. Pass the id of any version."),
}


def _guard(fn: Callable[..., Coroutine[Any, Any, str]]) -> Callable[..., Coroutine[Any, Any, str]]:
    """graphmem's input errors reach the model as a tool error naming the field; anything
    else (Neo4j unreachable, a conflict) is the application's to handle and propagates."""
    @functools.wraps(fn)
    async def guarded(*args: Any, **kwargs: Any) -> str:
        try:
            return await fn(*args, **kwargs)
        except (InvalidInputError, NotFoundError) as exc:
            raise ToolException(str(exc)) from exc
    return guarded


instrument("graphmem.langchain", names=list(_SPECS))(_Tools)  # each tool call is a span


def memory_tools(
    memory: Any,
    *,
    scope: str,
    user_id: str | None = None,
    session_id: str | None = None,
    provenance: Provenance | str = Provenance.USER,
    include: Sequence[str] = ("remember", "recall", "forget", "correct", "history"),
) -> list[BaseTool]:
    """Tools for a tool-calling model over ``memory`` at the application's ``scope``:
    ``remember``, ``recall``, ``forget``, ``correct`` and ``history``.

    The tenant (the memory's) and ``scope`` are fixed here and are not tool arguments: an
    argument the schema does not name is refused. The model sees what is visible at
    ``scope`` and can change only memories stored at ``scope`` or below. ``provenance``
    (default ``user``: the model relays what the user said) marks what ``remember``
    writes; ``user_id`` and ``session_id`` are recorded on it. Results are short text with
    the ids the model passes back to ``forget``, ``correct`` and ``history``; errors come
    back as text naming the problem."""
    check_memory(memory)
    scope = scopes.check_path(scope)
    check.identifier(user_id, "user_id", allow_none=True)
    check.identifier(session_id, "session_id", allow_none=True)
    # the tools' spans go where the memory's go
    state = _Tools(scope, user_id, session_id, check.choice(provenance, Provenance, "provenance"), observer(memory),
                   memory.tenant)
    sync = not isinstance(memory, AsyncMemory)  # an AsyncMemory's tools are async only
    tools: list[BaseTool] = []
    for name in include:
        if name not in _SPECS:
            raise InvalidInputError("include", f"{name!r} is not one of {', '.join(_SPECS)}")
        schema, description = _SPECS[name]
        func, coroutine = twins(memory, _guard(getattr(state, name)))
        tools.append(StructuredTool.from_function(
            func=func if sync else None, coroutine=coroutine, name=name, description=description,
            args_schema=schema, handle_tool_error=True, handle_validation_error=argument_errors,
        ))
    return tools
