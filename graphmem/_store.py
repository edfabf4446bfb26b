"""Key-value items on the bitemporal graph (the LangGraph store's records), without I/O.

An item is a single-valued ``:Fact`` stored at its namespace's scope: subject
``item_subject(scope, key)``, predicate ``langgraph_item``, object the version's own id (so
every put differs from the value it replaces and supersedes it), the JSON value in the
``valueJson`` property and the key in ``storeKey``. An item whose indexed fields hold
several texts (fields, or the elements of a path like ``key[*].text``) also keeps one
vector per text, end to end in ``storeVectors``: a store search scores it by its best
text, as LangGraph's reference stores do, while ``embedding`` (of the joined texts) is what
``recall`` sees. A put closes the current value's valid
time (``SUPERSEDES {reason: 'changed'}``), a delete forgets it: ``history(subject=...)``
shows every value the item ever had. The I/O is in ``_async/store.py``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from . import _scopes
from . import _validate as check
from ._errors import InvalidInputError
from ._validate import MAX_TEXT_LENGTH

ITEM_PREDICATE = "langgraph_item"
MAX_SEARCH = 100_000
MAX_FIELD_TEXTS = 512
"""The most indexed texts (each embedded on its own) one item may have."""
MAX_VALUE_BYTES = 1_048_576
"""The largest item value, as UTF-8 JSON (the longest episode is as long, in characters)."""


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
