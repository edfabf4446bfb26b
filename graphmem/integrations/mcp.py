"""graphmem as a Model Context Protocol server (``graphmem mcp``), on the official ``mcp``
SDK (2.x, ``pip install 'graphmem[mcp]'``).

Who may see what is decided by the server's configuration, never by a tool argument:
the tenant (one ``AsyncMemory`` serves one tenant) and the *root scope* come from
``GRAPHMEM_TENANT`` / ``GRAPHMEM_SCOPE`` or ``--tenant`` / ``--scope``; Neo4j from
``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``. A tool's optional
``scope`` argument is a path *relative to* the root (``projects/apollo`` means
``<root>/projects/apollo``); ``..``, ``.``, a leading ``/`` and empty segments are refused, so
no argument can name a sibling or a parent. Reads follow graphmem's visibility rule
(a scope sees what its ancestors hold, never a sibling's); writes (``remember``,
``add_episode``, ``correct``, ``forget``) only land on or change records at the root or
below it. An id of another tenant, of a sibling scope or of nothing at all gets the same
"no memory" error, so a model cannot probe what exists elsewhere.

Every write a tool makes (``remember``, ``add_episode``, ``correct``) carries the server's
configured user id (``GRAPHMEM_MCP_USER_ID`` / ``--user-id``), so ``erase(user_id=...)``
reaches it. An argument a tool does not declare (``tenant``, ``user_id``, a typo) is refused,
not ignored. graphmem's errors become MCP tool errors whose text starts with the field at fault
(``valid_from: ...``); results are compact text lines carrying the ids that ``correct``
and ``forget`` take back. Over HTTP a bearer token and an Origin check guard every request
(``graphmem.integrations._mcp_http``).
"""

import argparse
import asyncio
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import _validate as check
from .._async.memory import AsyncMemory
from .._errors import GraphMemError, InvalidInputError, Neo4jUnavailableError
from .._models import MemoryRecord
from .._version import __version__
from ._arguments import argument_errors

Kind = Literal["fact", "episode", "entity", "insight", "procedure"]
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


from ._mcp_http import HttpAccess, allowed_origins, resolve_token, run_http  # noqa: E402
from ._mcp_support import EMBEDDERS, ServerConfig, _Bounds, _line, _lines, _when  # noqa: E402,F401

_UNKNOWN = "not an argument of this tool (the server's configuration decides the tenant, the user and the root scope)"


class _StrictTool(Tool):
    """A tool that refuses arguments its signature does not declare (the SDK drops them
    silently) and reports bad arguments as ``Invalid arguments: <field>: <problem>``."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
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


def create_server(memory: AsyncMemory, *, scope: str, name: str = "graphmem", user_id: str | None = None) -> MCPServer:
    """An MCP server over ``memory`` (its tenant is the wall) confined to ``scope`` and below.

    The caller owns ``memory`` (opens, sets up and closes it); ``serve`` does that from a
    ``ServerConfig``. Tools: remember, recall, context, forget, correct, history, facts,
    add_episode, suggest_procedures; resources ``graphmem://facts`` (the root scope's current
    facts) and ``graphmem://facts/{+path}`` (a sub-scope's, relative to the root). ``user_id``
    is recorded on every record a tool writes (so ``erase(user_id=...)`` reaches them); tools
    refuse arguments they do not declare.
    """
    bounds = _Bounds(scope)
    check.identifier(user_id, "user_id", allow_none=True)
    tools: list[Tool] = []

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tools.append(_strict_tool(fn, annotations))
            return fn
        return register

    async def owned(id_: str, field_name: str) -> MemoryRecord:
        """The record ``id_`` if a tool may change it; the same error for missing and foreign."""
        check.identifier(id_, field_name)
        record = await memory.get(id_)
        if record is None or not (bounds.owns(record.scope) or bounds.inherits(record.scope)):
            raise ToolError(f"{field_name}: no memory {id_!r} in this memory's scope")
        if not bounds.owns(record.scope):
            raise ToolError(f"{field_name}: {id_!r} belongs to scope {record.scope!r}, above this memory's "
                            f"scope {bounds.root!r}: it can be read here, not changed")
        return record

    @tool(_ADD)
    async def remember(
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
            fact = await memory.remember(
                text, scope=bounds.scope(scope), subject=subject, predicate=predicate, object=object,
                single_valued=single_valued, valid_from=valid_from, valid_to=valid_to,
                provenance="user" if said_by_user else "extraction", importance=importance,
                tags=tags or (), session_id=session_id, user_id=user_id)
            if fact is None:
                return "not stored: the user asked to forget this earlier; store it only if they say it again themselves"
            return "remembered\n" + _line(fact)

    @tool(_READ)
    async def recall(
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
            results = await memory.recall(query, scope=bounds.scope(scope), k=k, kinds=kinds,
                                          as_of=as_of, valid_at=valid_at)
            if not results:
                return "no memories matched"
            return "\n".join(_line(r.record, score=r.score, quarantined=r.quarantined) for r in results)

    @tool(_READ)
    async def context(
        query: Annotated[str, Field(description="The task or question the context is for.")],
        max_tokens: Annotated[int, Field(ge=50, le=20000, description="Budget for the block (about 4 characters a token).")] = 1500,
        scope: SubScope = None,
    ) -> str:
        """A prompt-ready block of what memory knows that bears on the query: facts,
        insights, procedures and recent episodes in sections, each line with its source and
        validity. For reading only; use recall when you need ids."""
        with _as_tool_errors():
            block = await memory.context(query, scope=bounds.scope(scope), max_tokens=max_tokens)
            return block or "memory holds nothing relevant"

    @tool(_CHANGE)
    async def forget(
        id: Annotated[str, Field(description="The id of the memory to forget, as shown by recall, facts or history.")],
    ) -> str:
        """Forget one memory because the user asked to: it stops being believed and is kept
        only as a tombstone, so it is never restated from later conversations."""
        with _as_tool_errors():
            record = await owned(id, "id")
            count = await memory.forget(scope=record.scope, id=id)
            if count == 0:
                return f"nothing to forget: {id} is already no longer believed ({record.invalidation_reason})"
            return f"forgot {id}"

    @tool(_CHANGE)
    async def correct(
        fact_id: Annotated[str, Field(description="The id of the wrong fact, as shown by recall, facts or history.")],
        corrected_text: Annotated[str, Field(description="The right statement, one self-contained sentence.")],
        object: Annotated[str | None, Field(description="The right value, if the fact has subject/predicate/object.")] = None,
        reason: Annotated[str | None, Field(description="Why it was wrong, briefly (optional).")] = None,
    ) -> str:
        """Fix a fact that was recorded wrong (the user says it was never true): the old
        record stops being believed (reason 'corrected') and the correction replaces it.
        If the world changed instead (someone moved), use remember with the new value."""
        with _as_tool_errors():
            record = await owned(fact_id, "fact_id")
            if record.kind != "fact":
                raise ToolError(f"fact_id: {fact_id!r} is a {record.kind}, not a fact; only facts can be corrected")
            fixed = await memory.correct(fact_id, corrected_text, object=object, reason=reason, user_id=user_id)
            return f"corrected {fact_id}\n" + _line(fixed)

    @tool(_READ)
    async def history(
        subject: Annotated[str, Field(description="The subject key (e.g. 'alice').")],
        predicate: Annotated[str | None, Field(description="Only this attribute (e.g. 'lives_in'); omit for all.")] = None,
        scope: SubScope = None,
    ) -> str:
        """Every version of the facts about a subject, oldest valid time first, including
        superseded, corrected and forgotten ones with why and by what they were replaced."""
        with _as_tool_errors():
            found = await memory.history(subject=subject, predicate=predicate, scope=bounds.scope(scope))
            return _lines(found, f"no history for {subject}")

    @tool(_READ)
    async def facts(
        subject: Annotated[str | None, Field(description="Only facts about this subject key.")] = None,
        predicate: Annotated[str | None, Field(description="Only this attribute.")] = None,
        as_of: AsOf = None,
        valid_at: ValidAt = None,
        scope: SubScope = None,
    ) -> str:
        """List the facts currently believed and true (or as believed at as_of and true at
        valid_at), optionally about one subject and attribute."""
        with _as_tool_errors():
            found = await memory.facts(scope=bounds.scope(scope), subject=subject, predicate=predicate,
                                       as_of=as_of, valid_at=valid_at)
            return _lines(found, "no facts")

    @tool(_ADD)
    async def add_episode(
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
            episode = await memory.add_episode(content, scope=bounds.scope(scope), role=role, occurred_at=occurred_at,
                                               session_id=session_id, source=source, user_id=user_id)
            return "stored\n" + _line(episode)

    @tool(_READ)
    async def suggest_procedures(
        task: Annotated[str, Field(description="The task at hand, in plain words.")],
        k: Annotated[int, Field(ge=1, le=20, description="How many procedures at most.")] = 3,
        scope: SubScope = None,
    ) -> str:
        """Standing rules and proven workflows that fit a task, best first, with their steps
        and success rate. Follow them unless the user says otherwise."""
        with _as_tool_errors():
            found = await memory.suggest_procedures(task, scope=bounds.scope(scope), k=k)
            if not found:
                return "no procedure fits"
            return "\n".join(f"{_line(s.procedure, score=s.score, quarantined=s.quarantined)} | "
                             f"success rate {s.success_rate:.2f}" for s in found)

    server = MCPServer(
        name, version=__version__, tools=tools,
        instructions=(
            f"Long-term memory (graphmem) for scope '{bounds.root}'. Call recall or context before "
            "answering questions about the user or earlier work; call remember for durable facts the "
            "user states; pass the ids shown in results to correct or forget. Scopes you give are "
            "relative to this memory's scope."),
    )

    async def scope_facts(path: str) -> str:
        try:
            found = await memory.facts(scope=path)
        except InvalidInputError as exc:
            raise ResourceError(f"{exc.field}: {exc.message}") from exc
        return _lines(found, "no facts")

    @server.resource("graphmem://facts", name="facts", mime_type="text/plain",
                     description=f"The facts believed and true now in scope '{bounds.root}'.")
    async def root_facts() -> str:
        return await scope_facts(bounds.root)

    @server.resource("graphmem://facts/{+path}", name="scope_facts", mime_type="text/plain",
                     description=f"The facts believed and true now in a sub-scope of '{bounds.root}' "
                                 "(the path is relative to it).")
    async def sub_facts(path: str) -> str:
        try:
            absolute = bounds.scope(path)
        except InvalidInputError as exc:
            raise ResourceError(f"{exc.field}: {exc.message}") from exc
        return await scope_facts(absolute)

    return server


async def serve(config: ServerConfig, *, http: bool = False, port: int = 8000, access: HttpAccess | None = None) -> None:
    """Open the memory (and apply the schema unless ``config.setup`` is False), then serve
    over stdio, or over streamable HTTP on 127.0.0.1:``port`` at ``/mcp`` until stopped.

    Over HTTP every request must carry ``access``'s bearer token and come from an allowed
    Origin (``http_access`` builds one from the environment, generating a token on first use)."""
    if http and access is None:
        access = http_access(port)
    async with config.open_memory() as memory:
        await memory.verify_connectivity()
        if config.setup:
            await memory.setup()
        server = create_server(memory, scope=config.scope, user_id=config.user_id)
        if access is not None and http:
            await run_http(server, port=port, access=access)
        else:
            await server.run_stdio_async()


def http_access(port: int, *, token_file: str | None = None, origins: Sequence[str] = ()) -> HttpAccess:
    """Who may call the HTTP transport on ``port``: the bearer token from ``token_file``, else
    ``GRAPHMEM_MCP_TOKEN``, else ``<state dir>/mcp-token`` (created on first use, mode 600), and
    the server's own origins plus ``origins`` and ``GRAPHMEM_MCP_ALLOWED_ORIGINS``."""
    from .._launcher import state_dir

    allowed = allowed_origins(port, origins)  # refused before a token file could be created
    token, source = resolve_token(Path(token_file) if token_file else None, state_dir())
    return HttpAccess(token=token, origins=allowed, token_source=source)


def main(args: argparse.Namespace) -> int:
    """``graphmem mcp``: the command line's entry (flags parsed in ``graphmem._cli``)."""
    try:
        config = ServerConfig.from_env(
            tenant=args.tenant, scope=args.scope, embedder=args.embedder, uri=args.uri,
            user=args.user, database=args.database, user_id=args.user_id,
            **({"setup": False} if args.no_setup else {}))  # type: ignore[arg-type]
        access = http_access(args.port, token_file=args.token_file, origins=args.allow_origin) if args.http else None
        asyncio.run(serve(config, http=args.http, port=args.port, access=access))
    except GraphMemError as exc:
        print(f"graphmem: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


__all__ = ["EMBEDDERS", "HttpAccess", "ServerConfig", "create_server", "http_access", "main", "serve"]
