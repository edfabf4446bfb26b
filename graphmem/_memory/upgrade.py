"""The data half of the store's upgrade steps (``_base/layout.py``), without I/O: what one
stored record becomes under the current rules, or None when it is current already. The
I/O that pages through the store and writes the changes is ``_async/upgrade.py``."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .._base import dates
from .._base.validate import text_key


def fresh_keys(row: dict[str, Any]) -> dict[str, Any] | None:
    """A record's lookup keys (textKey, nameKey, aliasKeys) by the current rule, or None when
    they are current (step 2: the rule keeps symbols and every script; docs/limits.md)."""
    keys = {
        "textKey": text_key(row["text"]) if row["text"] is not None else row["textKey"],
        "nameKey": text_key(row["name"]) if row["name"] is not None else row["nameKey"],
        "aliasKeys": (sorted({text_key(a) for a in row["aliases"]}) if row["aliases"] is not None
                      else row["aliasKeys"]),
    }
    if all(keys[k] == row[k] for k in keys):
        return None
    return {"tenant": row["tenant"], "id": row["id"], **keys}


def time_anchors(row: dict[str, Any]) -> dict[str, Any] | None:
    """An episode's ``refersTo`` (the moments its time expressions name, seen from when it
    was said, in UTC), or None when it names none (step 3: episodes written before time
    anchors)."""
    at = row["occurredAt"]
    if row["text"] is None or not isinstance(at, datetime):
        return None
    moments = [moment for _, _, moment in dates.mentions(row["text"], at, timezone.utc)]
    if not moments:
        return None
    return {"tenant": row["tenant"], "id": row["id"], "refersTo": moments}
