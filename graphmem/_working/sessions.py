"""Conversations (sessions) without I/O: the row of the sessions of a scope."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

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

