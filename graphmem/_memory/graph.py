"""The memory graph as networkx, and its GraphML and JSON forms (no I/O).

``build`` turns what ``memory_graph.cypher`` returns into a ``networkx.MultiDiGraph``:
one node per memory keyed by its id, with the record's properties under snake_case
names (``valid_from``, ``created_at``...; timestamps as aware datetimes), and one edge per
relationship with ``type`` and its properties. ``to_graphml``/``to_json`` write it out
for other tools; ``from_json`` reads the JSON back with its datetimes restored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._base.errors import InvalidInputError
from .._base.kinds import KINDS
from .._base.records import Row, json_default

MYPY = False  # mypy takes a name MYPY as always true; pdoc runs TYPE_CHECKING blocks with it false
if TYPE_CHECKING:
    import networkx as nx

    if MYPY:
        MemoryGraph = nx.MultiDiGraph[str]
    else:  # pdoc: networkx's class is generic only to type checkers
        MemoryGraph = nx.MultiDiGraph


def __getattr__(name: str) -> Any:
    """networkx (a fifth of `import graphmem`) is imported when a graph is built or written,
    not by every command-line call; ``MemoryGraph`` is networkx.MultiDiGraph at run time."""
    if name == "MemoryGraph":
        import networkx

        return networkx.MultiDiGraph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class GraphRow(Row):
    """Memories and the edges between them: each node as its property map (no embedding),
    each edge as its properties plus ``type``, ``source`` and ``target`` ids."""

    TEMPLATES = ("memory_evidence", "memory_graph")
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class CountsRow(Row):
    """How many memories of one kind a scope holds: in all, believed, invalidated, quarantined."""

    TEMPLATES = ("memory_stats",)
    scope: str
    kind: str
    total: int
    believed: int
    invalidated: int
    quarantined: int


@dataclass(frozen=True, slots=True)
class TenantCountsRow(Row):
    """One tenant of the database: the memories it holds (forgotten tombstones included), its scopes."""

    TEMPLATES = ("tenant_list",)
    tenant: str
    memories: int
    scopes: int


EDGE_TYPES = ("CITES", "SUPERSEDES", "RELATES", "ABOUT", "DERIVED_FROM", "MENTIONS", "SPOKE", "SAME_AS", "NEXT", "PART_OF",
              "CORROBORATES", "OUTCOME")
# lookup keys and locks that only the templates use; the embedding is left to recall
_HIDDEN = frozenset({"embedding", "embeddingB", "storeVectors", "storeVectorsB", "embeddedFrom", "tenant", "lexKey", "textKey", "nameKey", "aliasKeys", "stepsKey", "_lock"})
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
_TIME_KEYS = frozenset({"at", "as_of", "valid_from", "valid_to"})


def snake(name: str) -> str:
    """``validFrom`` -> ``valid_from``."""
    return _CAMEL.sub(r"_\1", name).lower()


def kinds(selected: Iterable[str] | None) -> list[str]:
    """The kinds to include: every kind recall knows by default, else the given ones (checked)."""
    if selected is None:
        return list(KINDS)
    if isinstance(selected, str):
        selected = [selected]
    out = []
    for kind in selected:
        if kind not in KINDS:
            raise InvalidInputError("kinds", f"{kind!r} is not one of {', '.join(KINDS)}")
        if kind not in out:
            out.append(kind)
    if not out:
        raise InvalidInputError("kinds", "must name at least one kind")
    return out


def attributes(props: dict[str, Any]) -> dict[str, Any]:
    """A node's or edge's stored properties as graph attributes: snake_case keys, no
    lookup keys or embedding, no empty values; an entity's properties decoded."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None or key in _HIDDEN:
            continue
        if key == "propertiesJson":
            out["properties"] = json.loads(value)
            continue
        out[snake(key)] = value
    return out


def build(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], **graph_attributes: Any) -> MemoryGraph:
    """The MultiDiGraph for ``memory_graph``'s rows; each edge keyed by its type (plus the
    fact id for RELATES, so parallel projections stay apart)."""
    import networkx as nx

    graph: MemoryGraph = nx.MultiDiGraph(**{k: v for k, v in graph_attributes.items() if v is not None})
    for node in nodes:
        graph.add_node(node["id"], **attributes(node))
    for edge in edges:
        attrs = attributes({k: v for k, v in edge.items() if k not in ("source", "target")})
        key = edge["type"] if edge["type"] != "RELATES" else f"RELATES:{edge.get('factId')}"
        graph.add_edge(edge["source"], edge["target"], key=key, **attrs)
    return graph


def _plain(value: Any) -> str | int | float | bool:
    """A value GraphML can hold: datetimes as ISO-8601 text, collections as JSON text."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    return json.dumps(value, default=json_default, sort_keys=True)


def to_graphml(graph: MemoryGraph, path: str | Path) -> Path:
    """Write ``graph`` as GraphML (readable by Gephi, yEd, Cytoscape, ``nx.read_graphml``).
    GraphML holds only text, numbers and booleans: timestamps become ISO-8601 text and
    lists or maps JSON text. Numbers that are sometimes whole (``importance`` 1 or 0.5)
    are written as floats throughout. Text is written as stored; a text holding a control
    character XML 1.0 cannot hold (ESC, NUL: C0 but tab, newline and carriage return) is
    refused with ``InvalidInputError`` naming it, as GraphML has no way to carry it. Returns
    the path."""
    import networkx as nx

    out: MemoryGraph = nx.MultiDiGraph()
    out.graph.update({k: _plain(v) for k, v in graph.graph.items() if v is not None})
    floats = {k for _, d in graph.nodes(data=True) for k, v in d.items() if isinstance(v, float)}
    edge_floats = {k for *_, d in graph.edges(keys=True, data=True) for k, v in d.items() if isinstance(v, float)}

    def plain(data: dict[str, Any], wide: set[str]) -> dict[str, Any]:
        return {k: (float(v) if k in wide and isinstance(v, int) and not isinstance(v, bool) else _plain(v))
                for k, v in data.items() if v is not None}

    for node, data in graph.nodes(data=True):
        out.add_node(node, **_xml_safe(plain(data, floats), f"nodes[{node!r}]"))
    for source, target, key, data in graph.edges(keys=True, data=True):
        out.add_edge(source, target, key=key, **_xml_safe(plain(data, edge_floats), f"edges[{source!r}, {target!r}, {key!r}]"))
    written = Path(path)
    nx.write_graphml(out, written)
    text = written.read_text(encoding="utf-8")
    if _XML_REFERENCED.search(text):  # DEL and C1 controls as character references: the same text, never raw
        written.write_text(_XML_REFERENCED.sub(lambda m: f"&#x{ord(m.group()):x};", text), encoding="utf-8")
    return written


# what XML 1.0 cannot hold at all, even as a reference; and what it holds but is written as one
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_XML_REFERENCED = re.compile("[\x7f-\x9f]")


def _xml_safe(data: dict[str, Any], where: str) -> dict[str, Any]:
    """``data`` unchanged, or an error naming the property whose text GraphML cannot carry
    (free text is stored as given, control characters included: docs/limits.md)."""
    for key, value in data.items():
        bad = _XML_FORBIDDEN.search(value) if isinstance(value, str) else None
        if bad is not None:
            raise InvalidInputError(f"graph.{where}.{key}", f"holds U+{ord(bad.group()):04X} at position {bad.start()}, "
                                    "which GraphML (XML 1.0) cannot carry: write the graph as JSON (graph_to_json, "
                                    "`graphmem graph --format json`), which keeps every character")
    return data


def to_json(graph: MemoryGraph) -> str:
    """``graph`` as node-link JSON text (``{"graph", "nodes": [{"id", ...}], "edges":
    [{"source", "target", "key", ...}]}``), timestamps as ISO-8601 text."""
    data = {
        "directed": True,
        "multigraph": True,
        "graph": dict(graph.graph),
        "nodes": [{"id": node, **data} for node, data in graph.nodes(data=True)],
        "edges": [{"source": s, "target": t, "key": k, **data} for s, t, k, data in graph.edges(keys=True, data=True)],
    }
    return json.dumps(data, default=json_default, sort_keys=True)


def _revive(data: dict[str, Any]) -> dict[str, Any]:
    return {k: datetime.fromisoformat(v) if isinstance(v, str) and (k.endswith("_at") or k in _TIME_KEYS) else v
            for k, v in data.items()}


def from_json(text: str) -> MemoryGraph:
    """The graph ``to_json`` wrote, timestamps (keys ending in ``_at``, ``as_of``, ``valid_from``,
    ``valid_to``) back as datetimes."""
    import networkx as nx

    data = json.loads(text)
    graph: MemoryGraph = nx.MultiDiGraph(**_revive(data.get("graph", {})))
    for node in data["nodes"]:  # a memory's id is both its key and its ``id`` attribute
        graph.add_node(node["id"], **_revive(node))
    for edge in data["edges"]:
        attrs = dict(edge)
        graph.add_edge(attrs.pop("source"), attrs.pop("target"), key=attrs.pop("key"), **_revive(attrs))
    return graph
