"""The data half of the store's upgrade steps (``_base/layout.py``), without I/O: what one
stored record becomes under the current rules, or None when it is current already. The
I/O that pages through the store and writes the changes is ``_async/upgrade.py``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .._base import dates
from .._base.records import Row
from .._base.validate import text_key


@dataclass(frozen=True, slots=True)
class TenantRow(Row):
    """The next tenant that holds a memory."""

    TEMPLATES = ("tenant_after",)
    tenant: str


@dataclass(frozen=True, slots=True)
class KeyPageRow(Row):
    """A memory's texts and the lookup keys stored for them (step 2)."""

    TEMPLATES = ("memory_key_page",)
    tenant: str
    id: str
    text: str | None
    name: str | None
    aliases: list[str] | None
    text_key: str | None
    name_key: str | None
    alias_keys: list[str] | None


@dataclass(frozen=True, slots=True)
class AnchorPageRow(Row):
    """An episode without time anchors: its text and when it was said (step 3)."""

    TEMPLATES = ("episode_anchor_page",)
    tenant: str
    id: str
    text: str | None
    occurred_at: datetime | None


@dataclass(frozen=True, slots=True)
class UpdatedRow(Row):
    """How many records a step's write changed."""

    TEMPLATES = ("episode_anchor_update", "memory_key_update")
    updated: int


@dataclass(frozen=True, slots=True)
class UnembeddedRow(Row):
    """Memories of a tenant without a vector in the active slot though owed one, and of
    those the stranded ones (marked ``reembedPending``, or a vector in the other slot only)."""

    TEMPLATES = ("memory_vector_check",)
    missing: int
    stranded: int


def fresh_keys(row: KeyPageRow) -> dict[str, Any] | None:
    """A record's lookup keys (textKey, nameKey, aliasKeys) by the current rule, or None when
    they are current (step 2: the rule keeps symbols and every script; docs/limits.md)."""
    keys = {
        "textKey": text_key(row.text) if row.text is not None else row.text_key,
        "nameKey": text_key(row.name) if row.name is not None else row.name_key,
        "aliasKeys": (sorted({text_key(a) for a in row.aliases}) if row.aliases is not None
                      else row.alias_keys),
    }
    if (keys["textKey"], keys["nameKey"], keys["aliasKeys"]) == (row.text_key, row.name_key, row.alias_keys):
        return None
    return {"tenant": row.tenant, "id": row.id, **keys}


def time_anchors(row: AnchorPageRow) -> dict[str, Any] | None:
    """An episode's ``refersTo`` (the moments its time expressions name, seen from when it
    was said, in UTC), or None when it names none (step 3: episodes written before time
    anchors)."""
    at = row.occurred_at
    if row.text is None or not isinstance(at, datetime):
        return None
    moments = [moment for _, _, moment in dates.mentions(row.text, at, timezone.utc)]
    if not moments:
        return None
    return {"tenant": row.tenant, "id": row.id, "refersTo": moments}
