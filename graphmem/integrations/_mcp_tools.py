"""The tools of the MCP server (``graphmem.integrations.mcp``): one ``_Tools`` method each,
bound to the server's memory, root scope and user id, with argument models that refuse what a
tool does not declare and graphmem's errors told as MCP tool errors."""

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._async.memory import AsyncMemory
from .._base import validate as check
from .._base.errors import GraphMemError, InvalidInputError, Neo4jUnavailableError
from .._base.kinds import KINDS
from .._base.models import MemoryRecord
from .._base.traced import instrument
from ._arguments import argument_errors
from ._mcp_support import Bounds, record_line, record_lines

if TYPE_CHECKING:
    Kind = str
else:
    Kind = Literal[KINDS]
"""Every kind recall can keep, from the registry of kinds (``_base/kinds.py``): the tools'
schema lists them as an enum, and a value outside it is refused before recall runs."""
Role = Literal["user", "assistant", "tool", "system", "event"]

_SCOPE_HELP = ("Optional sub-scope, relative to this server's scope (e.g. 'projects/apollo'); "
               "omit it to use the server's own scope. No '..', no leading '/'.")
SubScope = Annotated[str | None, Field(description=_SCOPE_HELP)]
AsOf = Annotated[datetime | None, Field(description=(
    "Transaction time, ISO 8601 with a UTC offset (e.g. '2024-05-01T00:00:00Z'): answer with "
    "what the memory believed then. Omit for now."))]
ValidAt = Annotated[datetime | None, Field(description=(
    "Valid time, ISO 8601 with a UTC offset: answer with what was true in the world then. "
    "Omit for now."))]

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


_UNKNOWN = "not an argument of this tool (the server's configuration decides the tenant, the user and the root scope)"


class _StrictTool(Tool):
    """A tool that refuses arguments its signature does not declare (the SDK drops them
    silently) and arguments of the wrong JSON type (the SDK reads ``"5"`` as the number 5),
    and reports bad arguments as ``Invalid arguments: <field>: <problem>``."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:  # JSON's own types, strictly: a number is a number, times are ISO-8601 text
            self.fn_metadata.arg_model.model_validate_json(json.dumps(arguments, default=str), strict=True)
        except ValidationError as exc:
            raise ToolError(argument_errors(exc, _UNKNOWN)) from exc
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_errors(exc.__cause__, _UNKNOWN)) from exc.__cause__
            raise


def _strict_tool(fn: Callable[..., Any], annotations: ToolAnnotations) -> Tool:
    """The SDK's tool for ``fn``, with an argument model that forbids extra arguments (its
    published schema says ``additionalProperties: false``)."""
    tool = Tool.from_function(fn, annotations=annotations, structured_output=False)
    loose = tool.fn_metadata.arg_model
    strict = cast(type[BaseModel], type(loose.__name__, (loose,), {
        "__module__": loose.__module__, "model_config": ConfigDict(**{**loose.model_config, "extra": "forbid"})}))
    values = {name: getattr(tool, name) for name in Tool.model_fields}
    values.update(fn_metadata=tool.fn_metadata.model_copy(update={"arg_model": strict}),
                  parameters=strict.model_json_schema(by_alias=True))
    return _StrictTool(**values)


@contextmanager
def _as_tool_errors() -> Iterator[None]:
    """graphmem's errors as MCP tool errors (``is_error`` results the model reads)."""
    try:
        yield
    except ToolError:
        raise
    except InvalidInputError as exc:
        message = exc.message
        if message.startswith("must be timezone-aware"):  # graphmem's wording is for Python callers
            message = "needs a UTC offset, e.g. '2023-03-01T00:00:00Z' (a time without one is ambiguous)"
        raise ToolError(f"{exc.field}: {message}") from exc
    except Neo4jUnavailableError as exc:
        raise ToolError("the memory store is unavailable right now; try again later") from exc
    except GraphMemError as exc:
        raise ToolError(str(exc)) from exc


_ANNOTATIONS: dict[str, ToolAnnotations] = {}


def _tool(annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a ``_Tools`` method as a tool with ``annotations`` (tools are listed in the
    order they are defined)."""
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _ANNOTATIONS[fn.__name__] = annotations
        return fn
    return register


class _Tools:
    """The tools of one server: each ``@_tool`` method is one, bound to the memory, the root
    scope and the user id; its name, docstring and signature are the tool's name,
    description and argument schema."""

    def __init__(self, memory: AsyncMemory, bounds: Bounds, user_id: str | None) -> None:
        self.memory = memory
        self.bounds = bounds
        self.user_id = user_id

    async def owned(self, id_: str, field_name: str) -> MemoryRecord:
        """The record ``id_`` if a tool may change it; the same error for missing and foreign."""
        check.identifier(id_, field_name)
        record = await self.memory.get(id_)
        if record is None or not (self.bounds.owns(record.scope) or self.bounds.inherits(record.scope)):
            raise ToolError(f"{field_name}: no memory {id_!r} in this memory's scope")
        if not self.bounds.owns(record.scope):
            raise ToolError(f"{field_name}: {id_!r} belongs to scope {record.scope!r}, above this memory's "
                            f"scope {self.bounds.root!r}: it can be read here, not changed")
        return record

    @_tool(_ADD)
    async def remember(
        self,
        text: Annotated[str, Field(description="The fact in one self-contained sentence, e.g. 'Alice moved to Berlin in March 2023'.")],
        subject: Annotated[str | None, Field(description="Who or what it is about, as a short stable key (e.g. 'alice'). Give it with predicate so a new value replaces the old one.")] = None,
        predicate: Annotated[str | None, Field(description="The attribute, snake_case (e.g. 'lives_in', 'likes', 'works_at').")] = None,
        object: Annotated[str | None, Field(description="The value (e.g. 'Berlin').")] = None,
        single_valued: Annotated[bool | None, Field(description="True if the subject has one value of this predicate at a time (lives_in): a new value supersedes the old. Omit for graphmem's default per predicate.")] = None,
        valid_from: Annotated[datetime | None, Field(description="When it became true in the world, ISO 8601 with a UTC offset (e.g. '2023-03-01T00:00:00Z'). Omit for now.")] = None,
        valid_to: Annotated[datetime | None, Field(description="When it stopped being true, ISO 8601 with a UTC offset. Omit if it still holds.")] = None,
        said_by_user: Annotated[bool, Field(description="True if the user stated it themselves; False if you inferred it (inferred facts rank lower and are never restated after the user asked to forget them).")] = True,
        importance: Annotated[float | None, Field(ge=0, le=1, description="0..1, how much it matters later (default 0.5).")] = None,
        tags: Annotated[list[str] | None, Field(description="Optional labels.")] = None,
        session_id: Annotated[str | None, Field(description="Optional conversation id it came from.")] = None,
        scope: SubScope = None,
    ) -> str:
        """Store a durable fact in long-term memory and return its id. With subject and
        predicate, a new value of a single-valued attribute supersedes the current one (the
        old one stays in history); to fix a wrong record use correct instead."""
        with _as_tool_errors():
            fact = await self.memory.remember(
                text, scope=self.bounds.scope(scope), subject=subject, predicate=predicate, object=object,
                single_valued=single_valued, valid_from=valid_from, valid_to=valid_to,
                provenance="user" if said_by_user else "extraction", importance=importance,
                tags=tags or (), session_id=session_id, user_id=self.user_id)
            if fact is None:
                return "not stored: the user asked to forget this earlier; store it only if they say it again themselves"
            return "remembered\n" + record_line(fact)

    @_tool(_READ)
    async def recall(
        self,
        query: Annotated[str, Field(description="What you want to know, in plain words (e.g. 'where does Alice live?').")],
        k: Annotated[int, Field(ge=1, le=50, description="How many memories to return (1..50).")] = 8,
        kinds: Annotated[list[Kind] | None, Field(description="Only these kinds; omit for all.")] = None,
        as_of: AsOf = None,
        valid_at: ValidAt = None,
        scope: SubScope = None,
    ) -> str:
        """Search long-term memory: the k memories that best answer the query, best first,
        one per line as '[kind id] (score) text | details'. By default only what is true and
        believed now. Use the ids with correct or forget."""
        with _as_tool_errors():
            results = await self.memory.recall(query, scope=self.bounds.scope(scope), k=k, kinds=kinds,
                                               as_of=as_of, valid_at=valid_at)
            if not results:
                return "no memories matched"
            return "\n".join(record_line(r.record, score=r.score, quarantined=r.quarantined) for r in results)

    @_tool(_READ)
    async def context(
        self,
        query: Annotated[str, Field(description="The task or question the context is for.")],
        max_tokens: Annotated[int, Field(ge=50, le=20000, description="Budget for the block (about 4 characters a token).")] = 1500,
        scope: SubScope = None,
    ) -> str:
        """A prompt-ready block of what memory knows that bears on the query: facts,
        insights, procedures and recent episodes in sections, each line with its source and
        validity. For reading only; use recall when you need ids."""
        with _as_tool_errors():
            block = await self.memory.context(query, scope=self.bounds.scope(scope), max_tokens=max_tokens)
            return block or "memory holds nothing relevant"

    @_tool(_CHANGE)
    async def forget(
        self,
        id: Annotated[str, Field(description="The id of the memory to forget, as shown by recall, facts or history.")],
    ) -> str:
        """Forget one memory because the user asked to: it stops being believed and is kept
        only as a tombstone, so it is never restated from later conversations."""
        with _as_tool_errors():
            record = await self.owned(id, "id")
            count = await self.memory.forget(scope=record.scope, id=id)
            if count == 0:
                return f"nothing to forget: {id} is already no longer believed ({record.invalidation_reason})"
            return f"forgot {id}"

    @_tool(_CHANGE)
    async def correct(
        self,
        fact_id: Annotated[str, Field(description="The id of the wrong fact, as shown by recall, facts or history.")],
        corrected_text: Annotated[str, Field(description="The right statement, one self-contained sentence.")],
        object: Annotated[str | None, Field(description="The right value, if the fact has subject/predicate/object.")] = None,
        reason: Annotated[str | None, Field(description="Why it was wrong, briefly (optional).")] = None,
    ) -> str:
        """Fix a fact that was recorded wrong (the user says it was never true): the old
        record stops being believed (reason 'corrected') and the correction replaces it.
        If the world changed instead (someone moved), use remember with the new value."""
        with _as_tool_errors():
            record = await self.owned(fact_id, "fact_id")
            if record.kind != "fact":
                raise ToolError(f"fact_id: {fact_id!r} is a {record.kind}, not a fact; only facts can be corrected")
            fixed = await self.memory.correct(fact_id, corrected_text, object=object, reason=reason, user_id=self.user_id)
            return f"corrected {fact_id}\n" + record_line(fixed)

    @_tool(_READ)
    async def history(
        self,
        subject: Annotated[str, Field(description="The subject key (e.g. 'alice').")],
        predicate: Annotated[str | None, Field(description="Only this attribute (e.g. 'lives_in'); omit for all.")] = None,
        scope: SubScope = None,
    ) -> str:
        """Every version of the facts about a subject, oldest valid time first, including
        superseded, corrected and forgotten ones with why and by what they were replaced."""
        with _as_tool_errors():
            found = await self.memory.history(subject=subject, predicate=predicate, scope=self.bounds.scope(scope))
            return record_lines(found, f"no history for {subject}")

    @_tool(_READ)
    async def facts(
        self,
        subject: Annotated[str | None, Field(description="Only facts about this subject key.")] = None,
        predicate: Annotated[str | None, Field(description="Only this attribute.")] = None,
        as_of: AsOf = None,
        valid_at: ValidAt = None,
        scope: SubScope = None,
    ) -> str:
        """List the facts currently believed and true (or as believed at as_of and true at
        valid_at), optionally about one subject and attribute."""
        with _as_tool_errors():
            found = await self.memory.facts(scope=self.bounds.scope(scope), subject=subject, predicate=predicate,
                                            as_of=as_of, valid_at=valid_at)
            return record_lines(found, "no facts")

    @_tool(_ADD)
    async def add_episode(
        self,
        content: Annotated[str, Field(description="What was said or happened, verbatim or close to it.")],
        role: Annotated[Role, Field(description="Who produced it.")] = "user",
        occurred_at: Annotated[datetime | None, Field(description="When it happened, ISO 8601 with a UTC offset; omit for now.")] = None,
        session_id: Annotated[str | None, Field(description="The conversation it belongs to.")] = None,
        source: Annotated[str | None, Field(description="Where it came from (a tool name, a document).")] = None,
        scope: SubScope = None,
    ) -> str:
        """Record a raw observation (a message, a tool result, an event) as an immutable
        episode; recall finds episodes too. Returns its id."""
        with _as_tool_errors():
            episode = await self.memory.add_episode(content, scope=self.bounds.scope(scope), role=role, occurred_at=occurred_at,
                                                    session_id=session_id, source=source, user_id=self.user_id)
            return "stored\n" + record_line(episode)

    @_tool(_READ)
    async def suggest_procedures(
        self,
        task: Annotated[str, Field(description="The task at hand, in plain words.")],
        k: Annotated[int, Field(ge=1, le=20, description="How many procedures at most.")] = 3,
        scope: SubScope = None,
    ) -> str:
        """Standing rules and proven workflows that fit a task, best first, with their steps
        and success rate. Follow them unless the user says otherwise."""
        with _as_tool_errors():
            found = await self.memory.suggest_procedures(task, scope=self.bounds.scope(scope), k=k)
            if not found:
                return "no procedure fits"
            return "\n".join(f"{record_line(s.procedure, score=s.score, quarantined=s.quarantined)} | "
                             f"success rate {s.success_rate:.2f}" for s in found)


instrument("graphmem.mcp", names=list(_ANNOTATIONS))(_Tools)  # each tool call is a span


def tools(memory: AsyncMemory, bounds: Bounds, user_id: str | None) -> list[Tool]:
    """The server's tools over ``memory``, confined to ``bounds``, writing for ``user_id``."""
    bound = _Tools(memory, bounds, user_id)
    return [_strict_tool(getattr(bound, name), annotations) for name, annotations in _ANNOTATIONS.items()]
