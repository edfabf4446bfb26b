"""A statement the server fails must not leave graphmem's thread touching the connection
after the driver has handed it back to the pool (issue 23.3, the stall).

The driver releases a connection as soon as a statement in a managed transaction fails;
if the transaction function then raises, its rollback probes the socket and may send
ROLLBACK through a connection that another thread may own by then. That other thread
could block in ``recv()`` for good. The executor keeps the failure from the driver (see
``_in_transaction`` in graphmem/_async/executor.py). These tests make the failure happen
on purpose and watch every connection the driver touches."""

from __future__ import annotations

import inspect
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

import pytest

# the driver's connection and pool classes: watched, not changed
from neo4j._async.io._bolt._base import AsyncBolt
from neo4j._async.io._pool import AsyncBoltPool
from neo4j._sync.io._bolt._base import Bolt
from neo4j._sync.io._pool import BoltPool

from graphmem import AsyncMemory, GraphMemError
from graphmem._base.records import NodeRow

pytestmark = [pytest.mark.integration, pytest.mark.reliability]


def watch_released(monkeypatch, pool_class, connection_class) -> list[str]:
    """Calls the driver makes on a connection the pool has taken back and not handed out again."""
    released: weakref.WeakSet = weakref.WeakSet()  # not ids: a new connection could reuse a dead one's
    seen: list[str] = []
    release = pool_class.release

    if inspect.iscoroutinefunction(release):
        async def watched_release(pool, *connections):
            await release(pool, *connections)
            released.update(connections)
    else:
        def watched_release(pool, *connections):
            release(pool, *connections)
            released.update(connections)

    monkeypatch.setattr(pool_class, "release", watched_release)
    for name in ("defunct", "send_all", "fetch_all"):
        original = getattr(connection_class, name)

        def note(connection, name=name):
            if not connection.in_use and connection in released:
                seen.append(name)

        if inspect.iscoroutinefunction(original):  # the driver wraps coroutines and functions differently
            async def watched(self, *args, _original=original, _note=note, **kwargs):
                _note(self)
                return await _original(self, *args, **kwargs)
        else:
            def watched(self, *args, _original=original, _note=note, **kwargs):
                _note(self)
                return _original(self, *args, **kwargs)

        monkeypatch.setattr(connection_class, name, watched)
    return seen


@pytest.fixture
def after_release(monkeypatch):
    return watch_released(monkeypatch, BoltPool, Bolt)


def wait_for_blocked_create(driver, timeout: float = 15.0) -> None:
    """Until graphmem's fact_create statement waits on a lock (not any other transaction)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records, _, _ = driver.execute_query(
            "SHOW TRANSACTIONS YIELD status, currentQuery WHERE currentQuery CONTAINS '// name: fact_create' "
            "RETURN collect(status) AS s")
        if any(status.startswith("Blocked") for status in records[0]["s"]):
            return
        time.sleep(0.05)
    raise AssertionError("the write never blocked on the uncommitted record")


def test_a_write_that_loses_a_uniqueness_race_leaves_its_connection_alone(memory, driver, after_release):
    seed = memory.remember("Ada likes tea", scope="handoff", id="seed")
    with driver.session() as session:
        rival = session.begin_transaction()  # the same id, created and not yet committed
        rival.run("MATCH (m:Memory {tenant: $t, id: 'seed'}) CREATE (n:Memory:Fact) SET n = m {.*, id: 'same'}",
                  {"t": memory.tenant}).consume()
        with ThreadPoolExecutor(1) as pool:
            racing = pool.submit(memory.remember, "Ada likes tea", scope="handoff", id="same")
            wait_for_blocked_create(driver)  # its CREATE waits on the rival's index entry
            rival.commit()  # ... and now fails with a uniqueness conflict
            result = racing.result(timeout=60)
    assert result.id == "same" and result.text == seed.text  # the retry found the rival's record
    assert after_release == []  # nothing touched a connection the pool had taken back


def test_a_read_the_server_fails_keeps_the_servers_error_and_leaves_its_connection_alone(memory, after_release):
    with pytest.raises(GraphMemError) as info:  # LIMIT of a string: the server refuses it
        memory._store.run.read_as(NodeRow, "decision_list", tenant=memory.tenant, chain=["x"], agent=None, sessionId=None,
                         limit="many")
    assert "Neo.ClientError" in str(info.value)  # the server's own error, not the driver's "transaction failed"
    assert after_release == []


async def test_the_async_memory_leaves_a_failed_reads_connection_alone(neo4j, schema, embedder, tenant, monkeypatch):
    seen = watch_released(monkeypatch, AsyncBoltPool, AsyncBolt)  # send_all/fetch_all are coroutines there
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        with pytest.raises(GraphMemError, match=r"Neo\.ClientError"):
            await memory._store.run.read_as(NodeRow, "decision_list", tenant=tenant, chain=["x"], agent=None, sessionId=None,
                                   limit="many")
        assert (await memory.remember("Ada likes tea", scope="handoff")).text == "Ada likes tea"
    assert seen == []
