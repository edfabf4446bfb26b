"""The ``graphmem`` command line: ``graphmem neo4j start|status|stop``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import _commands, _launcher
from ._errors import GraphMemError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphmem", description="graphmem command line")
    commands = parser.add_subparsers(dest="command", required=True)
    neo4j = commands.add_parser("neo4j", help="run a local Neo4j without Docker (embedded, Bolt on 127.0.0.1)")
    actions = neo4j.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="start Neo4j in the background and print NEO4J_* lines to eval")
    start.add_argument("--port", type=int, default=None, help="Bolt port (default: GRAPHMEM_NEO4J_PORT or a free one)")
    start.add_argument("--data", type=Path, default=None, help="data folder to keep (default: a temporary one, removed on stop)")
    start.add_argument("--timeout", type=float, default=None, help="seconds to wait for Bolt (default 180)")
    actions.add_parser("status", help="print the NEO4J_* lines of the running Neo4j, exit 1 if none")
    actions.add_parser("stop", help="stop the Neo4j started from this folder")
    commands.add_parser("demo", help="write a short story into Neo4j (NEO4J_* settings) and read it back")
    _commands.register(commands)
    return parser


def _progress(*args, **kwargs) -> None:
    print(*args, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command in _commands.NAMES:
        return _commands.run(args)
    try:
        if args.command == "demo":
            from ._demo import run

            run()
            return 0
        if args.action == "start":
            running = _launcher.status()
            if running is None:
                running = _launcher.start(port=args.port, data=args.data, timeout=args.timeout, progress=_progress)
                print(f"graphmem: Neo4j {running.version} up at {running.uri} (pid {running.pid}); "
                      f"settings in {_launcher.state_dir() / 'neo4j.env'}", file=sys.stderr)
            else:
                print(f"graphmem: Neo4j already running at {running.uri} (pid {running.pid})", file=sys.stderr)
            sys.stdout.write(running.env_lines())
            return 0
        if args.action == "status":
            running = _launcher.status()
            if running is None:
                print("graphmem: no Neo4j started from this folder is running", file=sys.stderr)
                return 1
            print(f"graphmem: Neo4j {running.version} running at {running.uri} (pid {running.pid})", file=sys.stderr)
            sys.stdout.write(running.env_lines())
            return 0
        if args.action == "stop":
            stopped = _launcher.stop()
            print("graphmem: Neo4j stopped" if stopped else "graphmem: no Neo4j was running", file=sys.stderr)
            return 0
    except GraphMemError as exc:
        print(f"graphmem: error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
