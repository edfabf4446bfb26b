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
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .errors import SchemaError
from .records import Row

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
    active: dict[str, Any] | None = None
    """The embedder a re-embedding put in the active slot (``embedder``, ``dimensions``,
    ``probe``: its vector of ``PROBE``, ``at``); None for a store never re-embedded."""
    recorded: bool = True
    """Whether the store's node exists (without it the slot is read from the vector indexes)."""
    claimed: bool = False
    """Whether a re-embedding run holds the claim on the store's node (it claims before it
    records its start in ``reembed``)."""
    read_at: float = field(default_factory=time.monotonic)

    @property
    def vector_property(self) -> str:
        return PROPERTIES[self.slot]

    @property
    def index(self) -> str:
        return INDEXES[self.slot]

    @property
    def under_way(self) -> bool:
        """Whether a re-embedding is recorded or claimed."""
        return self.reembed is not None or self.claimed

    @property
    def filling(self) -> bool:
        """Whether a re-embedding under way may still fill the other slot (recorded or claimed,
        and not switched yet): the other slot's index is its own. After its switch the other
        slot is the old one, whose index nothing reads."""
        return self.under_way and not (self.reembed or {}).get("switchedAt")

    @property
    def staging(self) -> str:
        """The slot a re-embedding writes to: the other one."""
        return other(self.slot)

    def fresh(self, now: float | None = None) -> bool:
        return (time.monotonic() if now is None else now) - self.read_at < KEPT_SECONDS


def other(slot: str) -> str:
    return SLOT_B if slot == SLOT_A else SLOT_A


@dataclass(frozen=True, slots=True)
class StoreLayoutRow(Row):
    """The store's node as read (its values null without it): schema version, vector slot,
    the embedder a re-embedding put there, the re-embedding under way, whether a run holds
    the claim, and whether the database holds any memory."""

    TEMPLATES = ("store_layout",)
    version: int | None
    """The node's ``schemaVersion`` (changed by hand it may hold anything: ``from_row`` refuses it)."""
    slot: str | None
    recorded: bool
    active: dict[str, Any] | None
    reembed: dict[str, Any] | None
    claimed: bool
    used: bool


@dataclass(frozen=True, slots=True)
class VectorIndexRow(Row):
    """One of graphmem's vector indexes as the server says it is (``INDEXES``)."""

    TEMPLATES = ("schema_vector_info",)
    name: str
    state: str
    population: float
    dimensions: int
    properties: list[str]


@dataclass(frozen=True, slots=True)
class VectorCheckRow(Row):
    """Memories of every tenant with a vector in the active slot, in the other one, without
    one in the active slot though owed one, and of those the stranded ones."""

    TEMPLATES = ("store_vector_check",)
    active: int
    other: int
    missing: int
    stranded: int


@dataclass(frozen=True, slots=True)
class SlotRow(Row):
    """The slot the store's node names after a statement that changed it (no row: the
    statement's condition did not hold)."""

    TEMPLATES = ("reembed_done", "reembed_release", "reembed_start", "reembed_switch", "store_slot")
    slot: str | None


@dataclass(frozen=True, slots=True)
class GuardRow(Row):
    """A write's guard: the writers' lock stripes it took (0 or 1), the store's slot (null
    without the store's node)."""

    TEMPLATES = ("write_guard",)
    locked: int
    slot: str | None


@dataclass(frozen=True, slots=True)
class StoreVersionRow(Row):
    """The schema version the store's node records."""

    TEMPLATES = ("store_version",)
    version: int


@dataclass(frozen=True, slots=True)
class SchemaNameRow(Row):
    """The name of one of the database's indexes or constraints."""

    TEMPLATES = ("store_constraints", "store_indexes")
    name: str


@dataclass(frozen=True, slots=True)
class IndexSizeRow(Row):
    """How many memories have a vector in the active slot (what its index must index)."""

    TEMPLATES = ("vector_index_size",)
    memories: int


def from_row(row: StoreLayoutRow | None, indexes: Collection[str] = ()) -> Layout:
    """The layout of a ``store_layout`` row (None: no row, a database graphmem never wrote).
    Without the store's node (deleted by hand), the slot is the one whose vector index
    exists (``indexes``: the names of the vector indexes found), slot a when both or none do.
    A schema version or slot that is not graphmem's is a ``SchemaError`` naming it."""
    if row is None or (row.version is None and not row.used and not row.recorded):
        return Layout(version=EMPTY, recorded=False)
    version = row.version
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise SchemaError(f"the store's node (:GraphMemStore {{id: 'store'}}) holds schemaVersion {version!r}, "
                          "not a version number: it was changed by hand; set it back to the version the data "
                          f"follows (this graphmem writes {VERSION}) or delete the property and run setup()")
    recorded = row.recorded
    slot = row.slot
    if not recorded:
        slot = SLOT_B if INDEXES[SLOT_B] in indexes and INDEXES[SLOT_A] not in indexes else SLOT_A
    elif slot is None:  # a node written before the slots (schema version 3 or older)
        slot = SLOT_A
    elif slot not in SLOTS:
        raise SchemaError(f"the store's node (:GraphMemStore {{id: 'store'}}) holds vectorSlot {slot!r}, not "
                          f"{SLOT_A!r} or {SLOT_B!r}: it was changed by hand; graphmem setup --check says "
                          "which slot holds the vectors")
    reembed, active = row.reembed, row.active
    return Layout(version=UNVERSIONED if version is None else version, slot=slot,
                  reembed=dict(reembed) if reembed else None, active=dict(active) if active else None,
                  recorded=recorded, claimed=bool(row.claimed))


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
    vector_indexes: list[str] = []
    """graphmem's vector indexes that exist (``memory_embedding``, ``memory_embedding_b``)."""
    stray_indexes: list[str] = []
    """Vector indexes ``setup()`` would drop: the inactive slot's while no re-embedding fills
    that slot (none recorded or claimed, or one that has switched: left by a run killed right
    after its switch, or made by hand)."""
    recorded: bool = True
    """Whether the store's node exists; without it (deleted by hand) the slot is read from the
    vector indexes, and ``setup()`` records it."""
    slot_found: str | None = None
    """The slot the store's vectors are really in when the store's node names the other one
    (no memory holds a vector in the node's slot, some hold one in this slot, and no
    re-embedding is under way: the node was changed by hand or restored from elsewhere):
    ``setup()`` records it. None when they agree."""
    without_vector: int | None = None
    """Memories of every tenant without a vector in the active slot though they are owed one
    (they have text; written without an embedder, their vector removed as one Neo4j cannot
    compare, marked ``reembedPending``, or holding a vector in the other slot only): recall
    finds them by text and through the graph only; ``graphmem reembed`` embeds them. None
    when the store has no vectors (no vector index and no embedder) or is newer."""
    stranded: int = 0
    """Of ``without_vector``, those marked ``reembedPending`` or holding a vector in the other
    slot only, while no re-embedding is under way (that run embeds them)."""

    @property
    def newer(self) -> bool:
        """Whether the store was written by a newer graphmem (``setup()`` refuses it)."""
        return self.store_version > self.graphmem_version

    @property
    def current(self) -> bool:
        """Whether ``setup()`` would change nothing."""
        return not self.steps and not self.missing and self.store_version == self.graphmem_version and (
            self.embedder_dimensions is None or self.vector_dimensions in (None, self.embedder_dimensions)) and (
            not self.stray_indexes and self.slot_found is None and self.recorded)

    @property
    def sound(self) -> bool:
        """Whether nothing is to be done: ``setup()`` would change nothing and every memory
        owed a vector has one in the active slot (``graphmem setup --check`` exits 0)."""
        return self.current and not self.without_vector
