"""A write blocked on a lock ends in retries and then a clear error, never a two-minute hang
(issue 23.3): the launcher sets db.lock.acquisition.timeout, graphmem retries the
LockAcquisitionTimeout (a transient error) for max_retry_time. See docs/reliability.md."""

from __future__ import annotations

import time

import pytest

from graphmem import GraphMemError

# make test-reliability: waits out a stuck transaction
pytestmark = [pytest.mark.long, pytest.mark.integration, pytest.mark.reliability]


def setting(driver, name: str) -> str:
    records, _, _ = driver.execute_query("SHOW SETTINGS YIELD name, value WHERE name = $n RETURN value", {"n": name})
    return records[0]["value"]


def test_the_server_bounds_lock_waits(driver):
    # a stock Neo4j waits forever (0s); graphmem's launcher (and docker/compose.yml) must not
    assert setting(driver, "db.lock.acquisition.timeout") not in ("0", "0s", "PT0S")


def test_a_write_blocked_by_a_stuck_transaction_fails_clearly_within_a_minute(memory, driver):
    memory.remember("first note", scope="locked")
    with driver.session() as session:
        blocker = session.begin_transaction()  # holds the scope node's lock and never ends
        blocker.run("MATCH (s:Scope {tenant: $t, path: 'locked'}) SET s.memories = s.memories",
                    {"t": memory.tenant}).consume()
        started = time.monotonic()
        with pytest.raises(GraphMemError, match="LockAcquisitionTimeout") as info:
            memory.remember("second note", scope="locked")
        elapsed = time.monotonic() - started
        blocker.rollback()
    assert 10 <= elapsed < 60, f"{elapsed:.0f} s"  # retried past the first 10 s timeout, then gave up
    assert "Neo4jUnavailable" not in type(info.value).__name__
    assert memory.remember("third note", scope="locked") is not None  # the next call succeeds
    assert sorted(f.text for f in memory.facts(scope="locked")) == ["first note", "third note"]
