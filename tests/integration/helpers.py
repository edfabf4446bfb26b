"""Small helpers shared by integration tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


def utc(year: int, month: int = 1, day: int = 1, hour: int = 0) -> datetime:
    return datetime(year, month, day, hour, tzinfo=timezone.utc)


class Clock:
    """A settable clock for Memory(clock=...): transaction time under the test's control."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def tick(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now
