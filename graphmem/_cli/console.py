"""Input and output of the memory commands (``graphmem._cli.commands``): opening a memory from
the options, tables and JSON, and reading chat transcripts."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TextIO

from .._base.errors import InvalidInputError
from .._base.records import json_default


class Usage(Exception):
    """A command line that cannot be carried out as given (exit 2)."""


class NoSuchTenant(Exception):
    """A read of a tenant that holds nothing (exit 1, said as such: not an empty result)."""


def open_memory(args: argparse.Namespace) -> Any:
    from .. import Memory
    from .._base.embeddings import named_embedder

    return Memory(tenant=args.tenant, embedder=named_embedder(args.embedder))


def required_scope(args: argparse.Namespace) -> str:
    if not args.scope:
        raise Usage(f"{args.command} needs --scope (or GRAPHMEM_SCOPE)")
    return str(args.scope)


def instant(text: str) -> datetime:
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


# what a terminal must never be sent raw: C0 controls but tab and newline (ESC starts an escape
# sequence, CR overwrites the line), DEL and C1 controls (U+009B is a one-character CSI)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_JSON_RAW = re.compile("[\x7f-\x9f]")  # json.dumps escapes C0 itself


def shown(text: str) -> str:
    """``text`` as the command prints it: each control character but tab and newline written
    as its escape (``\\x1b``), so a stored escape sequence cannot drive the terminal. Only
    what is printed changes: the stored text and ``--json`` values stay as they are."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def json_text(data: Any) -> str:
    """``data`` as JSON with no raw control character: JSON escapes C0 itself, DEL and C1 are
    written as ``\\u0090`` (the same string once parsed)."""
    text = json.dumps(data, default=json_default, sort_keys=True, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(message: str) -> None:
    print(f"graphmem: {shown(message)}", file=sys.stderr)


def emit(args: argparse.Namespace, data: Any, human: Callable[[], str]) -> None:
    if args.json:
        print(json_text(data))
    else:
        print(shown(human()))


def short(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M")


def fact_row(fact: Any) -> dict[str, Any]:
    """A fact as a table row: an entity subject or object by its name (its id stays in --json)."""
    return {"id": fact.id, "subject": fact.subject_name or fact.subject or "", "predicate": fact.predicate or "",
            "object": fact.object_name or fact.object or "",
            "valid_from": short(fact.valid_from), "valid_to": short(fact.valid_to), "text": fact.text}


def table(rows: list[dict[str, Any]], columns: list[str], width: int = 60) -> str:
    """Rows as aligned text columns (long cells cut at ``width`` characters)."""
    if not rows:
        return "(none)"

    def cell(value: Any) -> str:
        text = "" if value is None else shown(str(value).replace("\n", " "))  # escaped before it is measured
        return text if len(text) <= width else text[: width - 1] + "…"

    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    sizes = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.upper().ljust(s) for c, s in zip(columns, sizes, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(s) for v, s in zip(row, sizes, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)


def read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise Usage(f"cannot read {name}: {exc.strerror or exc}") from exc


class output:
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


def _not_json(exc: json.JSONDecodeError, line: int | None = None) -> str:
    """Where a JSON text breaks and why: ``line 2, column 13: not JSON (Expecting ',' delimiter)``."""
    where = f"line {line or exc.lineno}, column {exc.colno}"
    why = f"{exc.msg} {where}" if exc.msg.endswith(" at") else exc.msg  # "Unterminated string starting at"
    return f"{where}: not JSON ({why})"


def _numbered_json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSON lines text."""
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as exc:
                raise Usage(_not_json(exc, n)) from exc


def _document(text: str) -> Any:
    """The JSON document ``text`` holds, None when it is JSON lines (or no JSON at all:
    reading it as lines then says where)."""
    stripped = text.lstrip()
    if stripped[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first = stripped.splitlines()[0]
        try:
            json.loads(first)
        except json.JSONDecodeError:
            raise Usage(_not_json(exc)) from exc  # not even its first line is JSON: a broken document
        return None  # JSON lines start with '{' too


def located(exc: InvalidInputError, where: list[str], pattern: str, file: str) -> Usage | None:
    """``exc`` about ``pattern[i]...`` (``messages[2].role``, ``records[5].type``) told as the
    place in ``file`` that item came from (``chat.jsonl: line 3, role: ...``)."""
    found = re.fullmatch(rf"{pattern}\[(\d+)\]\.?(.*)", exc.field)
    if found is None or int(found.group(1)) >= len(where):
        return None
    rest = found.group(2)
    return Usage(f"{file}: {where[int(found.group(1))]}{', ' + rest if rest else ''}: {exc.message}")


def export_records(text: str, file: str, lines: list[str]) -> Iterator[Any]:
    """The records of an export file, each a JSON line; ``lines`` gets where each record came
    from (``line 3``). What they hold, the header first, is checked by ``import_records``, so
    the command and the API refuse a file alike."""
    try:
        for n, record in _numbered_json_lines(text):
            lines.append(f"line {n}")
            yield record
    except Usage as exc:
        raise exc if str(exc).startswith(file) else Usage(f"{file}: {exc}") from exc


_SESSION_KEYS = {"session_id", "scope", "messages"}
_MESSAGE_KEYS = {"role", "content", "occurred_at", "id", "name"}


def transcript_sessions(text: str, default_scope: str | None) -> Iterator[dict[str, Any]]:
    """Transcripts as ingest calls: ``{scope, session_id, messages, where}`` (``where``: the
    place in the text each message came from, ``line 3``, for errors).

    Accepted: JSON lines, one message a line (``role``, ``content``, optional
    ``occurred_at``, ``id``, ``session_id``, ``scope``), consecutive lines of one session
    and scope making one call; or a JSON document: a list of such messages, a session
    ``{"session_id", "scope", "messages": [...]}`` or a list of sessions. A message
    without ``occurred_at`` follows the message before it in the file by a microsecond
    (the first ones of a file without any time get the time of the write)."""
    last: list[datetime | None] = [None]

    def timed(message: dict[str, Any]) -> dict[str, Any]:
        if message.get("occurred_at") is None and last[0] is not None:
            message["occurred_at"] = last[0] + timedelta(microseconds=1)
        if isinstance(message.get("occurred_at"), datetime):
            last[0] = message["occurred_at"]
        return message

    document = _document(text)
    if isinstance(document, dict):
        document = [document]
    if isinstance(document, list) and document and all(isinstance(s, dict) and "messages" in s for s in document):
        for i, session in enumerate(document):
            unknown = sorted(set(session) - _SESSION_KEYS)
            if unknown:
                raise Usage(f"sessions[{i}]: unknown field {unknown[0]!r} (session_id, scope, messages)")
            if not isinstance(session["messages"], list):
                raise Usage(f"sessions[{i}].messages must be a list")
            places = [f"sessions[{i}].messages[{j}]" for j in range(len(session["messages"]))]
            yield {"scope": _session_scope(session.get("scope"), default_scope, f"sessions[{i}]"),
                   "session_id": session.get("session_id"), "where": places,
                   "messages": [timed(_message(m, w)) for m, w in zip(session["messages"], places)]}
        return
    lines: Iterable[tuple[str, Any]] = (
        ((f"[{i}]", m) for i, m in enumerate(document)) if isinstance(document, list)
        else ((f"line {n}", m) for n, m in _numbered_json_lines(text)))
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
            current = {"scope": scope, "session_id": session_id, "messages": [], "where": []}
        current["messages"].append(timed(message))
        current["where"].append(where)
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
        raise Usage(f"{where}: unknown field {unknown[0]!r} (role, content, occurred_at, name, id, session_id, scope)")
    message = dict(item)
    if message.get("occurred_at") is not None and not isinstance(message["occurred_at"], str):
        raise Usage(f"{where}.occurred_at: {item['occurred_at']!r} is not an ISO-8601 time in a string")
    if isinstance(message.get("occurred_at"), str):
        try:
            message["occurred_at"] = instant(message["occurred_at"])
        except argparse.ArgumentTypeError:
            raise Usage(f"{where}.occurred_at: {item['occurred_at']!r} is not an ISO-8601 time") from None
    return message


class Progress:
    """Progress on standard error: a bar redrawn in place on a terminal (tqdm when it is
    installed) with the rate so far, and, on a terminal or not, a closing line with how
    many, how long and the rate (``ingest: 100,000 messages in 41.2 s, 2,427 messages/s``)."""

    def __init__(self, label: str, total: int, unit: str) -> None:
        self.label, self.total, self.unit, self.done = label, total, unit, 0
        self.started = time.monotonic()
        self.live = sys.stderr.isatty()
        self.bar: Any = None
        if self.live:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]

                self.bar = tqdm(total=total, unit=" " + unit, desc=label, file=sys.stderr)
            except ImportError:
                self.bar = None

    def rate(self) -> float:
        """Items a second so far."""
        return self.done / max(time.monotonic() - self.started, 1e-9)

    def advance(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.live:
            filled = int(30 * self.done / max(self.total, 1))
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {self.done:,}/{self.total:,} "
                             f"{self.unit}, {self.rate():,.0f}/s")
            sys.stderr.flush()

    def close(self, summary: bool = True) -> None:
        """End the bar; with ``summary``, say how many, how long and the rate."""
        if self.bar is not None:
            self.bar.close()
        elif self.live:
            sys.stderr.write("\n")
        if not summary:
            return
        seconds = time.monotonic() - self.started
        sys.stderr.write(f"{self.label}: {self.done:,} {self.unit} in {seconds:.1f} s, {self.rate():,.0f} {self.unit}/s\n")
        sys.stderr.flush()
