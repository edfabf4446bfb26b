"""kill -9 of the embedded Neo4j (issue 23.9, 23.10), in the middle of a large
``remember_many`` and of an ``ingest``. ``graphmem neo4j start`` on the same state folder
brings back every committed record from the default data folder, on the same port, past the
pid file and store locks the kill left; ``Memory`` objects open across the crash get a clear
error within ``connection_timeout`` while it is down and work again after the restart;
repeating the same calls gives exactly the expected records: nothing lost, nothing twice, no
batch half-written. Counted by direct Cypher.

The module starts a Neo4j of its own (``graphmem neo4j start`` without ``--ephemeral`` in a
temporary ``GRAPHMEM_STATE_DIR``, 1 GB heap) and kills it twice; the session's shared server
is not touched. Only 127.0.0.1 is involved. Timings go to ``FAULT_FIGURES`` for
bench/reliability.py.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase

from graphmem import GraphMemError, HashingEmbedder, Memory, Neo4jUnavailableError
from tests.fakes import ScriptedChatModel, extraction, scripted
from tests.launcher.cli import alive, env_lines, neo4j_cli

pytestmark = [pytest.mark.reliability, pytest.mark.long]  # make test-reliability

EMBEDDER = HashingEmbedder(64)
FACTS, BATCH = 4_000, 200
CONVERSATIONS = 8
BASE = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
TIMEOUT = 2.0  # NEO4J_CONNECTION_TIMEOUT of the Memory objects open across a crash
SLACK = 8.0  # on top of it: the driver's own connect attempt, a loaded 2-core machine
FAULT_FIGURES: dict[str, Any] = {"restart_s": [], "down_error_s": []}


class Server:
    """A launcher-started Neo4j on the default data folder of a state dir of its own."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.env: dict[str, str] = {}
        self.restarts: list[float] = []
        self.said = ""  # what the last start printed on stderr

    def start(self) -> dict[str, str]:
        started = time.monotonic()
        done = neo4j_cli(self.state, "start", "--no-browser")
        self.env = env_lines(done)
        self.said = done.stderr
        self.restarts.append(time.monotonic() - started)
        return self.env

    def restart_after_kill(self) -> None:
        """``graphmem neo4j start`` as a user would after a crash, checking what the kill left:
        a pid file naming a dead process, the store's lock files, and a status that says so."""
        old_uri, old_pid = self.env["NEO4J_URI"], int((self.state / "neo4j.pid").read_text().split()[0])
        assert not alive(old_pid)
        stores = self.state / "neo4j-data" / "data" / "databases"
        assert (stores / "store_lock").exists() and (stores / "neo4j" / "database_lock").exists()
        status = neo4j_cli(self.state, "status", check=False)
        assert status.returncode == 1 and "ended without `graphmem neo4j stop`" in status.stderr  # dead, and says so
        self.start()
        FAULT_FIGURES["restart_s"].append(round(self.restarts[-1], 1))
        assert self.pid != old_pid
        # the wait follows the recovery the kill made necessary, and says so (issue 28.6)
        progress = [line for line in self.said.splitlines() if line.startswith("graphmem: Neo4j is recovering")]
        assert progress and progress[0].startswith("graphmem: Neo4j is recovering its transaction log ("), self.said
        FAULT_FIGURES.setdefault("recovery_lines", []).append(progress[-1])
        # the same port (nothing else listens on it; before the fix the killed server's
        # lingering connections moved the restart to a new one, stranding open clients)
        assert self.env["NEO4J_URI"] == old_uri

    @property
    def pid(self) -> int:
        return int((self.state / "neo4j.pid").read_text().split()[0])

    @property
    def auth(self) -> tuple[str, str]:
        return self.env["NEO4J_USER"], self.env["NEO4J_PASSWORD"]

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: no shutdown hook runs."""
        pid = self.pid
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while alive(pid):
            assert time.monotonic() < deadline, f"pid {pid} outlived SIGKILL"
            time.sleep(0.05)

    def memory(self, tenant: str) -> Memory:
        return Memory(self.env["NEO4J_URI"], self.auth, tenant=tenant, embedder=EMBEDDER)

    def memory_with_timeout(self, tenant: str, monkeypatch) -> Memory:
        monkeypatch.setenv("NEO4J_CONNECTION_TIMEOUT", str(TIMEOUT))
        return self.memory(tenant)

    def query(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        with GraphDatabase.driver(self.env["NEO4J_URI"], auth=self.auth) as driver:
            records, _, _ = driver.execute_query(statement, params)
        return [r.data() for r in records]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    node = Server(tmp_path_factory.mktemp("faults") / "state")
    node.start()
    with node.memory("setup") as m:
        m.setup()
    try:
        yield node
    finally:
        neo4j_cli(node.state, "stop", check=False)


@pytest.fixture
def running(server):
    """The server, started again if an earlier test left it down."""
    if not alive(server.pid):
        server.start()
    return server


def fact_batches(tenant: str) -> list[list[dict[str, Any]]]:
    """20 batches of 200: even items name their id, odd ones rely on write-time dedup of the text."""
    return [[{"text": f"{tenant} batch {b} item {i} notes topic {i % 17}", "scope": "bulk",
              **({"id": f"{tenant}-{b}-{i}"} if i % 2 == 0 else {})}
             for i in range(BATCH)] for b in range(FACTS // BATCH)]


def per_batch(server: Server, tenant: str) -> dict[int, int]:
    rows = server.query("MATCH (f:Fact {tenant: $t}) RETURN toInteger(split(f.text, ' ')[2]) AS b, count(*) AS n",
                        t=tenant)
    return {r["b"]: r["n"] for r in rows}


def test_remember_many_killed_mid_way_then_repeated_loses_and_doubles_nothing(running, monkeypatch):
    tenant = "bulk-writer"
    batches = fact_batches(tenant)
    committed: list[int] = []
    failure: list[tuple[float, BaseException]] = []
    memory = running.memory_with_timeout(tenant, monkeypatch)

    def write_all() -> None:
        for b, batch in enumerate(batches):
            try:
                memory.remember_many(batch)
            except GraphMemError as exc:
                failure.append((time.monotonic(), exc))
                return
            committed.append(b)

    writer = threading.Thread(target=write_all)
    writer.start()
    deadline = time.monotonic() + 120
    while len(committed) < 3 and writer.is_alive():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(0.05)  # into the next batch's transaction
    killed = time.monotonic()
    running.kill()
    writer.join(timeout=60)
    assert not writer.is_alive(), "remember_many hung after the kill"
    assert failure and isinstance(failure[0][1], Neo4jUnavailableError), failure
    waited = failure[0][0] - killed
    FAULT_FIGURES["down_error_s"].append(round(waited, 1))
    assert waited < TIMEOUT + SLACK, f"the error took {waited:.1f} s with connection_timeout {TIMEOUT}"
    assert "unreachable" in str(failure[0][1]) and running.auth[1] not in str(failure[0][1])
    assert 3 <= len(committed) < len(batches)

    running.restart_after_kill()
    before = per_batch(running, tenant)
    # every batch landed whole or not at all, and every batch that returned is there
    assert set(before.values()) <= {BATCH}, before
    assert set(committed) <= set(before), (committed, before)
    assert len(before) <= len(committed) + 1  # at most the one in flight committed without its answer
    FAULT_FIGURES["remember_many"] = {"batches_returned": len(committed), "batches_on_disk": len(before)}

    # the same Memory object: its driver reconnects to the restarted server
    for batch in batches:
        memory.remember_many(batch)
    memory.close()
    after = per_batch(running, tenant)
    assert after == {b: BATCH for b in range(len(batches))}
    rows = running.query("MATCH (f:Fact {tenant: $t}) RETURN count(f) AS n, count(DISTINCT f.text) AS texts, "
                         "count(DISTINCT f.id) AS ids", t=tenant)
    assert rows == [{"n": FACTS, "texts": FACTS, "ids": FACTS}]
    counter = running.query("MATCH (s:Scope {tenant: $t, path: 'bulk'}) RETURN s.memories AS n", t=tenant)
    assert counter == [{"n": FACTS}]  # the scope's counter equals the count
    FAULT_FIGURES["remember_many"].update(after_repeat=rows[0]["n"], expected=FACTS)


class KillingChatModel(ScriptedChatModel):
    """Answers like the scripted model, after killing the server: ingest's episodes are
    committed, its extraction write meets a dead server."""

    victim: Any = None

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        self.victim.kill()
        return super()._generate(*args, **kwargs)


def conversation(c: int) -> list[dict[str, Any]]:
    at = BASE + timedelta(hours=c)
    return [{"role": "user", "content": f"I'm Person {c} and I live in Town {c}", "occurred_at": at},
            {"role": "assistant", "content": f"Noted, Person {c}", "occurred_at": at + timedelta(minutes=1)}]


def residence(c: int):
    return extraction(
        [{"name": f"Person {c}", "type": "person", "aliases": []}, {"name": f"Town {c}", "type": "city", "aliases": []}],
        [{"subject": f"Person {c}", "predicate": "lives_in", "object": f"Town {c}", "object_is_entity": True,
          "text": f"Person {c} lives in Town {c}", "valid_from": None, "corrects": False, "messages": [1],
          "single_valued": True}])


def per_conversation(server: Server, tenant: str) -> dict[str, tuple[int, int, int]]:
    """Per session: (episodes, facts derived from them, entities of that conversation)."""
    rows = server.query(
        "MATCH (e:Episode {tenant: $t}) WITH e.sessionId AS s, count(e) AS episodes "
        "OPTIONAL MATCH (f:Fact {tenant: $t})-[:DERIVED_FROM]->(:Episode {tenant: $t, sessionId: s}) "
        "WITH s, episodes, count(DISTINCT f) AS facts "
        "OPTIONAL MATCH (n:Entity {tenant: $t}) WHERE n.name ENDS WITH ' ' + substring(s, 1) "
        "RETURN s, episodes, facts, count(DISTINCT n) AS entities", t=tenant)
    return {r["s"]: (r["episodes"], r["facts"], r["entities"]) for r in rows}


def test_ingest_killed_between_its_episodes_and_its_extraction_then_repeated(running, monkeypatch):
    tenant = "ingester"
    killed_at = 3
    memory = running.memory_with_timeout(tenant, monkeypatch)
    idle = running.memory_with_timeout("idle-reader", monkeypatch)
    idle.remember("Ada lives in London", scope="s")  # its pooled connection sits idle through the crash
    for c in range(killed_at):
        memory.ingest(conversation(c), scope="chat", llm=scripted(residence(c)),
                      session_id=f"c{c}")
    killer = KillingChatModel(messages=iter([residence(killed_at)]), victim=running)
    with pytest.raises(Neo4jUnavailableError):
        memory.ingest(conversation(killed_at), scope="chat", llm=killer, session_id=f"c{killed_at}")

    started = time.monotonic()  # while it is down, a reader that was idle gets the clear error in time
    with pytest.raises(Neo4jUnavailableError) as info:
        idle.recall("where does Ada live", scope="s")
    waited = time.monotonic() - started
    FAULT_FIGURES["down_error_s"].append(round(waited, 1))
    assert waited < TIMEOUT + SLACK, f"the error took {waited:.1f} s with connection_timeout {TIMEOUT}"
    assert "unreachable" in str(info.value) and running.auth[1] not in str(info.value)

    running.restart_after_kill()
    assert [f.text for f in idle.facts(scope="s")] == ["Ada lives in London"]  # the same Memory, reconnected
    idle.close()
    before = per_conversation(running, tenant)
    done = {f"c{c}": (2, 1, 2) for c in range(killed_at)}
    # the killed call's episodes committed in their own transaction; its extraction did not land at all
    assert before == {**done, f"c{killed_at}": (2, 0, 0)}, before

    results = [memory.ingest(conversation(c), scope="chat", llm=scripted(residence(c)),
                             session_id=f"c{c}") for c in range(CONVERSATIONS)]
    memory.close()
    assert all(r.error is None for r in results)
    assert per_conversation(running, tenant) == {f"c{c}": (2, 1, 2) for c in range(CONVERSATIONS)}
    totals = running.query(
        "MATCH (n {tenant: $t}) WITH labels(n) AS kinds UNWIND kinds AS kind "
        "WITH kind WHERE kind IN ['Episode', 'Fact', 'Entity'] RETURN kind, count(*) AS n ORDER BY kind", t=tenant)
    # the model's two entities a conversation, and the two speakers every conversation shares
    # (the user and the assistant, by role), each once
    assert totals == [{"kind": "Entity", "n": 2 * CONVERSATIONS + 2}, {"kind": "Episode", "n": 2 * CONVERSATIONS},
                      {"kind": "Fact", "n": CONVERSATIONS}]
    FAULT_FIGURES["ingest"] = {"conversations": CONVERSATIONS, "killed_at": killed_at,
                               "after_repeat": {r["kind"]: r["n"] for r in totals}}


def test_a_pid_file_naming_another_launcher_is_not_this_state_dirs_server(running, tmp_path):
    """After a kill -9 the recorded pid can be reused, also by another state dir's Neo4j:
    status must not report it and stop must not kill it."""
    other = tmp_path / "other-state"
    other.mkdir()
    (other / "neo4j.env").write_text(
        f"NEO4J_URI=bolt://127.0.0.1:1\nNEO4J_USER=neo4j\nNEO4J_PASSWORD=x\nGRAPHMEM_NEO4J_DATA={other / 'neo4j-data'}\n")
    (other / "neo4j.pid").write_text(f"{running.pid}\n\n")
    assert neo4j_cli(other, "status", check=False).returncode == 1
    assert "no Neo4j was running" in neo4j_cli(other, "stop").stderr
    assert alive(running.pid)
