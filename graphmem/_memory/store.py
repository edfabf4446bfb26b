"""Key-value items on the bitemporal graph (what the LangGraph store keeps), without I/O.

The typed surface ``ItemStore``/``AsyncItemStore`` (``_sync``/``_async/store.py``) takes:
reads ``ItemGet``, ``ItemSearch``, ``ItemScopes`` and writes ``ItemPut``, ``ItemDelete``,
and answers with ``ItemResults`` (``StoredItem`` rows) and ``ItemVersion`` histories. It
knows scopes, keys and JSON values; LangGraph's namespaces and operations are translated in
``graphmem/integrations/langgraph.py``.

Stored form: each value an item takes (a version) is one single-valued ``:Fact``, written
whole by one ``fact_create`` (``item_row``): scope the item's scope, subject
``item_subject(scope, key)``, predicate ``langgraph_item``, provenance ``manual``; its key in
``storeKey``, its JSON value in ``valueJson``, its TTL in minutes in ``storeTtl``, the time
of the item's first put in ``storeCreatedAt``, and as its text the value's indexed text (the
JSON when there is none). The object is the version's own id, chosen before the write: a
fact's object is what single-valued supersession compares, and an id no other version has
makes every put a new version that supersedes the current one (``SUPERSEDES {reason:
'changed'}``), even a put of the same value. An item whose indexed fields hold several texts
(fields, or the elements of a path like ``key[*].text``) also keeps one vector per text, end
to end in ``storeVectors``: a store search scores it by its best text, as LangGraph's
reference stores do, while ``embedding`` (of the joined texts) is what ``recall`` sees. A
TTL is the end of the version's valid time; a delete forgets the current version, so
``history(subject=...)`` shows every value the item ever had. A TTL sweep (``sweep``) is
the one hard delete here: an item whose current value's TTL ran out goes with its history.
The I/O is in ``_async/store.py``."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeAlias

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Provenance
from .._base.records import Row
from .._base.validate import MAX_TEXT_LENGTH
from . import facts

ITEM_PREDICATE = "langgraph_item"
MAX_SEARCH = 100_000
MAX_FIELD_TEXTS = 512
"""The most indexed texts (each embedded on its own) one item may have."""
MAX_VALUE_BYTES = 1_048_576
"""The largest item value, as UTF-8 JSON (the longest episode is as long, in characters)."""
MAX_TTL = 100 * 366 * 24 * 60
"""The longest TTL, in minutes: a century, any end of valid time a datetime can hold."""
SWEEP_BATCH = 1_000
"""The most expired items one transaction of a TTL sweep deletes (a sweep runs until none is left)."""


@dataclass(frozen=True)
class ItemGet:
    """Read the current value of the item ``key`` stored exactly at ``scope``; ``refresh``
    restarts its TTL, if it has one."""

    scope: str
    key: str
    refresh: bool = False


@dataclass(frozen=True)
class ItemSearch:
    """Read the current items at ``prefix`` or below it (None: the whole tenant), at most
    ``limit``: by cosine similarity to ``vector`` (else to ``query`` embedded by the memory's
    embedder), best first, then newest first. ``refresh`` restarts the TTLs of those read."""

    prefix: str | None
    limit: int
    query: str | None = None
    vector: Sequence[float] | None = None
    refresh: bool = False


@dataclass(frozen=True)
class ItemScopes:
    """Read the scopes holding current items at ``prefix`` or below it (None: the whole
    tenant), in path order."""

    prefix: str | None = None


@dataclass(frozen=True)
class ItemPut:
    """Write a new value of the item ``key`` at ``scope`` (see the module's stored form).

    ``text`` is what the item is found by (default: ``value`` as JSON); it is embedded
    unless ``embed`` is False or ``embedding`` gives its vector. ``field_texts`` (two or
    more) are texts the item is scored by one by one in a search, embedded unless
    ``field_vectors`` gives their vectors. ``ttl``: the value is valid for that many minutes
    after the write or a refreshing read. ``user_id``: whose the item is, ``session_id`` the
    conversation it belongs to (``erase(user_id=...)`` and ``erase(session_id=...)`` find it)."""

    scope: str
    key: str
    value: Mapping[str, Any]
    text: str | None = None
    embed: bool = True
    embedding: Sequence[float] | None = None
    field_texts: Sequence[str] | None = None
    field_vectors: Sequence[Sequence[float]] | None = None
    ttl: float | None = None
    user_id: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class ItemDelete:
    """Forget the current value of the item ``key`` at ``scope`` (it stays in its history)."""

    scope: str
    key: str


ItemRead: TypeAlias = ItemGet | ItemSearch | ItemScopes
ItemWrite: TypeAlias = ItemPut | ItemDelete


@dataclass(frozen=True)
class StoredItem:
    """The current value of an item: ``created`` is its first put, ``updated`` this
    version's; ``similarity`` is a search's (1 + cosine) / 2, None without a vector."""

    id: str
    scope: str
    key: str
    value: dict[str, Any]
    created: datetime
    updated: datetime
    ttl: float | None
    similarity: float | None = None


@dataclass(frozen=True)
class ItemResults:
    """What a batch's reads found, each kind in the order of its reads: one ``StoredItem``
    or None (no current value) per ``ItemGet``, one list per ``ItemSearch`` and one list of
    scopes per ``ItemScopes``."""

    got: list[StoredItem | None] = field(default_factory=list)
    found: list[list[StoredItem]] = field(default_factory=list)
    scopes: list[list[str]] = field(default_factory=list)


@dataclass(frozen=True)
class ItemVersion:
    """One value an item had: its valid time, when it was recorded and, if it was, when and
    why it stopped being believed (``forgotten`` for a deleted value)."""

    id: str
    value: dict[str, Any]
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    invalidated_at: datetime | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class ItemRow(Row):
    """The current value of the item asked for by the ``i``-th key of a read (``created``:
    the item's first put; ``updated``: this version's; ``value``: its JSON)."""

    TEMPLATES = ("store_get",)
    i: int
    id: str
    scope: str
    key: str
    value: str
    ttl: float | None
    created: datetime
    updated: datetime


@dataclass(frozen=True, slots=True)
class FoundRow(Row):
    """An item a search found, with its similarity (None without a vector)."""

    TEMPLATES = ("store_search",)
    id: str
    scope: str
    key: str
    value: str
    ttl: float | None
    created: datetime
    updated: datetime
    similarity: float | None


@dataclass(frozen=True, slots=True)
class ItemHistoryRow(Row):
    """One value an item had (``value``: its JSON), oldest first."""

    TEMPLATES = ("store_history",)
    id: str
    value: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    invalidated_at: datetime | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class NamespaceRow(Row):
    """A scope holding current items."""

    TEMPLATES = ("store_namespaces",)
    scope: str


@dataclass(frozen=True, slots=True)
class SweepRow(Row):
    """One batch of a TTL sweep: the items deleted, and their versions (facts) with them."""

    TEMPLATES = ("store_sweep",)
    items: int
    facts: int


def item_subject(scope: str, key: str) -> str:
    """The stable subject id of the item ``key`` at ``scope`` (its history's ``subject``)."""
    _scopes.check_path(scope)
    check_key(key)
    digest = hashlib.blake2b(f"{scope}\x00{key}".encode(), digest_size=16).hexdigest()
    return f"item-{digest}"


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise InvalidInputError("key", "must be a non-empty string")
    if len(key) > 1024:
        raise InvalidInputError("key", "is longer than 1024 characters")
    return check.plain(key, "key")


def value_json(value: Any) -> str:
    """An item's value as JSON, checked as every write's text is: JSON values only, no
    control character in a key or a text, at most ``MAX_VALUE_BYTES``."""
    if not isinstance(value, Mapping):
        raise InvalidInputError("value", f"must be a dict, got {type(value).__name__}")
    check.plain_json(value, "value")
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("value", f"must be JSON-serialisable: {exc}") from None
    size = len(encoded.encode("utf-8", "surrogatepass"))
    if size > MAX_VALUE_BYTES:
        raise InvalidInputError("value", f"is {size:,} bytes as JSON; the limit is {MAX_VALUE_BYTES:,}")
    return encoded


def record_text(text: str | None, encoded: str) -> str:
    """The fact's text: the value's indexed text, else its JSON; cut to the text limit
    (the whole value is in ``valueJson``)."""
    chosen = text if text and text.strip() else encoded
    return chosen[:MAX_TEXT_LENGTH]


def field_texts(value: Any, field: str) -> list[str] | None:
    """The texts an item is scored by one by one (``None``: its one text is enough)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) and t.strip() for t in value):
        raise InvalidInputError(field, "must be a list of non-empty texts")
    if len(value) > MAX_FIELD_TEXTS:
        raise InvalidInputError(field, f"has {len(value):,} indexed texts; the limit is {MAX_FIELD_TEXTS}")
    return list(value) if len(value) > 1 else None


def flat_vectors(vectors: Any, count: int, dimension: int | None, field: str) -> list[float]:
    """``count`` vectors, checked, end to end (the ``storeVectors`` property)."""
    if not isinstance(vectors, (list, tuple)) or len(vectors) != count:
        raise InvalidInputError(field, f"must be {count} vectors, one per indexed text")
    flat: list[float] = []
    for i, vector in enumerate(vectors):
        flat.extend(check.embedding(vector, f"{field}[{i}]", dimension))
    return flat


def ttl_minutes(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError("ttl", f"must be a positive number of minutes, got {value!r}")
    if value > MAX_TTL:
        raise InvalidInputError("ttl", f"is {value:g} minutes; the limit is {MAX_TTL:,} (a century)")
    return float(value)


def item_row(put: ItemPut, encoded: str, *, tenant: str, now: datetime, dimension: int | None) -> facts.FactRow:
    """The ``fact_create`` row of a new version of an item (``encoded``: its value's JSON),
    every property of the stored form set at once except ``storeCreatedAt``, which is the
    first put's time and so is read in the write's transaction."""
    version = check.new_id()  # also the object: every put supersedes the current value (see above)
    ttl = ttl_minutes(put.ttl)
    row = facts.row({
        "id": version, "text": record_text(put.text, encoded), "scope": put.scope,
        "subject": item_subject(put.scope, put.key), "predicate": ITEM_PREDICATE, "object": version,
        "single_valued": True, "valid_from": now, "valid_to": None if ttl is None else now + timedelta(minutes=ttl),
        "provenance": Provenance.MANUAL, "embedding": put.embedding, "user_id": put.user_id,
        "session_id": put.session_id,
    }, tenant=tenant, now=now, single_valued=(), dimension=dimension)
    row["props"].update({"storeKey": put.key, "valueJson": encoded, "storeTtl": ttl})
    return row


def stored_item(row: ItemRow | FoundRow) -> StoredItem:
    """A ``store_get``/``store_search`` row as a ``StoredItem``."""
    return StoredItem(id=row.id, scope=row.scope, key=row.key, value=json.loads(row.value),
                      created=row.created, updated=row.updated, ttl=row.ttl,
                      similarity=row.similarity if isinstance(row, FoundRow) else None)


def item_version(row: ItemHistoryRow) -> ItemVersion:
    """A ``store_history`` row as an ``ItemVersion``."""
    return ItemVersion(id=row.id, value=json.loads(row.value), valid_from=row.valid_from,
                       valid_to=row.valid_to, recorded_at=row.recorded_at,
                       invalidated_at=row.invalidated_at, reason=row.reason)
