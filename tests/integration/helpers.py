"""Small helpers shared by integration tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from graphmem._base import dialect, templates


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


def plan_operators(plan: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every operator of a query plan or profile (the driver's summary.plan / .profile), as
    (operator name without its runtime suffix, its details), depth first."""
    yield plan["operatorType"].split("@")[0], plan.get("args", {}).get("Details", "")
    for child in plan.get("children", []):
        yield from plan_operators(child)


def server_filters_vectors(driver: Any) -> bool:
    """Whether the server's vector index filters inside the search (Neo4j 2026: Cypher 25)."""
    records, _, _ = driver.execute_query(templates.get("server_components").text)
    return dialect.filters_vectors(records[0]["version"])
