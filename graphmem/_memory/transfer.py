"""Export and import of a tenant's memories as JSON lines (no I/O): the record format, and
the checks an import makes before anything is written.

One JSON object a line, in this order:

- ``{"record": "header", "format": "graphmem-export", "version": 1, "tenant", "scope"}``
- ``{"record": "scope", "path"}`` for each scope of the export (ancestors are implied);
- ``{"record": "node", "id", "kind", "props"}`` for each memory: every stored property
  but the tenant (ids, the four timestamps, embeddings, lookup keys), so an import rebuilds
  the node exactly;
- ``{"record": "edge", "type", "source", "target", "props"}`` for each edge between two
  exported memories.

Temporal values are tagged, ``{"$datetime": "2026-03-01T09:00:00+00:00"}`` or
``{"$date": "2026-03-01"}``, so they come back as temporal values, not text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.kinds import KINDS
from .._base.records import Row
from . import import_rules
from .graph import EDGE_TYPES

FORMAT = "graphmem-export"
VERSION = 1
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_PLAIN = frozenset({str, int, float, bool})  # lists of these (embeddings) pass through whole


@dataclass(frozen=True, slots=True)
class NodeExportRow(Row):
    """One memory to export: its id and every property but the tenant (the active slot's
    vectors under their slot-A names)."""

    TEMPLATES = ("export_nodes",)
    id: str
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EdgesExportRow(Row):
    """A memory's edges to exported memories: ``[{type, target, props}]``."""

    TEMPLATES = ("export_edges",)
    id: str
    edges: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class HeldEdgeRow(Row):
    """An edge the tenant already holds of the type and ends of the import's edge ``i``."""

    TEMPLATES = ("import_edges_existing",)
    i: int
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CreatedRow(Row):
    """How many nodes or edges an import batch created."""

    TEMPLATES = ("import_nodes", "import_edges")
    created: int


def encode(value: Any) -> Any:
    """A stored property value as JSON-ready data (temporal values tagged)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, (list, tuple)):
        if all(type(v) in _PLAIN for v in value):
            return list(value)
        return [encode(v) for v in value]
    raise InvalidInputError("value", f"cannot export a property of type {type(value).__name__}")


def encode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: encode(v) for k, v in sorted(props.items()) if v is not None and k != "tenant"}


def decode(value: Any, field: str) -> Any:
    """The stored value of an exported property (the inverse of ``encode``), checked."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        if all(type(v) in _PLAIN for v in value):
            return value
        return [decode(v, f"{field}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and len(value) == 1:
        (tag, text), = value.items()
        try:
            if tag == "$datetime":
                return check.instant(datetime.fromisoformat(text), field)
            if tag == "$date":
                return date.fromisoformat(text)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(field, f"is not an ISO-8601 {tag[1:]}: {text!r}") from exc
    raise InvalidInputError(field, "must be text, a number, a boolean, a list or a tagged $datetime/$date")


def decode_props(props: Any, field: str) -> dict[str, Any]:
    if not isinstance(props, Mapping):
        raise InvalidInputError(field, "must be an object of properties")
    out = {}
    for key, value in props.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise InvalidInputError(f"{field}.{key}", "is not a property name graphmem writes")
        if key == "tenant":
            continue  # the importing tenant replaces it
        out[key] = decode(value, f"{field}.{key}")
    return out


RECORD_KEYS = {"header": {"record", "format", "version", "tenant", "scope"}, "scope": {"record", "path"},
               "node": {"record", "id", "kind", "props"}, "edge": {"record", "type", "source", "target", "props"}}
"""The keys each type of export record may have (the module docstring's layouts)."""


HEADER_HINT = ('a graphmem export opens with {"record": "header", "format": '
               f'"{FORMAT}", "version": {VERSION}, ...}} as export writes it (chat transcripts are ingested, not imported)')
NO_HEADER = "is not an export's header: " + HEADER_HINT
"""Why a file that does not open with a header is refused, by the API and the CLI alike."""


def parse(record: Any, field: str, *, first: bool, tenant: str, dimension: int | None) -> tuple[str, dict[str, Any]]:
    """One export line as (record type, checked row ready for a template). The ``first`` line
    must be the header and no other line may be one. A node's properties go through the
    checks of the writes, and what graphmem derives is computed again for ``tenant``
    (``_import_rules``); a key no export writes is refused, not dropped."""
    is_header = isinstance(record, Mapping) and record.get("record") == "header"
    if first and not is_header:
        raise InvalidInputError(field, NO_HEADER)
    if is_header and not first:
        raise InvalidInputError(f"{field}.record", "is a second header: an export has one, on its first line")
    if not isinstance(record, Mapping):
        raise InvalidInputError(field, "must be a JSON object")
    kind = record.get("record")
    allowed = RECORD_KEYS.get(kind, set()) if isinstance(kind, str) else set()
    unknown = sorted(str(k) for k in set(record) - allowed) if allowed else []
    if unknown:
        raise InvalidInputError(f"{field}.{unknown[0]}", f"is not a key of a {kind} record "
                                f"(one of {', '.join(sorted(allowed))})")
    if kind == "header":
        if record.get("format") != FORMAT or record.get("version") != VERSION:
            raise InvalidInputError(f"{field}.format", f"is not a {FORMAT} version {VERSION} file")
        return kind, dict(record)
    if kind == "scope":
        return kind, {"path": scopes.check_path(record.get("path"), f"{field}.path")}
    if kind == "node":
        props = decode_props(record.get("props"), f"{field}.props")
        node_kind = record.get("kind", props.get("kind"))
        if node_kind not in (*KINDS, "chunk"):
            raise InvalidInputError(f"{field}.kind", f"{node_kind!r} is not one of {', '.join((*KINDS, 'chunk'))}")
        checked = import_rules.node(node_kind, props, f"{field}.props", tenant=tenant, dimension=dimension)
        if record.get("id") is not None and record.get("id") != checked["id"]:
            raise InvalidInputError(f"{field}.id", f"{record.get('id')!r} differs from props.id {checked['id']!r}")
        return kind, {"kind": node_kind, "props": checked}
    if kind == "edge":
        rel = record.get("type")
        if rel not in EDGE_TYPES:
            raise InvalidInputError(f"{field}.type", f"{rel!r} is not one of {', '.join(EDGE_TYPES)}")
        source = check.identifier(record.get("source"), f"{field}.source")
        target = check.identifier(record.get("target"), f"{field}.target")
        import_rules.edge_ends(rel, source, target, field)
        return kind, {
            "type": rel, "source": source, "target": target,
            "props": import_rules.edge(decode_props(record.get("props", {}), f"{field}.props"), f"{field}.props"),
        }
    raise InvalidInputError(f"{field}.record", f"{kind!r} is not one of header, scope, node, edge")


def header(tenant: str, scope: str | None) -> dict[str, Any]:
    return {"record": "header", "format": FORMAT, "version": VERSION, "tenant": tenant, "scope": scope}


def in_subtree(path: str, scope: str | None) -> bool:
    return scopes.within(path, scope)
