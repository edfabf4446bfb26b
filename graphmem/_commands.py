"""The memory commands of the ``graphmem`` command line: a thin layer over ``Memory``.

``register(subparsers)`` adds them to the ``graphmem`` parser and ``run(args)`` carries
one out. Tables for people by default, ``--json`` for scripts. Exit codes (docs/cli.md):

    0  done
    1  nothing found (no results, nothing forgotten or erased, an empty tenant)
    2  bad input or usage (argparse errors too, bad settings), or an erase that was not confirmed
    3  Neo4j unavailable (unreachable, or the credentials were refused)
    4  any other graphmem error (a conflicting import, a schema mismatch)

Connection settings come from ``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD`` and
``NEO4J_DATABASE``; ``--tenant`` defaults to ``GRAPHMEM_TENANT`` (else ``default``),
``--scope`` to ``GRAPHMEM_SCOPE`` and ``--embedder`` to ``GRAPHMEM_EMBEDDER`` (else
``wordllama``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._cli_io import (
    Usage,
    _emit,
    _fact_row,
    _instant,
    _json_lines,
    _open,
    _output,
    _Progress,
    _read_text,
    _say,
    _scope,
    _sessions,
    _short,
    _table,
)
from ._erase import EraseReport
from ._errors import ConfigurationError, GraphMemError, InvalidInputError, Neo4jUnavailableError, NotFoundError

OK, EMPTY, USAGE, UNAVAILABLE, FAILED = 0, 1, 2, 3, 4
NAMES = ("setup", "ingest", "recall", "context", "facts", "history", "forget", "erase", "export", "import",
         "stats", "graph")
EMBEDDERS = ("wordllama", "hashing", "none")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--tenant", default=os.environ.get("GRAPHMEM_TENANT") or "default",
                        help="tenant (default: GRAPHMEM_TENANT or 'default')")
    common.add_argument("--scope", default=os.environ.get("GRAPHMEM_SCOPE") or None,
                        help="scope path such as acme/support/ann (default: GRAPHMEM_SCOPE)")
    common.add_argument("--json", action="store_true", help="print JSON for scripts instead of a table")
    common.add_argument("--embedder", choices=EMBEDDERS, default=os.environ.get("GRAPHMEM_EMBEDDER") or "wordllama",
                        help="embedder matching the vector index (default: GRAPHMEM_EMBEDDER or wordllama)")
    return common


def _times(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--as-of", type=_instant, default=None, help="transaction time: as believed then (ISO-8601)")
    parser.add_argument("--valid-at", type=_instant, default=None, help="valid time: true then (ISO-8601)")


def register(subparsers: Any) -> None:
    """Add the memory commands to ``graphmem``'s subparsers."""
    c = _common()
    add = subparsers.add_parser
    add("setup", parents=[c], help="create graphmem's constraints and indexes and wait for them")
    p = add("ingest", parents=[c], help="store chat transcripts (JSONL or JSON) as episodes, with progress")
    p.add_argument("file", help="transcript file, or - for standard input (format in docs/cli.md)")
    p.add_argument("--user-id", default=None)
    p.add_argument("--agent-id", default=None)
    p = add("recall", parents=[c], help="the memories most relevant to a query, ranked")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--kinds", default=None, help="comma-separated kinds, e.g. fact,insight")
    p.add_argument("--purpose", default="inform", choices=("inform", "act"))
    _times(p)
    p = add("context", parents=[c], help="a prompt-ready context block for a query")
    p.add_argument("query")
    p.add_argument("--max-tokens", type=int, default=2000)
    _times(p)
    p = add("facts", parents=[c], help="facts believed and true at a time (default now)")
    p.add_argument("--subject", default=None)
    p.add_argument("--predicate", default=None)
    p.add_argument("--all", action="store_true", help="include invalidated facts")
    _times(p)
    p = add("history", parents=[c], help="every version of a subject's facts, with what superseded them")
    p.add_argument("subject")
    p.add_argument("--predicate", default=None)
    p = add("forget", parents=[c], help="forget memories (kept as tombstones) matching every selector given")
    for name in ("--id", "--text", "--subject", "--predicate"):
        p.add_argument(name, default=None)
    p = add("erase", parents=[c], help="hard-delete memories: by id, user, scope, or the whole tenant")
    p.add_argument("--id", default=None)
    p.add_argument("--user-id", default=None)
    p.add_argument("--yes", action="store_true", help="do not ask (required when standard input is not a terminal)")
    p = add("export", parents=[c], help="write the tenant (or --scope subtree) as JSON lines: nodes, edges, timestamps")
    p.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    p = add("import", parents=[c], help="load an export into this tenant (ids and timestamps kept)")
    p.add_argument("file", help="export file, or - for standard input")
    p.add_argument("--batch-size", type=int, default=500, help="nodes or edges per transaction (default 500)")
    add("stats", parents=[c], help="memories per scope and kind: total, believed, invalidated, quarantined")
    p = add("graph", parents=[c], help="the memory graph of a scope as GraphML or node-link JSON")
    p.add_argument("--format", choices=("graphml", "json"), default="graphml")
    p.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    p.add_argument("--kinds", default=None, help="comma-separated kinds")
    p.add_argument("--all", action="store_true", help="include invalidated records")
    _times(p)


def run(args: argparse.Namespace) -> int:
    """Carry out one memory command; the exit code."""
    try:
        with _open(args) as memory:
            return _COMMANDS[args.command](memory, args)
    except Usage as exc:
        _say(f"error: {exc}")
        return USAGE
    except (InvalidInputError, ConfigurationError) as exc:
        _say(f"error: {exc}")
        return USAGE
    except NotFoundError as exc:
        _say(f"not found: {exc}")
        return EMPTY
    except Neo4jUnavailableError as exc:
        _say(f"Neo4j unavailable: {exc}")
        return UNAVAILABLE
    except GraphMemError as exc:
        _say(f"error: {exc}")
        return FAILED


# -- the commands ----------------------------------------------------------------------


def _setup(memory: Any, args: argparse.Namespace) -> int:
    memory.setup()
    info = memory.verify_connectivity()
    _emit(args, {"ok": True, **info}, lambda: f"schema ready on {info['name']} {info['version']} ({info['edition']})")
    return OK


def _ingest(memory: Any, args: argparse.Namespace) -> int:
    sessions = list(_sessions(_read_text(args.file), args.scope))
    if not sessions:
        raise Usage(f"{args.file}: no messages")
    total = sum(len(s["messages"]) for s in sessions)
    progress = _Progress("ingest", total, "messages")
    episodes = facts = 0
    for session in sessions:
        result = memory.ingest(session["messages"], scope=session["scope"], llm=None, session_id=session["session_id"],
                               user_id=args.user_id, agent_id=args.agent_id)
        episodes += len(result.episodes)
        facts += len(result.facts)
        progress.advance(len(session["messages"]))
    progress.close()
    scopes = sorted({s["scope"] for s in sessions})
    summary = {"sessions": len(sessions), "messages": total, "episodes": episodes, "facts": facts, "scopes": scopes}
    _emit(args, summary, lambda: f"ingested {total} messages in {len(sessions)} sessions as {episodes} episodes "
                                 f"into {', '.join(scopes)}")
    return OK


def _recall(memory: Any, args: argparse.Namespace) -> int:
    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    results = memory.recall(args.query, scope=_scope(args), k=args.k, kinds=kinds, purpose=args.purpose,
                            as_of=args.as_of, valid_at=args.valid_at)
    rows = [{"rank": i, "score": round(r.score, 4), "kind": r.record.kind, "id": r.record.id, "text": r.record.text,
             "quarantined": r.quarantined} for i, r in enumerate(results, 1)]
    _emit(args, [r.model_dump(mode="json") for r in results],
          lambda: _table(rows, ["rank", "score", "kind", "id", "text"]))
    return OK if results else EMPTY


def _context(memory: Any, args: argparse.Namespace) -> int:
    text = memory.context(args.query, scope=_scope(args), max_tokens=args.max_tokens, as_of=args.as_of,
                          valid_at=args.valid_at)
    _emit(args, {"context": text}, lambda: text)
    return OK if text.strip() else EMPTY


def _facts(memory: Any, args: argparse.Namespace) -> int:
    facts = memory.facts(scope=_scope(args), subject=args.subject, predicate=args.predicate, as_of=args.as_of,
                         valid_at=args.valid_at, include_invalidated=args.all)
    _emit(args, [f.model_dump(mode="json") for f in facts],
          lambda: _table([_fact_row(f) for f in facts],
                         ["id", "subject", "predicate", "object", "valid_from", "valid_to", "text"]))
    return OK if facts else EMPTY


def _history(memory: Any, args: argparse.Namespace) -> int:
    facts = memory.history(subject=args.subject, predicate=args.predicate, scope=_scope(args))
    rows = [dict(_fact_row(f), created_at=_short(f.created_at), invalidated=f.invalidation_reason or "",
                 superseded_by=", ".join(f"{s.by} ({s.reason})" for s in f.superseded_by)) for f in facts]
    _emit(args, [f.model_dump(mode="json") for f in facts],
          lambda: _table(rows, ["id", "predicate", "object", "valid_from", "valid_to", "created_at", "invalidated",
                                "superseded_by", "text"]))
    return OK if facts else EMPTY


def _forget(memory: Any, args: argparse.Namespace) -> int:
    n = memory.forget(scope=_scope(args), id=args.id, text=args.text, subject=args.subject, predicate=args.predicate)
    _emit(args, {"forgotten": n}, lambda: f"forgot {n} memories (kept as tombstones)")
    return OK if n else EMPTY


def _erase(memory: Any, args: argparse.Namespace) -> int:
    selectors = {"id": args.id, "user_id": args.user_id, "scope": args.scope}
    what = ", ".join(f"{k} {v!r}" for k, v in selectors.items() if v is not None) or "everything"
    target = f"{what} in tenant {args.tenant!r}"
    if not args.yes:
        if not sys.stdin.isatty():
            raise Usage(f"erase deletes {target} for good: pass --yes (standard input is not a terminal)")
        answer = input(f"graphmem: delete {target} for good? type 'yes' to confirm: ")
        if answer.strip().lower() != "yes":
            raise Usage("erase not confirmed; nothing was deleted")
    if any(v is not None for v in selectors.values()):
        report = memory.erase(**selectors)
    else:  # the whole tenant: every top-level scope with what lies below it
        report = sum((memory.erase(scope=s["path"]) for s in memory.scopes() if s["parent"] is None), EraseReport())
    kinds = report.by_kind
    listed = ", ".join(f"{kind}: {n}" for kind, n in kinds.items())
    _emit(args, {"erased": report.total, "kinds": kinds},
          lambda: f"erased {report.total} memories ({target})" + (f": {listed}" if listed else ""))
    return OK if kinds else EMPTY


def _export(memory: Any, args: argparse.Namespace) -> int:
    counts = {"scope": 0, "node": 0, "edge": 0}
    with _output(args.output) as out:
        for record in memory.export_records(scope=args.scope):
            counts[record["record"]] = counts.get(record["record"], 0) + 1
            out.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
    _say(f"exported {counts['node']} memories, {counts['edge']} edges and {counts['scope']} scopes "
         f"of tenant {args.tenant!r}" + ("" if args.output == "-" else f" to {args.output}"))
    return OK if counts["node"] else EMPTY


def _import(memory: Any, args: argparse.Namespace) -> int:
    counts = memory.import_records(_json_lines(_read_text(args.file)), batch_size=args.batch_size)
    _emit(args, counts, lambda: f"imported {counts['nodes']} memories, {counts['edges']} edges and "
                                f"{counts['scopes']} scopes into tenant {args.tenant!r}")
    return OK if counts["nodes"] else EMPTY


def _stats(memory: Any, args: argparse.Namespace) -> int:
    rows = memory.counts(scope=args.scope)
    _emit(args, rows, lambda: _table(rows, ["scope", "kind", "total", "believed", "invalidated", "quarantined"]))
    return OK if rows else EMPTY


def _graph(memory: Any, args: argparse.Namespace) -> int:
    from ._graph import to_graphml, to_json

    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    graph = memory.graph(scope=_scope(args), as_of=args.as_of, valid_at=args.valid_at, kinds=kinds,
                         include_invalidated=args.all)
    if args.format == "json":
        with _output(args.output) as out:
            out.write(to_json(graph) + "\n")
    elif args.output == "-":
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            sys.stdout.write(to_graphml(graph, Path(folder) / "graph.graphml").read_text(encoding="utf-8"))
    else:
        to_graphml(graph, args.output)
    _say(f"graph of {args.scope!r}: {graph.number_of_nodes()} memories, {graph.number_of_edges()} edges")
    return OK if graph.number_of_nodes() else EMPTY


_COMMANDS: dict[str, Callable[[Any, argparse.Namespace], int]] = {
    "setup": _setup, "ingest": _ingest, "recall": _recall, "context": _context, "facts": _facts,
    "history": _history, "forget": _forget, "erase": _erase, "export": _export, "import": _import,
    "stats": _stats, "graph": _graph,
}


# -- helpers ---------------------------------------------------------------------------


































