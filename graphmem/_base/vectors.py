"""Embedding vectors as they are sent to Neo4j."""

from __future__ import annotations


class Vector(list[float]):
    """A list of floats with a short ``repr``: the Neo4j driver formats every query's
    parameters for its debug log even when that log is off, which is slow for vectors
    (docs/design-notes.md#vector-short-repr). The driver packs it as the plain list it is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"
