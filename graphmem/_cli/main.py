"""The ``graphmem`` command line: ``graphmem neo4j start|status|stop|reset|style``,
``graphmem demo`` and ``graphmem mcp``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .._base.embeddings import EMBEDDERS
from .._base.errors import GraphMemError
from .._server import launcher
from . import commands as _commands


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphmem", description="graphmem command line")
    commands = parser.add_subparsers(dest="command", required=True)
    neo4j = commands.add_parser("neo4j", help="run a local Neo4j without Docker (embedded, Bolt and Browser on 127.0.0.1)")
    actions = neo4j.add_subparsers(dest="action", required=True)
    start = actions.add_parser(
        "start", help="start Neo4j in the background and print lines to eval that set NEO4J_*",
        description="Start Neo4j in the background and print lines for `eval` that export NEO4J_URI, NEO4J_USER, "
                    "NEO4J_PASSWORD (and NEO4J_BROWSER_URL) by sourcing <state dir>/neo4j.env (mode 600): the "
                    "password is never printed unless --show-password. Data is kept in "
                    "<state dir>/neo4j-data (state dir: GRAPHMEM_STATE_DIR or ./.graphmem) across stop and "
                    "start, with the password it got on its first start; `graphmem neo4j reset` deletes it.")
    start.add_argument("--port", type=int, default=None, help="Bolt port (default: GRAPHMEM_NEO4J_PORT, else the last one if free, else a free one)")
    start.add_argument("--http-port", type=int, default=None, help="Browser's HTTP port (default: GRAPHMEM_NEO4J_HTTP_PORT, else the last one if free, else a free one)")
    where = start.add_mutually_exclusive_group()
    where.add_argument("--data", type=Path, default=None, help="data folder to keep (default: <state dir>/neo4j-data)")
    where.add_argument("--ephemeral", action="store_true", help="keep data in a temporary folder that stop removes (tests, benchmarks)")
    start.add_argument("--no-browser", dest="browser", action="store_false",
                       help="leave the HTTP connector off: no Neo4j Browser (it is on by default)")
    start.add_argument("--timeout", type=float, default=None,
                       help="give up when Neo4j has shown no progress (no log output, CPU or disk work) for this many "
                            "seconds; while it progresses, start waits (default: GRAPHMEM_NEO4J_START_TIMEOUT, else 180)")
    start.add_argument("--neo4j-version", default=None, metavar="VERSION",
                       help="the Neo4j version to run, e.g. 2026.08.1 (needs Java 21+) or 5.26.19 (default: "
                            "GRAPHMEM_NEO4J_VERSION, else the version the data folder last ran, else 2026.08.1 when "
                            "a Java 21+ is found, else 5.26.19)")
    _show_password(start)
    _show_password(actions.add_parser("status", help="print the lines to eval for the running Neo4j, exit 1 if none"))
    actions.add_parser("stop", help="stop the Neo4j started with this state dir (its data is kept)")
    reset = actions.add_parser("reset", help="delete the kept data folder (refused while Neo4j runs: stop it first)")
    reset.add_argument("--data", type=Path, default=None, help="the data folder to delete (default: <state dir>/neo4j-data)")
    actions.add_parser("style", help="print the one-line Browser command that applies graphmem's style (for a Neo4j this launcher did not start)")
    commands.add_parser("demo", help="write a short story into Neo4j (NEO4J_* settings) and read it back")
    _mcp_parser(commands)
    _commands.register(commands)
    return parser


def _show_password(command: argparse.ArgumentParser) -> None:
    command.add_argument("--show-password", action="store_true",
                         help="print NEO4J_URI=..., NEO4J_USER=..., NEO4J_PASSWORD=<the password> lines instead of "
                              "lines that source the private env file (the password then lands in any captured output)")


def _print_settings(running: launcher.RunningNeo4j, show_password: bool) -> None:
    """The lines to ``eval``: by default they source the 600 env file, so no password is printed."""
    text = running.env_lines() if show_password else running.eval_lines(launcher.state_dir() / "neo4j.env")
    sys.stdout.write(text)


def _mcp_parser(commands: Any) -> None:
    mcp = commands.add_parser("mcp", help="serve one tenant's memory to MCP clients (stdio; --http for streamable HTTP)",
                              description="Tenant, scope and Neo4j come from this configuration, never from a tool "
                                          "call; NEO4J_PASSWORD is read from the environment only.")
    mcp.add_argument("--tenant", help="the tenant served (default: GRAPHMEM_TENANT)")
    mcp.add_argument("--scope", help="the root scope tools may touch, e.g. acme/support/alice (default: GRAPHMEM_SCOPE)")
    mcp.add_argument("--embedder", choices=list(EMBEDDERS), default=None,
                     help="query and record embedder (default: GRAPHMEM_EMBEDDER or wordllama)")
    mcp.add_argument("--uri", help="Neo4j URI (default: NEO4J_URI)")
    mcp.add_argument("--user", help="Neo4j user (default: NEO4J_USER)")
    mcp.add_argument("--database", help="Neo4j database (default: NEO4J_DATABASE or the server's default)")
    mcp.add_argument("--user-id", help="the user every write is recorded for, so erase(user_id=...) reaches it "
                                       "(default: GRAPHMEM_MCP_USER_ID, else none)")
    mcp.add_argument("--no-setup", action="store_true", help="do not apply graphmem's schema on start")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP on 127.0.0.1 (path /mcp) instead of stdio; "
                                                         "every request needs the bearer token")
    mcp.add_argument("--port", type=int, default=8000, help="HTTP port with --http (default 8000)")
    mcp.add_argument("--token-file", help="with --http: a file (mode 600) holding the bearer token (default: "
                                          "GRAPHMEM_MCP_TOKEN, else <state dir>/mcp-token, created on first start)")
    mcp.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                     help="with --http: an Origin besides the server's own that browsers may call from, e.g. "
                          "http://127.0.0.1:3000 (repeatable; also GRAPHMEM_MCP_ALLOWED_ORIGINS, comma-separated)")


def _mcp(args: argparse.Namespace) -> int:
    try:
        from ..integrations import mcp
    except ImportError as exc:
        print(f"graphmem: error: graphmem mcp needs the mcp extra (pip install 'graphmem[mcp]'): {exc}", file=sys.stderr)
        return 2
    return mcp.main(args)


def _progress(*args: Any, **kwargs: Any) -> None:
    print(*args, file=sys.stderr)


def _state_description() -> str:
    """Which state dir this command works on, in words ("started from this folder" only
    when it is the default ./.graphmem)."""
    folder = launcher.state_dir()
    if os.environ.get("GRAPHMEM_STATE_DIR"):
        return f"state dir {folder} (GRAPHMEM_STATE_DIR)"
    return f"state dir {folder} (the default, ./.graphmem of this folder)"


def _describe(running: launcher.RunningNeo4j) -> None:
    lines = [f"graphmem: Neo4j {running.version} running at {running.uri} (pid {running.pid}), {_state_description()}"]
    if running.ephemeral:
        lines.append(f"  data:    {running.data} (temporary: removed by `graphmem neo4j stop`)")
    elif running.data:
        lines.append(f"  data:    {running.data} (kept by `graphmem neo4j stop`; `graphmem neo4j reset` deletes it)")
    if running.browser_url:
        lines.append(f"  browser: {running.browser_url} (user {running.user}, password NEO4J_PASSWORD "
                     f"in {launcher.state_dir() / 'neo4j.env'})")
    lines.append("  stop:    graphmem neo4j stop")
    print("\n".join(lines), file=sys.stderr)


def _neo4j(args: argparse.Namespace) -> int:
    if args.action == "start":
        started = launcher.status() is None
        # a running one is returned as it is (refused if a forced --neo4j-version differs from it)
        server = launcher.start(port=args.port, http_port=args.http_port, data=args.data, ephemeral=args.ephemeral,
                                 browser=args.browser, timeout=args.timeout, neo4j_version=args.neo4j_version,
                                 progress=_progress)
        print("graphmem: started." if started else "graphmem: already running, nothing started.", file=sys.stderr)
        _describe(server)
        _print_settings(server, args.show_password)
        return 0
    if args.action == "status":
        running = launcher.status()
        if running is None:
            print(f"graphmem: no Neo4j started with {_state_description()} is running", file=sys.stderr)
            pid = launcher.dead_pid()
            if pid is not None:
                print(f"  the last one (pid {pid}) ended without `graphmem neo4j stop` (killed or crashed); "
                      "`graphmem neo4j start` starts it again on the same data", file=sys.stderr)
            return 1
        _describe(running)
        _print_settings(running, args.show_password)
        return 0
    if args.action == "stop":
        running = launcher.status()
        stopped = launcher.stop()
        if stopped:
            kept = ("its temporary data was removed" if running is None or running.ephemeral
                    else f"its data stays in {running.data} (`graphmem neo4j reset` deletes it)")
            print(f"graphmem: Neo4j stopped ({_state_description()}); {kept}", file=sys.stderr)
        else:
            print(f"graphmem: no Neo4j was running with {_state_description()}", file=sys.stderr)
        return 0
    if args.action == "reset":
        deleted = launcher.reset(args.data)
        print(f"graphmem: deleted {deleted}" if deleted else "graphmem: no data folder to delete", file=sys.stderr)
        return 0
    if args.action == "style":
        from .._server.browser import style_command

        print(style_command())
        return 0
    return 2


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "mcp":
        return _mcp(args)
    if args.command in _commands.NAMES:
        return _commands.run(args)
    try:
        if args.command == "demo":
            from .demo import run

            run()
            return 0
        return _neo4j(args)
    except GraphMemError as exc:
        print(f"graphmem: error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
