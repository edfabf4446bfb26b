"""The memory commands of the ``graphmem`` command line: a thin layer over ``Memory``.

``register(subparsers)`` adds them to the ``graphmem`` parser and ``run(args)`` carries
one out. Tables for people by default, ``--json`` for scripts. Exit codes (docs/cli.md):

    0  done
    1  nothing found (no results, nothing forgotten or erased, no such tenant)
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
import os
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._base import scopes as _scopes
from .._base.embeddings import EMBEDDERS
from .._base.errors import ConfigurationError, GraphMemError, InvalidInputError, Neo4jUnavailableError, NotFoundError
from .._base.models import Provenance
from .._learning import ingest as _plan
from .._memory.erase import EraseReport
from . import operations
from .console import (
    NoSuchTenant,
    Progress,
    Usage,
    emit,
    export_records,
    fact_row,
    instant,
    json_text,
    located,
    open_memory,
    output,
    read_text,
    required_scope,
    say,
    short,
    table,
    transcript_sessions,
)

OK, EMPTY, USAGE, UNAVAILABLE, FAILED = 0, 1, 2, 3, 4
NAMES = ("setup", "reembed", "remember", "ingest", "recall", "context", "facts", "history", "forget", "erase", "export",
         "import", "stats", "graph", "tenants")
# commands that read a tenant or change what it holds: an unknown tenant is named as such
READS = ("recall", "context", "facts", "history", "forget", "erase", "export", "stats", "graph")
SCOPED = ("recall", "context", "facts", "history", "forget", "graph")


def _common(scope_from_env: bool = True) -> argparse.ArgumentParser:
    """The options every tenant command takes. ``scope_from_env=False`` (erase): what to
    delete is always named on the command line, never taken from GRAPHMEM_SCOPE."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--tenant", default=os.environ.get("GRAPHMEM_TENANT") or "default",
                        help="tenant (default: GRAPHMEM_TENANT or 'default')")
    common.add_argument("--scope", default=(os.environ.get("GRAPHMEM_SCOPE") or None) if scope_from_env else None,
                        help="scope path such as acme/support/ann "
                             + ("(default: GRAPHMEM_SCOPE)" if scope_from_env else "(never GRAPHMEM_SCOPE)"))
    common.add_argument("--json", action="store_true", help="print JSON for scripts instead of a table")
    common.add_argument("--embedder", choices=EMBEDDERS, default=os.environ.get("GRAPHMEM_EMBEDDER") or "wordllama",
                        help="embedder matching the vector index (default: GRAPHMEM_EMBEDDER or wordllama)")
    return common


def _times(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--as-of", type=instant, default=None, help="transaction time: as believed then (ISO-8601)")
    parser.add_argument("--valid-at", type=instant, default=None, help="valid time: true then (ISO-8601)")


def register(subparsers: Any) -> None:
    """Add the memory commands to ``graphmem``'s subparsers."""
    c = _common()
    add = subparsers.add_parser
    operations.register(add, c)
    p = add("remember", parents=[c], help="store one fact; a single-valued one replaces the current value")
    p.add_argument("text", help="the statement, e.g. 'Ann lives in Paris'")
    for name in ("--subject", "--predicate", "--object", "--sensitivity", "--user-id", "--agent-id", "--session-id",
                 "--id"):
        p.add_argument(name, default=None)
    p.add_argument("--valid-from", type=instant, default=None, help="when it became true (ISO-8601)")
    p.add_argument("--valid-to", type=instant, default=None, help="when it stopped being true (ISO-8601)")
    p.add_argument("--single-valued", action=argparse.BooleanOptionalAction, default=None,
                   help="whether a new value replaces the old (default: by predicate, e.g. lives_in is)")
    p.add_argument("--provenance", choices=[v.value for v in Provenance], default=Provenance.MANUAL.value)
    p.add_argument("--importance", type=float, default=None, help="0 to 1")
    p.add_argument("--tags", default=None, help="comma-separated tags")
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
    p = add("erase", parents=[_common(scope_from_env=False)], help="hard-delete memories: by id, user, session, scope, or the whole tenant with --all")
    p.add_argument("--id", default=None)
    p.add_argument("--user-id", default=None)
    p.add_argument("--session-id", default=None, help="everything written in that conversation")
    p.add_argument("--all", action="store_true", help="the whole tenant (never implied: a selector or --all is required)")
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
    add("tenants", parents=[c], help="every tenant in the database, with its number of memories and scopes")


def run(args: argparse.Namespace) -> int:
    """Carry out one memory command; the exit code."""
    try:
        with open_memory(args) as memory:
            if args.command in READS:
                _check_reading(memory, args)
            return _COMMANDS[args.command](memory, args)
    except Usage as exc:
        say(f"error: {exc}")
        return USAGE
    except (InvalidInputError, ConfigurationError) as exc:
        say(f"error: {exc}")
        return USAGE
    except NotFoundError as exc:
        say(f"not found: {exc}")
        return EMPTY
    except NoSuchTenant as exc:
        say(str(exc))
        return EMPTY
    except Neo4jUnavailableError as exc:
        say(f"Neo4j unavailable: {exc}")
        return UNAVAILABLE
    except GraphMemError as exc:
        say(f"error: {exc}")
        return FAILED


def _check_reading(memory: Any, args: argparse.Namespace) -> None:
    """Before a read: the usage checks first (a scope where one is needed, what an erase
    deletes), then whether the tenant exists at all."""
    if args.command in SCOPED:
        _scopes.check_path(required_scope(args))
    elif args.scope is not None:
        _scopes.check_path(args.scope)
    if args.command == "erase":
        chosen = [f"--{k.replace('_', '-')}" for k in ("id", "user_id", "session_id", "scope") if getattr(args, k) is not None]
        if args.all and chosen:
            raise Usage(f"--all erases the whole tenant: give it without {', '.join(chosen)}")
        if not args.all and not chosen:
            raise Usage("erase needs what to delete: --id, --user-id, --session-id, --scope, or --all for the whole tenant; "
                        "nothing was deleted")
    if not memory.scopes():  # every memory lives in a scope: no scope, no tenant
        raise NoSuchTenant(f"no such tenant {args.tenant!r}: nothing was stored in it, or all of it was erased "
                           f"(`graphmem tenants` lists the tenants)")


# -- the commands ----------------------------------------------------------------------


def _remember(memory: Any, args: argparse.Namespace) -> int:
    tags = [] if args.tags is None else [t.strip() for t in args.tags.split(",") if t.strip()]
    started = datetime.now(timezone.utc)
    fact = memory.remember(
        args.text, scope=required_scope(args), subject=args.subject, predicate=args.predicate, object=args.object,
        single_valued=args.single_valued, valid_from=args.valid_from, valid_to=args.valid_to,
        provenance=args.provenance, importance=args.importance, sensitivity=args.sensitivity, tags=tags,
        user_id=args.user_id, agent_id=args.agent_id, session_id=args.session_id, id=args.id)
    if fact is None:
        say("not stored: it restates what was forgotten, and an automatic provenance never brings that back "
            "(--provenance user or manual does)")
        return EMPTY
    replaced = [] if fact.subject is None or fact.predicate is None else [
        f for f in memory.history(subject=fact.subject, predicate=fact.predicate, scope=fact.scope)
        if any(s.by == fact.id for s in f.superseded_by)]
    data = dict(fact.model_dump(mode="json"), supersedes=[f.id for f in replaced])

    def human() -> str:
        if fact.created_at < started:
            return f"already remembered: {fact.id} ({fact.text}), nothing written"
        lines = [f"remembered {fact.id} in {fact.scope}: {fact.text}"]
        lines += [f"  replaces {f.id} ({f.object or f.text}): valid until {short(f.valid_to) or 'now'}" for f in replaced]
        return "\n".join(lines)

    emit(args, data, human)
    return OK


def _ingest(memory: Any, args: argparse.Namespace) -> int:
    try:
        sessions = list(transcript_sessions(read_text(args.file), args.scope))
    except Usage as exc:
        raise Usage(f"{args.file}: {exc}") from exc
    if not sessions:
        raise Usage(f"{args.file}: no messages")
    now = datetime.now(timezone.utc)
    for session in sessions:  # every session is checked before the first is written: bad input writes nothing
        try:
            _scopes.check_path(session["scope"])
            _plan.messages(session["messages"], None, now)
        except InvalidInputError as exc:
            raise (located(exc, session["where"], "messages", args.file) or exc) from exc
    total = sum(len(s["messages"]) for s in sessions)
    progress = Progress("ingest", total, "messages")
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
    emit(args, summary, lambda: f"ingested {total} messages in {len(sessions)} sessions as {episodes} episodes "
                                f"into {', '.join(scopes)}")
    return OK


def _recall(memory: Any, args: argparse.Namespace) -> int:
    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    results = memory.recall(args.query, scope=required_scope(args), k=args.k, kinds=kinds, purpose=args.purpose,
                            as_of=args.as_of, valid_at=args.valid_at)
    rows = [{"rank": i, "score": round(r.score, 4), "kind": r.record.kind, "id": r.record.id, "text": r.record.text,
             "quarantined": r.quarantined} for i, r in enumerate(results, 1)]
    emit(args, [r.model_dump(mode="json") for r in results],
         lambda: table(rows, ["rank", "score", "kind", "id", "text"]))
    return OK if results else EMPTY


def _context(memory: Any, args: argparse.Namespace) -> int:
    text = memory.context(args.query, scope=required_scope(args), max_tokens=args.max_tokens, as_of=args.as_of,
                          valid_at=args.valid_at)
    emit(args, {"context": text}, lambda: text)
    return OK if text.strip() else EMPTY


def _facts(memory: Any, args: argparse.Namespace) -> int:
    facts = memory.facts(scope=required_scope(args), subject=args.subject, predicate=args.predicate, as_of=args.as_of,
                         valid_at=args.valid_at, include_invalidated=args.all)
    emit(args, [f.model_dump(mode="json") for f in facts],
         lambda: table([fact_row(f) for f in facts],
                       ["id", "subject", "predicate", "object", "valid_from", "valid_to", "text"]))
    return OK if facts else EMPTY


def _history(memory: Any, args: argparse.Namespace) -> int:
    facts = memory.history(subject=args.subject, predicate=args.predicate, scope=required_scope(args))
    rows = [dict(fact_row(f), created_at=short(f.created_at), invalidated=f.invalidation_reason or "",
                 superseded_by=", ".join(f"{s.by} ({s.reason})" for s in f.superseded_by)) for f in facts]
    emit(args, [f.model_dump(mode="json") for f in facts],
         lambda: table(rows, ["id", "predicate", "object", "valid_from", "valid_to", "created_at", "invalidated",
                              "superseded_by", "text"]))
    return OK if facts else EMPTY


def _forget(memory: Any, args: argparse.Namespace) -> int:
    n = memory.forget(scope=required_scope(args), id=args.id, text=args.text, subject=args.subject, predicate=args.predicate)
    emit(args, {"forgotten": n}, lambda: f"forgot {n} memories (kept as tombstones)")
    return OK if n else EMPTY


def _erase(memory: Any, args: argparse.Namespace) -> int:
    selectors = {"id": args.id, "user_id": args.user_id, "session_id": args.session_id,
                 "scope": args.scope}  # one of them or --all (_check_reading)
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
    back = f"; {report.restored} superseded facts current again" if report.restored else ""
    emit(args, {"erased": report.total, "kinds": kinds, "restored": report.restored},
         lambda: f"erased {report.total} memories ({target})" + (f": {listed}" if listed else "") + back)
    return OK if kinds else EMPTY


def _export(memory: Any, args: argparse.Namespace) -> int:
    counts = {"scope": 0, "node": 0, "edge": 0}
    with output(args.output) as out:
        for record in memory.export_records(scope=args.scope):
            counts[record["record"]] = counts.get(record["record"], 0) + 1
            out.write(json_text(record) + "\n")
    say(f"exported {counts['node']} memories, {counts['edge']} edges and {counts['scope']} scopes "
        f"of tenant {args.tenant!r}" + ("" if args.output == "-" else f" to {args.output}"))
    return OK if counts["node"] else EMPTY


def _import(memory: Any, args: argparse.Namespace) -> int:
    text = read_text(args.file)
    lines: list[str] = []  # where each record came from, for errors
    progress = Progress("import", sum(1 for line in text.splitlines() if line.strip()), "records")

    def counted() -> Iterator[Any]:  # the records as the import takes them: its progress
        for record in export_records(text, args.file, lines):
            progress.advance(1)
            yield record

    try:
        counts = memory.import_records(counted(), batch_size=args.batch_size)
    except InvalidInputError as exc:
        progress.close(summary=False)
        whole = Usage(f"{args.file}: {exc.message}") if exc.field == "records" else None  # an empty file
        raise (located(exc, lines, "records", args.file) or whole or exc) from exc
    except BaseException:
        progress.close(summary=False)
        raise
    progress.close()
    emit(args, counts, lambda: f"imported {counts['nodes']} memories, {counts['edges']} edges and "
                               f"{counts['scopes']} scopes into tenant {args.tenant!r}")
    return OK if counts["nodes"] else EMPTY


def _tenants(memory: Any, args: argparse.Namespace) -> int:
    rows = memory.tenants()
    emit(args, rows, lambda: table(rows, ["tenant", "memories", "scopes"]))
    return OK if rows else EMPTY


def _stats(memory: Any, args: argparse.Namespace) -> int:
    rows = memory.counts(scope=args.scope)
    emit(args, rows, lambda: table(rows, ["scope", "kind", "total", "believed", "invalidated", "quarantined"]))
    return OK if rows else EMPTY


def _graph(memory: Any, args: argparse.Namespace) -> int:
    from .._memory.graph import to_graphml, to_json

    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    graph = memory.graph(scope=required_scope(args), as_of=args.as_of, valid_at=args.valid_at, kinds=kinds,
                         include_invalidated=args.all)
    if args.format == "json":
        with output(args.output) as out:
            out.write(to_json(graph) + "\n")
    elif args.output == "-":
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            sys.stdout.write(to_graphml(graph, Path(folder) / "graph.graphml").read_text(encoding="utf-8"))
    else:
        to_graphml(graph, args.output)
    say(f"graph of {args.scope!r}: {graph.number_of_nodes()} memories, {graph.number_of_edges()} edges")
    return OK if graph.number_of_nodes() else EMPTY


_COMMANDS: dict[str, Callable[[Any, argparse.Namespace], int]] = {
    "setup": operations.setup, "reembed": operations.reembed, "remember": _remember, "ingest": _ingest, "recall": _recall, "context": _context, "facts": _facts,
    "history": _history, "forget": _forget, "erase": _erase, "export": _export, "import": _import,
    "stats": _stats, "graph": _graph, "tenants": _tenants,
}

