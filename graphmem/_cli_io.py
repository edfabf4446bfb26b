"""Input and output of the memory commands (``graphmem._commands``): opening a memory from
the options, tables and JSON, and reading chat transcripts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from ._records import json_default


class Usage(Exception):
    """A command line that cannot be carried out as given (exit 2)."""


def _open(args: argparse.Namespace) -> Any:
    from . import HashingEmbedder, Memory, WordLlamaEmbedder

    embedder: Any = None
    if args.embedder == "hashing":
        embedder = HashingEmbedder()
    elif args.embedder == "wordllama":
        embedder = WordLlamaEmbedder()
    return Memory(tenant=args.tenant, embedder=embedder)


def _scope(args: argparse.Namespace) -> str:
    if not args.scope:
        raise Usage(f"{args.command} needs --scope (or GRAPHMEM_SCOPE)")
    return str(args.scope)


def _instant(text: str) -> datetime:
    """An ISO-8601 time or date from the command line; without an offset it is read as UTC."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an ISO-8601 time such as 2025-03-01T09:00:00Z") from None
        value = datetime(day.year, day.month, day.day)
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def _say(message: str) -> None:
    print(f"graphmem: {message}", file=sys.stderr)


def _emit(args: argparse.Namespace, data: Any, human: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(data, default=json_default, sort_keys=True, ensure_ascii=False))
    else:
        print(human())


def _short(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M")


def _fact_row(fact: Any) -> dict[str, Any]:
    return {"id": fact.id, "subject": fact.subject or "", "predicate": fact.predicate or "", "object": fact.object or "",
            "valid_from": _short(fact.valid_from), "valid_to": _short(fact.valid_to), "text": fact.text}


def _table(rows: list[dict[str, Any]], columns: list[str], width: int = 60) -> str:
    """Rows as aligned text columns (long cells cut at ``width`` characters)."""
    if not rows:
        return "(none)"

    def cell(value: Any) -> str:
        text = "" if value is None else str(value).replace("\n", " ")
        return text if len(text) <= width else text[: width - 1] + "…"

    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    sizes = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.upper().ljust(s) for c, s in zip(columns, sizes, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(s) for v, s in zip(row, sizes, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise Usage(f"cannot read {name}: {exc.strerror or exc}") from exc


class _output:
    """Standard output for ``-``, else the named file (written whole, closed after)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stream: TextIO | None = None

    def __enter__(self) -> TextIO:
        if self.name == "-":
            return sys.stdout
        try:
            self.stream = open(self.name, "w", encoding="utf-8")
        except OSError as exc:
            raise Usage(f"cannot write {self.name}: {exc.strerror or exc}") from exc
        return self.stream

    def __exit__(self, *exc_info: Any) -> None:
        if self.stream is not None:
            self.stream.close()


def _json_lines(text: str) -> Iterator[Any]:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise Usage(f"line {n} is not JSON: {exc.msg}") from exc


_SESSION_KEYS = {"session_id", "scope", "messages"}


_MESSAGE_KEYS = {"role", "content", "occurred_at", "id", "name"}


def _sessions(text: str, default_scope: str | None) -> Iterator[dict[str, Any]]:
    """Transcripts as ingest calls: ``{scope, session_id, messages}``.

    Accepted: JSON lines, one message a line (``role``, ``content``, optional
    ``occurred_at``, ``id``, ``session_id``, ``scope``), consecutive lines of one session
    and scope making one call; or a JSON document: a list of such messages, a session
    ``{"session_id", "scope", "messages": [...]}`` or a list of sessions."""
    stripped = text.lstrip()
    try:
        document = json.loads(text) if stripped[:1] in ("[", "{") else None
    except json.JSONDecodeError:
        document = None  # JSON lines start with '{' too
    if isinstance(document, dict):
        document = [document]
    if isinstance(document, list) and document and all(isinstance(s, dict) and "messages" in s for s in document):
        for i, session in enumerate(document):
            unknown = sorted(set(session) - _SESSION_KEYS)
            if unknown:
                raise Usage(f"sessions[{i}]: unknown field {unknown[0]!r} (session_id, scope, messages)")
            if not isinstance(session["messages"], list):
                raise Usage(f"sessions[{i}].messages must be a list")
            yield {"scope": _session_scope(session.get("scope"), default_scope, f"sessions[{i}]"),
                   "session_id": session.get("session_id"),
                   "messages": [_message(m, f"sessions[{i}].messages[{j}]") for j, m in enumerate(session["messages"])]}
        return
    lines: Iterable[tuple[str, Any]] = (
        ((f"[{i}]", m) for i, m in enumerate(document)) if isinstance(document, list)
        else ((f"line {n}", m) for n, m in enumerate(_json_lines(text), 1)))
    current: dict[str, Any] | None = None
    for where, item in lines:
        if not isinstance(item, dict):
            raise Usage(f"{where}: a message must be a JSON object")
        scope = _session_scope(item.get("scope"), default_scope, where)
        session_id = item.get("session_id")
        message = _message({k: v for k, v in item.items() if k not in ("scope", "session_id")}, where)
        if current is None or current["scope"] != scope or current["session_id"] != session_id:
            if current is not None:
                yield current
            current = {"scope": scope, "session_id": session_id, "messages": []}
        current["messages"].append(message)
    if current is not None:
        yield current


def _session_scope(scope: Any, default: str | None, where: str) -> str:
    if scope is None and default is None:
        raise Usage(f"{where}: no scope (give --scope or a 'scope' field)")
    return str(scope if scope is not None else default)


def _message(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise Usage(f"{where}: a message must be a JSON object")
    unknown = sorted(set(item) - _MESSAGE_KEYS)
    if unknown:
        raise Usage(f"{where}: unknown field {unknown[0]!r} (role, content, occurred_at, id, session_id, scope)")
    message = dict(item)
    if isinstance(message.get("occurred_at"), str):
        try:
            message["occurred_at"] = datetime.fromisoformat(message["occurred_at"].replace("Z", "+00:00"))
        except ValueError:
            raise Usage(f"{where}.occurred_at: {item['occurred_at']!r} is not an ISO-8601 time") from None
    return message


class _Progress:
    """Progress on standard error: a bar redrawn in place on a terminal (tqdm when it is
    installed), nothing but the final summary otherwise."""

    def __init__(self, label: str, total: int, unit: str) -> None:
        self.label, self.total, self.unit, self.done = label, total, unit, 0
        self.live = sys.stderr.isatty()
        self.bar: Any = None
        if self.live:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]

                self.bar = tqdm(total=total, unit=" " + unit, desc=label, file=sys.stderr)
            except ImportError:
                self.bar = None

    def advance(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.live:
            filled = int(30 * self.done / max(self.total, 1))
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} {self.unit}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.live:
            sys.stderr.write("\n")
