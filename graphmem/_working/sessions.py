"""Conversations (sessions) without I/O: the sessions of a scope as ``sessions`` returns them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._base.records import Row


@dataclass(frozen=True, slots=True)
class SessionRow(Row):
    """One session with believed episodes: its first and last episode time and how many
    episodes it has."""

    TEMPLATES = ("session_list",)
    session_id: str
    first: datetime
    last: datetime
    count: int


def entry(row: SessionRow) -> dict[str, Any]:
    """One session as ``sessions`` returns it: ``{session_id, first, last, count}``."""
    return {"session_id": row.session_id, "first": row.first, "last": row.last, "count": row.count}
