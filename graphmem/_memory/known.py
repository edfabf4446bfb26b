"""What graphmem knows about the server it talks to, and when each piece of it expires.

Three owners, from the narrowest:

- ``Known``: one memory object's (the vector index's dimension and filter for the slot it
  read them in, its embedder's probe vector and yardstick, the names it counted and the
  spreads it measured per scope chain).
- ``DriverKnown``: what memory objects made from one driver, on one database, know together
  (the store's node, the vector index per slot, what was said once on the logger). An
  application keeps one memory object per tenant on one driver: they read these once.
- ``Shared``: the registry that hands out a ``DriverKnown`` per driver and database, and the
  relevance floor's yardstick per embedder object. It keeps nothing alive: an entry goes
  with its driver or embedder. One instance, ``SHARED``, serves every memory object: the one
  piece of state graphmem keeps beyond an object, and only of objects still alive.

The expiry rule, in one place: the store's node is read again after ``layout.KEPT_SECONDS``
or when asked ``fresh``; everything known of the vector index holds for the slot it was read
in, and goes when the store's vectors move to another slot (``slot_seen``), when the index is
found missing or refusing a vector (``forget_index``), and when this object takes another
embedder (``use_embedder``, which also drops what came from the old embedder). Counted names
expire by time; names and spreads start over when full (``put_bounded``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple
from weakref import WeakKeyDictionary

from .._base.layout import Layout


class Index(NamedTuple):
    """A vector index as read from the server: its dimension, and whether it filters by tenant."""

    dimension: int
    filtered: bool


def put_bounded(cache: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """``cache[key] = value``, emptying ``cache`` first when it holds ``most`` other keys (a
    memory object asked of ever new scopes or names starts over rather than grow)."""
    if len(cache) >= most and key not in cache:
        cache.clear()
    cache[key] = value


@dataclass
class DriverKnown:
    """What the memory objects of one driver and database know of its store."""

    layout: Layout | None = None
    """The store's node as last read (``Layout.fresh`` says whether it may still be used)."""
    indexes: dict[str, Index] = field(default_factory=dict)
    """Per vector slot, its index as read (absent: not read, or found missing)."""
    told_older: bool = False
    """Whether an older schema version was said on the logger (said once)."""
    told_missing: set[str] = field(default_factory=set)
    """The slots whose missing vector index was said (again once the index was found)."""

    def fresh_layout(self) -> Layout | None:
        return self.layout if self.layout is not None and self.layout.fresh() else None

    def forget_layout(self) -> None:
        self.layout = None

    def keep_index(self, slot: str, index: Index | None) -> None:
        """Note ``slot``'s index as read now (None: it is missing)."""
        if index is None:
            self.indexes.pop(slot, None)
        else:
            self.indexes[slot] = index
            self.told_missing.discard(slot)

    def forget_index(self) -> None:
        """The index and the store's node are read again on the next call."""
        self.indexes.clear()
        self.layout = None


class Shared:
    """Hands out what memory objects know together: per driver and database, and the
    yardstick per embedder object. Entries go with their driver or embedder."""

    def __init__(self) -> None:
        self._drivers: WeakKeyDictionary[Any, dict[str | None, DriverKnown]] = WeakKeyDictionary()
        self._yardsticks: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()

    def driver(self, driver: Any, database: str | None) -> DriverKnown:
        """What is known of ``driver``'s ``database`` (a fresh one for a driver that cannot be
        weakly referenced, a test's stand-in: the caller then keeps it for itself)."""
        try:
            per_database = self._drivers.setdefault(driver, {})
        except TypeError:
            return DriverKnown()
        return per_database.setdefault(database, DriverKnown())

    def yardstick(self, embedder: Any) -> Any:
        """The yardstick matrix embedded with ``embedder``, or None."""
        try:
            return self._yardsticks.get(embedder)
        except TypeError:  # unhashable or not weakly referable: each memory object keeps its own
            return None

    def keep_yardstick(self, embedder: Any, matrix: Any) -> None:
        try:
            self._yardsticks[embedder] = matrix
        except TypeError:
            pass


SHARED = Shared()
"""The registry every memory object uses (an executor made by hand may be given another)."""


class Known:
    """What one memory object knows of the server and its embedder (see the module's rule)."""

    def __init__(self) -> None:
        self.dimension: int | None = None
        """The vector index's dimension, once known (from ``setup()`` or the database)."""
        self.filtered_index: bool | None = None
        """Whether the vector index is filtered by tenant inside the search (Neo4j 2026, made
        so by ``setup()``): recall then runs its Cypher 25 version. Read with the dimension."""
        self.vector_slot: str | None = None
        """The store's vector slot the dimension and filter were read for (``_base/layout.py``)."""
        self.probe: list[float] | None = None
        """The embedder's vector of ``_memory.reembed.PROBE``, once asked (tells it from the
        embedder a re-embedding put in the store: ``Layout.active``)."""
        self.yardstick: Any = None
        """The relevance floor's yardstick (a numpy matrix, ``_recall/relevance.matrix``)."""
        self.names: dict[tuple[tuple[str, ...], str], tuple[bool, float]] = {}
        """Per (visible scope chain, name): whether the name is common there, and until when
        (monotonic seconds) that count is trusted (recall's embedded question)."""
        self.spreads: dict[tuple[str, ...], float] = {}
        """Per visible scope chain, the tenant's memories per visible one at its last recall
        (how far recall's search within the tenant over-fetches on Neo4j 2026)."""

    def index(self, slot: str, index: Index) -> None:
        """The vector index of ``slot`` as read: its dimension and filter hold for that slot."""
        self.vector_slot, self.dimension, self.filtered_index = slot, index.dimension, index.filtered

    def slot_seen(self, slot: str) -> None:
        """The store's vectors are in ``slot``: what was read for another slot goes."""
        if self.vector_slot is not None and self.vector_slot != slot:
            self.forget_index()

    def forget_index(self) -> None:
        self.dimension = self.filtered_index = self.vector_slot = None

    def use_embedder(self, probe: list[float] | None = None) -> None:
        """This object embeds with another embedder from now on (whose ``probe`` vector may be
        known): what came from the old one goes, with what was read of the index."""
        self.forget_index()
        self.yardstick = None
        self.probe = probe
