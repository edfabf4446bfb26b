"""What the connected Neo4j can do that changes the Cypher graphmem sends: the vector index
filtered by tenant inside the search (``SEARCH ... WHERE``, Neo4j 2026.01 and later, Cypher
25), or the Neo4j 5 procedure and a filter after it. Decided from the index itself (read
once per driver and database) and, when ``setup()`` makes the index, the server's version
(docs/design-notes.md#vector-search-filtered)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .records import Row
from .templates import CYPHER25

FILTERED_SINCE = 2026  # the first calendar version whose vector index carries filter properties
FILTER_PROPERTY = "tenant"  # what the index carries besides the embedding, on servers that can

_CALENDAR = re.compile(r"^(\d{4})\.")


@dataclass(frozen=True, slots=True)
class ServerRow(Row):
    """The Neo4j server's name, kernel version (``5.26.19``, ``2026.08.1``) and edition."""

    TEMPLATES = ("server_components",)
    name: str
    version: str
    edition: str


@dataclass(frozen=True, slots=True)
class PingRow(Row):
    """The readiness probe's answer, 1 (the launcher waits for it: ``_server/wait.py``, which
    runs it on a driver of its own and reads no row)."""

    TEMPLATES = ("ping",)
    ok: int


def filters_vectors(version: str) -> bool:
    """Whether a server of this kernel version (``5.26.19``, ``2026.08.1``) creates vector
    indexes with additional properties that ``SEARCH`` filters on."""
    found = _CALENDAR.match(version.strip())
    return found is not None and int(found.group(1)) >= FILTERED_SINCE


def filtered(properties: list[str] | None) -> bool:
    """Whether a vector index on these properties is filtered by tenant (an index made on an
    older server, or by an older graphmem, is not)."""
    return FILTER_PROPERTY in (properties or [])


_UNUSABLE = ("no such", "does not exist", "not exist", "not found", "indexnotfound", "not online", "populating")


def index_unusable(error: Exception) -> bool:
    """Whether ``error`` is Neo4j saying the vector index is missing or not online (dropped,
    or being remade by ``setup()``): recall then scans exactly instead."""
    text = str(error).lower()
    return "memory_embedding" in text and any(marker in text for marker in _UNUSABLE)


def template(name: str, cypher25: bool) -> str:
    """The name of the template to run: its Cypher 25 version when the server has one for it."""
    return f"{name}:{CYPHER25}" if cypher25 else name
