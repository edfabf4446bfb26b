"""Re-embedding beside other processes and operators' mistakes (issue 49, findings 1 to 4),
on a real Neo4j of the module's own (a re-embedding switches the whole database): a writer
on the old embedder in another process, two runs started together from two processes, the
store's node deleted by hand in slot b, a run killed right after its switch."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest

from graphmem import HashingEmbedder, SchemaError
from tests.integration.test_operations import ROOT, Store, own_server

TENANT = "w"
# OS processes and a Neo4j of its own: about three minutes of a two-core machine, run by
# make test-reliability (CI runs it after make test), not by make test
pytestmark = [pytest.mark.long, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from own_server(tmp_path_factory)


@pytest.fixture
def empty(server):
    server.wipe()
    return server


def proc(db: Store, role: str, **args: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.integration.reembed_procs", role, json.dumps(args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=db.cli_env(), cwd=ROOT)


def without_active_vector(db: Store) -> int:
    """Memories with text and no vector in the slot the store's node names."""
    return db.query("MATCH (s:GraphMemStore {id: 'store'}) MATCH (m:Memory) WHERE m.text IS NOT NULL AND "
                       "CASE s.vectorSlot WHEN 'b' THEN m.embeddingB ELSE m.embedding END IS NULL "
                       "RETURN count(m) AS n")[0]["n"]


def vector_indexes(db: Store) -> list[tuple[str, int]]:
    rows = db.query("SHOW VECTOR INDEXES YIELD name, options "
                       "RETURN name, options.indexConfig['vector.dimensions'] AS dims ORDER BY name")
    return [(r["name"], r["dims"]) for r in rows]


def seeded(db: Store, dimensions: int, count: int) -> None:
    memory = db.memory(TENANT, HashingEmbedder(dimensions))
    memory.setup()
    for start in range(0, count, 500):
        memory.remember_many([{"text": f"seeded memory {i} about item {i * 7 % 1000}", "scope": "s"}
                              for i in range(start, min(count, start + 500))])
    memory.close()


def test_a_writer_on_the_old_embedder_in_another_process_loses_no_vector(empty, tmp_path):
    """Finding 1: each write the stale writer was told succeeded has a vector of the active
    slot; after the switch its writes are refused with a SchemaError naming the re-embedding."""
    seeded(empty, 64, 600)
    out, stop = tmp_path / "writer.txt", tmp_path / "stop"
    writer = proc(empty, "writer", tenant=TENANT, dimensions=64, pause=0.02, out=str(out), stop=str(stop))
    try:
        deadline = time.monotonic() + 60
        while not (out.exists() and out.read_text().count("ok ") >= 3):
            assert writer.poll() is None and time.monotonic() < deadline, writer.stderr.read() if writer.stderr else ""
            time.sleep(0.05)
        before = out.read_text().count("ok ")
        report = empty.memory(TENANT, HashingEmbedder(64)).reembed(HashingEmbedder(96), batch_size=40)
        during = out.read_text().count("ok ") - before
        deadline = time.monotonic() + 60  # the writer goes on until it has been refused a few times
        while out.read_text().count("refused ") < 3:
            assert writer.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        stop.touch()
        writer.wait(timeout=60)
    lines = out.read_text().splitlines()
    assert [line for line in lines if line.startswith("error ")] == []
    accepted = [line[3:] for line in lines if line.startswith("ok ")]
    refused = [line for line in lines if line.startswith("refused ")]
    assert report.switched and during > 0, (report, during)
    assert all(line.startswith("refused SchemaError ") and "re-embedded" in line and "make the memory object with the new embedder" in line for line in refused)
    # no accepted write comes after a refusal: from the switch on, the stale writer cannot write
    assert lines.index(refused[0]) > max(i for i, line in enumerate(lines) if line.startswith("ok "))
    rows = empty.query("MATCH (m:Memory {tenant: $t}) WHERE m.text STARTS WITH 'written meanwhile' "
                       "RETURN m.text AS text, size(m.embeddingB) AS b, m.embedding IS NULL AS cleared", t=TENANT)
    assert sorted(r["text"] for r in rows) == sorted(accepted)
    assert all(r["b"] == 96 and r["cleared"] for r in rows), rows
    assert without_active_vector(empty) == 0
    assert vector_indexes(empty) == [("memory_embedding_b", 96)]
    new = empty.memory(TENANT, HashingEmbedder(96))
    assert new.recall(accepted[-1], scope="s", k=1)[0].record.text == accepted[-1]


def test_two_runs_started_together_from_two_processes_leave_one_consistent_store(empty, tmp_path):
    """Finding 2: one run at a time, claimed on the store's node: the other is refused with a
    SchemaError naming the run under way (or runs after it, never beside it)."""
    seeded(empty, 64, 800)
    refused = 0
    for round_ in range(2):
        go = tmp_path / f"go{round_}"
        runs = [proc(empty, "reembed", tenant=TENANT, old=64, dimensions=d, go=str(go), batch=30) for d in (128, 80)]
        time.sleep(3.0)  # both imported graphmem and embedded their warm-up
        go.touch()
        outcomes = [json.loads(run.communicate(timeout=300)[0].strip().splitlines()[-1]) for run in runs]
        assert all("raw" not in o for o in outcomes), outcomes
        for outcome in outcomes:
            if "error" in outcome:
                refused += 1
                assert outcome["error"] == "SchemaError", outcome
                assert "a re-embedding is under way (run " in outcome["message"], outcome
        assert any(o.get("switched") for o in outcomes), outcomes
        # whatever the order: one index, of the dimension of every stored vector
        indexes = vector_indexes(empty)
        assert len(indexes) == 1, indexes
        field = "embeddingB" if indexes[0][0] == "memory_embedding_b" else "embedding"
        sizes = empty.query(f"MATCH (m:Memory) WHERE m.text IS NOT NULL RETURN DISTINCT size(m.{field}) AS n")
        assert [r["n"] for r in sizes] == [indexes[0][1]]
        assert without_active_vector(empty) == 0
        assert empty.query("MATCH (m:Memory) WHERE m.embedding IS NOT NULL AND m.embeddingB IS NOT NULL "
                           "RETURN count(m) AS n")[0]["n"] == 0
    assert refused >= 1  # started within milliseconds of each other, runs of seconds: they met


def test_the_store_node_deleted_in_slot_b_loses_no_vector(empty):
    """Finding 3: the layout is read from the vector indexes when the node is gone."""
    seeded(empty, 32, 300)
    memory = empty.memory(TENANT, HashingEmbedder(32))
    assert memory.reembed(HashingEmbedder(48), batch_size=100).switched
    empty.query("MATCH (s:GraphMemStore) DETACH DELETE s")
    fresh = empty.memory(TENANT, HashingEmbedder(48))
    plan = fresh.schema_plan()
    assert plan.vector_index == "memory_embedding_b"
    hit = fresh.recall("seeded memory 17 about item 119", scope="s", k=1)
    assert hit and hit[0].record.text == "seeded memory 17 about item 119" and hit[0].parts.semantic > 0.9
    fresh.setup()
    assert empty.query("MATCH (s:GraphMemStore {id: 'store'}) RETURN s.vectorSlot AS slot")[0]["slot"] == "b"
    report = fresh.reembed(HashingEmbedder(40), batch_size=100)
    assert report.switched and report.embedded == 300
    assert without_active_vector(empty) == 0 and vector_indexes(empty) == [("memory_embedding", 40)]


def test_a_run_killed_right_after_its_switch_is_finished_by_the_next_one(empty):
    """Finding 4: the rerun drops the old slot's index the killed run left."""
    seeded(empty, 32, 200)
    killed = proc(empty, "die_after_switch", tenant=TENANT, old=32, dimensions=24)
    _, err = killed.communicate(timeout=300)
    assert killed.returncode == 9, err
    assert vector_indexes(empty) == [("memory_embedding", 32), ("memory_embedding_b", 24)]
    memory = empty.memory(TENANT, HashingEmbedder(24))
    with pytest.raises(SchemaError, match="under way|another embedder"):
        memory.reembed(HashingEmbedder(20))  # only the killed run's embedder may finish it
    report = memory.reembed(HashingEmbedder(24))
    assert report.switched and report.index == "memory_embedding_b"
    assert vector_indexes(empty) == [("memory_embedding_b", 24)]
    assert empty.query("MATCH (m:Memory) WHERE m.embedding IS NOT NULL RETURN count(m) AS n")[0]["n"] == 0
    assert without_active_vector(empty) == 0
    assert memory.schema_plan().reembed is None



class Reversed(HashingEmbedder):
    """Another embedder of the same dimension: HashingEmbedder's vectors, reversed."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [v[::-1] for v in super().embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return super().embed_query(text)[::-1]


def test_a_stale_memory_object_of_the_same_dimension_is_refused_at_its_first_recall_after_the_switch(empty):
    """It had read the store before the switch: its first recall finds the old index gone,
    and the probe (not the dimension, which is the same) says its embedder is not the store's."""
    seeded(empty, 32, 120)
    stale = empty.memory(TENANT, HashingEmbedder(32))
    assert stale.recall("seeded memory 5", scope="s", k=1)
    report = empty.memory(TENANT, HashingEmbedder(32)).reembed(Reversed(32), batch_size=50)
    assert report.switched
    with pytest.raises(SchemaError, match="re-embedded.*make the memory object with the new embedder"):
        stale.recall("seeded memory 5", scope="s", k=1)
    fresh = empty.memory(TENANT, Reversed(32))
    assert fresh.recall("seeded memory 5 about item 35", scope="s", k=1)[0].record.text == "seeded memory 5 about item 35"
