"""Conversion between what templates return and graphmem's types: node maps (camelCase
properties) to models, result rows (camelCase columns) to typed rows.

A template that returns rows is read as a row type: a frozen dataclass deriving from
``Row``, whose fields are its columns in snake_case and in order (``supersededBy`` ->
``superseded_by``), and whose ``TEMPLATES`` names the templates that return it. It lives
with the concept that reads it. The shapes many templates share (a node, an id, a node and
its supersessions) live here and name no template: any template whose columns are theirs
returns them (every kind's create template returns its node, so a new kind needs no row
type). ``checked`` holds a row type to a template's columns before a row is built, and
fails naming both when they differ."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any, ClassVar, TypeVar, cast

from neo4j.graph import Node

from .errors import TemplateError
from .kinds import REGISTRY
from .models import MemoryRecord, Record, Supersession

_KINDS: dict[str, type[MemoryRecord]] = {kind.name: kind.model for kind in REGISTRY}



def property_of(field: str) -> str:
    """The node property a model field is stored as: its name in camelCase
    (``valid_from`` -> ``validFrom``); camelCase stays in this module and the templates."""
    head, *rest = field.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


# Neo4j property -> model field, where the two differ (every model field with an underscore)
_FIELDS = {property_of(field): field for cls in _KINDS.values() for field in cls.model_fields if "_" in field}
_INTERNAL = {"lexKey", "textKey", "nameKey", "aliasKeys", "closedAt", "propertiesJson", "kind", "stepsKey"}
_PROPERTY = {field: prop for prop, field in _FIELDS.items()}
# each kind's (property, model field) pairs, looked up once: recall builds some twenty
# records per call from maps that name every kind's properties, most of them null
_MODEL_PROPERTIES = {
    kind: tuple((_PROPERTY.get(field, field), field) for field in cls.model_fields
                if _PROPERTY.get(field, field) not in _INTERNAL)
    for kind, cls in _KINDS.items()
}


_PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Neo4j values to plain Python, recursively: temporal values to datetimes, nodes to
    their property maps. (Dispatched on the exact type first: recall converts some
    thousand values per call, nearly all of them plain.)"""
    if type(value) in _PLAIN or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, list):
        return [v if type(v) in _PLAIN else native(v) for v in value]
    if isinstance(value, (dict, Node)):
        return {k: v if type(v) in _PLAIN else native(v) for k, v in value.items()}
    if hasattr(value, "to_native"):
        return value.to_native()
    return value


def row(record: Any) -> dict[str, Any]:
    """One driver record as a plain dict (a single pass; ``Record.data()`` would walk the
    values once more)."""
    return {key: value if type(value) in _PLAIN else native(value) for key, value in record.items()}


class Row:
    """A result row of the templates named in ``TEMPLATES`` (see the module docstring); a row
    type without them is a shape any template may return whose columns are its fields (a
    node, an id: ``NodeRow``, ``IdRow``, ``HistoryRow``)."""

    __slots__ = ()
    TEMPLATES: ClassVar[tuple[str, ...]] = ()


W = TypeVar("W", bound=Row)


def columns_of(row_type: type[Row]) -> tuple[str, ...]:
    """The columns ``row_type`` is built from: its fields, in order, in camelCase."""
    return tuple(property_of(f.name) for f in fields(cast(Any, row_type)))


def checked(row_type: type[W], template: str, columns: tuple[str, ...]) -> type[W]:
    """``row_type``, once sure it is the row of ``template`` (or of a version of it:
    ``recall:cypher25``), whose rows have ``columns``; ``TemplateError`` naming both otherwise."""
    if row_type.TEMPLATES and template.split(":", 1)[0] not in row_type.TEMPLATES:
        raise TemplateError(f"template {template!r} is not among {row_type.__name__}.TEMPLATES")
    if (own := columns_of(row_type)) != columns:
        raise TemplateError(f"template {template!r} returns columns {', '.join(columns) or 'none'}; "
                            f"{row_type.__name__} is built from {', '.join(own) or 'none'}")
    return row_type


def as_columns(row: Row) -> dict[str, Any]:
    """A typed row as its template's columns (camelCase names), as the benchmarks record it."""
    return {property_of(f.name): getattr(row, f.name) for f in fields(cast(Any, row))}


def typed(row_type: type[W], record: Any) -> W:
    """One driver record as a ``row_type`` (its values in column order, made native)."""
    return row_type(*[value if type(value) in _PLAIN else native(value) for value in record.values()])


@dataclass(frozen=True, slots=True)
class IdRow(Row):
    """The id of one node a statement touched (closed, created, forgotten...)."""

    id: str


@dataclass(frozen=True, slots=True)
class NodeRow(Row):
    """One node's property map (its vectors left out), as ``to_record`` takes it."""

    node: dict[str, Any]


@dataclass(frozen=True, slots=True)
class HistoryRow(Row):
    """One node and the supersessions that replaced it (``by``, ``reason``, ``at``, ``note``)."""

    node: dict[str, Any]
    superseded_by: list[dict[str, Any]]


R = TypeVar("R", bound=MemoryRecord)


def record_of(kind: type[R], node: dict[str, Any], *, superseded_by: list[dict[str, Any]] | None = None) -> R:
    """``to_record`` for a node known to be of ``kind`` (a template that matched its label)."""
    record = to_record(node, superseded_by=superseded_by)
    if not isinstance(record, kind):
        raise TypeError(f"expected a {kind.__name__} record, got a {record.kind}")
    return record


def to_record(node: dict[str, Any], *, superseded_by: list[dict[str, Any]] | None = None) -> Record:
    """Build the model for a node map returned by a template (``kind`` names the model)."""
    kind = node["kind"]
    cls = _KINDS[kind]
    data: dict[str, Any] = {"kind": kind}
    for prop, field in _MODEL_PROPERTIES[kind]:
        value = node.get(prop)
        if value is not None:
            data[field] = value if type(value) in _PLAIN else native(value)
    if "cites" in data:
        data["cites"] = tuple(sorted(data["cites"]))
    if kind == "entity" and node.get("propertiesJson"):
        data["properties"] = json.loads(node["propertiesJson"])
    if superseded_by:
        data["superseded_by"] = tuple(
            Supersession(by=s["by"], reason=s["reason"], at=native(s["at"]), note=s.get("note"))
            for s in superseded_by if s.get("by")
        )
    return cast(Record, cls.model_validate(data))  # the registry pairs each kind with its model


def json_default(value: Any) -> Any:
    """What ``json.dumps`` cannot encode by itself: dates and times as ISO-8601 text, sets
    and tuples as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__}")
