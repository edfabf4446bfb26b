"""Key-value items on the bitemporal graph (the LangGraph store's records), without I/O.

An item is a single-valued ``:Fact`` stored at its namespace's scope: subject
``item_subject(scope, key)``, predicate ``langgraph_item``, object the version's own id (so
every put differs from the value it replaces and supersedes it), the JSON value in the
``valueJson`` property and the key in ``storeKey``. A put closes the current value's valid
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
