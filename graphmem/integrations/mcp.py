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
from collections.abc import Sequence
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from .._async.memory import AsyncMemory
from .._base import validate as check
from .._base.embeddings import EMBEDDERS
from .._base.errors import GraphMemError, InvalidInputError
from .._base.public import publish
from .._version import __version__
from ._mcp_http import HttpAccess, allowed_origins, resolve_token, run_http
from ._mcp_support import Bounds, ServerConfig, record_lines
from ._mcp_tools import tools


def _add_resources(server: MCPServer, memory: AsyncMemory, bounds: Bounds) -> None:
    """``graphmem://facts`` (the root scope's current facts) and ``graphmem://facts/{+path}``
    (a sub-scope's, relative to the root)."""

    async def scope_facts(path: str) -> str:
        try:
            found = await memory.facts(scope=path)
        except InvalidInputError as exc:
            raise ResourceError(f"{exc.field}: {exc.message}") from exc
        return record_lines(found, "no facts")

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


def create_server(memory: AsyncMemory, *, scope: str, name: str = "graphmem", user_id: str | None = None) -> MCPServer:
    """An MCP server over ``memory`` (its tenant is the wall) confined to ``scope`` and below.

    The caller owns ``memory`` (opens, sets up and closes it); ``serve`` does that from a
    ``ServerConfig``. Tools (``graphmem.integrations._mcp_tools``): remember, recall, context,
    forget, correct, history, facts, add_episode, suggest_procedures; resources ``graphmem://facts`` (the root scope's current
    facts) and ``graphmem://facts/{+path}`` (a sub-scope's, relative to the root). ``user_id``
    is recorded on every record a tool writes (so ``erase(user_id=...)`` reaches them); tools
    refuse arguments they do not declare.
    """
    bounds = Bounds(scope)
    check.identifier(user_id, "user_id", allow_none=True)
    server = MCPServer(
        name, version=__version__, tools=tools(memory, bounds, user_id),
        instructions=(
            f"Long-term memory (graphmem) for scope '{bounds.root}'. Call recall or context before "
            "answering questions about the user or earlier work; call remember for durable facts the "
            "user states; pass the ids shown in results to correct or forget. Scopes you give are "
            "relative to this memory's scope."),
    )
    _add_resources(server, memory, bounds)
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
    from .._server.launcher import state_dir

    allowed = allowed_origins(port, origins)  # refused before a token file could be created
    token, source = resolve_token(Path(token_file) if token_file else None, state_dir())
    return HttpAccess(token=token, origins=allowed, token_source=source)


def main(args: argparse.Namespace) -> int:
    """``graphmem mcp``: the command line's entry (flags parsed in ``graphmem._cli.main``)."""
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

publish(__name__, globals())
