"""The store's layout: which schema version its data follows, and where its vectors live.

A store records both on one node of its own, ``(:GraphMemStore {id: 'store'})``, written by
``setup()`` (docs/operations.md). Its ``schemaVersion`` says which of the layout changes
below its data has been brought through; a store written before versions were recorded has
no such node and counts as version 1. Every step is idempotent: run twice, it changes
nothing the second time, so an upgrade cut off midway is simply run again.

Vectors live in one of two slots, each a node property with a vector index over it:
``embedding`` (index ``memory_embedding``, slot ``a``) or ``embeddingB`` (index
``memory_embedding_b``, slot ``b``). Every template reads and writes the active slot
(``templates.in_slot``); ``reembed`` fills the other one with a new embedder's vectors while
recall keeps using the active one, then switches the store's ``vectorSlot`` in one
transaction."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

SLOT_A, SLOT_B = "a", "b"
SLOTS = (SLOT_A, SLOT_B)
PROPERTIES = {SLOT_A: "embedding", SLOT_B: "embeddingB"}
"""The node property holding a memory's vector, per slot."""
INDEXES = {SLOT_A: "memory_embedding", SLOT_B: "memory_embedding_b"}
"""The vector index over that property, per slot."""


@dataclass(frozen=True)
class Step:
    """One layout change: the version it brings a store to, and what it does."""

    version: int
    name: str
    does: str


STEPS: tuple[Step, ...] = (
    Step(2, "keys", "recompute the lookup keys (textKey, nameKey, aliasKeys) of every memory with the "
                    "current rule (symbols and every script kept: docs/limits.md)"),
    Step(3, "time anchors", "give episodes written before time anchors their refersTo (the moments their "
                            "time expressions name, read in UTC)"),
    Step(4, "vector slots", "record where the store's vectors live (slot a: embedding, memory_embedding), "
                            "so that graphmem reembed can move them"),
)
VERSION = STEPS[-1].version
"""The schema version this graphmem writes and reads."""
UNVERSIONED = 1
"""The version of a store that holds memories but no version: written before versions were recorded."""
EMPTY = 0
"""The version of a database where graphmem has written nothing yet."""

KEPT_SECONDS = 60.0
"""How long a memory object trusts what it read of the layout before reading it again: a
store switched by ``reembed`` in another process is noticed within this time (sooner by a
recall, whose vector index is then gone)."""


@dataclass(frozen=True)
class Layout:
    """What one read of the store's node says (``store_layout``)."""

    version: int
    slot: str = SLOT_A
    reembed: dict[str, Any] | None = None
    """The re-embedding under way (``reembed``), as recorded on the store's node."""
    read_at: float = field(default_factory=time.monotonic)

    @property
    def vector_property(self) -> str:
        return PROPERTIES[self.slot]

    @property
    def index(self) -> str:
        return INDEXES[self.slot]

    @property
    def staging(self) -> str:
        """The slot a re-embedding writes to: the other one."""
        return other(self.slot)

    def fresh(self, now: float | None = None) -> bool:
        return (time.monotonic() if now is None else now) - self.read_at < KEPT_SECONDS


def other(slot: str) -> str:
    return SLOT_B if slot == SLOT_A else SLOT_A


def from_row(row: dict[str, Any] | None) -> Layout:
    """The layout of a ``store_layout`` row (None: no row, a database graphmem never wrote)."""
    if row is None or (row.get("version") is None and not row.get("used")):
        return Layout(version=EMPTY)
    version = row.get("version")
    slot = row.get("slot") or SLOT_A
    if slot not in SLOTS:
        slot = SLOT_A
    reembed = row.get("reembed")
    return Layout(version=UNVERSIONED if version is None else int(version), slot=slot,
                  reembed=dict(reembed) if reembed else None)


def pending(version: int) -> list[Step]:
    """The steps a store at ``version`` still needs (none for an empty one: it starts current)."""
    if version == EMPTY:
        return []
    return [step for step in STEPS if step.version > version]


class SchemaStep(BaseModel):
    """One upgrade step a store needs (``graphmem setup --check``) or went through."""

    version: int
    """The schema version the step brings a store to."""
    name: str
    """Its short name (``keys``, ``time anchors``, ``vector slots``)."""
    does: str
    """What it changes, in a sentence."""
    changes: int
    """Records it changes (would change, in a plan)."""


class SchemaPlan(BaseModel):
    """What ``setup()`` would change in the store, without changing anything
    (``Memory.schema_plan()``, ``graphmem setup --check``)."""

    store_version: int
    """The schema version of the store's data: 0 for a database graphmem has not written,
    1 for a store written before versions were recorded."""
    graphmem_version: int
    """The schema version this graphmem writes."""
    steps: list[SchemaStep]
    """The upgrade steps the store still needs, in order, each with the records it would change."""
    missing: list[str]
    """Constraints and indexes ``setup()`` would create (the vector index among them)."""
    vector_slot: str
    """The slot the store's vectors are in (``a``: property ``embedding``; ``b``: ``embeddingB``)."""
    vector_index: str
    """The vector index recall uses (``memory_embedding`` or ``memory_embedding_b``)."""
    vector_dimensions: int | None
    """The dimension of the store's vector index (None: not made yet)."""
    embedder_dimensions: int | None
    """The dimension of this memory object's embedder (None: no embedder)."""
    reembed: dict[str, object] | None
    """The re-embedding under way, as the store's node records it."""

    @property
    def newer(self) -> bool:
        """Whether the store was written by a newer graphmem (``setup()`` refuses it)."""
        return self.store_version > self.graphmem_version

    @property
    def current(self) -> bool:
        """Whether ``setup()`` would change nothing."""
        return not self.steps and not self.missing and self.store_version == self.graphmem_version and (
            self.embedder_dimensions is None or self.vector_dimensions in (None, self.embedder_dimensions))
