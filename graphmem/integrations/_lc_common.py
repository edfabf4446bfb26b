"""Small helpers the LangChain adapters share."""

from __future__ import annotations

from datetime import datetime


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()
