"""Re-embedding beside other processes, at length (issue 49; make test-reliability): 5,000
memories re-embedded while a process on the old embedder writes ten memories a second and
two others recall, one on each embedder; nine rounds of two runs with different embedders
started together from two processes. The short versions are in
tests/integration/test_reembed_writers.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from graphmem import HashingEmbedder
from tests.integration.test_operations import own_server
from tests.integration.test_reembed_writers import TENANT, proc, seeded, vector_indexes, without_active_vector

# minutes each (5,000 memories re-embedded; nine rounds): beyond RELIABILITY_TIMEOUT
pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.long, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from own_server(tmp_path_factory)


@pytest.fixture
def empty(server):
    server.wipe()
    return server


def lines(path: Path, kind: str) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith(kind + " ")]


def test_five_thousand_memories_re_embedded_beside_a_writer_and_two_recallers(empty, tmp_path):
    seeded(empty, 64, 5000)
    stop = tmp_path / "stop"
    out = {name: tmp_path / f"{name}.txt" for name in ("writer", "old", "new")}
    others = [proc(empty, "writer", tenant=TENANT, dimensions=64, pause=0.1, out=str(out["writer"]), stop=str(stop)),
              proc(empty, "recaller", tenant=TENANT, dimensions=64, out=str(out["old"]), stop=str(stop)),
              proc(empty, "recaller", tenant=TENANT, dimensions=96, out=str(out["new"]), stop=str(stop))]
    try:
        deadline = time.monotonic() + 120
        while not all(path.exists() and lines(path, "ok") for path in (out["writer"], out["old"])):
            assert time.monotonic() < deadline and all(p.poll() is None for p in others)
            time.sleep(0.1)
        answered_before = len(lines(out["old"], "ok"))
        report = empty.memory(TENANT, HashingEmbedder(64)).reembed(HashingEmbedder(96), batch_size=100)
        answered_during = len(lines(out["old"], "ok")) - answered_before
        time.sleep(3.0)  # the new embedder's recaller answers from the switch on
    finally:
        stop.touch()
        for p in others:
            p.wait(timeout=120)
    for path in out.values():
        assert lines(path, "error") == [], (path.name, lines(path, "error")[:3])
    accepted = [line[3:] for line in lines(out["writer"], "ok")]
    assert all(line.startswith("refused SchemaError ") and "re-embedded" in line for line in lines(out["writer"], "refused"))
    assert report.switched and answered_during > 0 and lines(out["new"], "ok")
    assert len(accepted) >= report.seconds, (len(accepted), report.seconds)  # it kept writing (its pace: bench/reembed.py)
    rows = empty.query("MATCH (m:Memory {tenant: $t}) WHERE m.text STARTS WITH 'written meanwhile' "
                       "RETURN m.text AS text, size(m.embeddingB) AS b", t=TENANT)
    assert sorted(r["text"] for r in rows) == sorted(accepted) and {r["b"] for r in rows} == {96}
    assert without_active_vector(empty) == 0 and vector_indexes(empty) == [("memory_embedding_b", 96)]
    print(json.dumps({"memories": 5000, "seconds": round(report.seconds, 1), "writes": len(accepted),
                      "writes_refused": len(lines(out["writer"], "refused")),
                      "recalls_old": len(lines(out["old"], "ok")), "recalls_new": len(lines(out["new"], "ok"))}))


def test_nine_rounds_of_two_runs_started_together(empty, tmp_path):
    seeded(empty, 64, 2000)
    refused = 0
    for round_ in range(9):
        go = tmp_path / f"go{round_}"
        runs = [proc(empty, "reembed", tenant=TENANT, old=64, dimensions=d, go=str(go), batch=50) for d in (128, 80)]
        time.sleep(3.0)
        go.touch()
        outcomes = [json.loads(run.communicate(timeout=600)[0].strip().splitlines()[-1]) for run in runs]
        assert all("raw" not in o for o in outcomes), outcomes
        assert all(o.get("switched") or (o.get("error") == "SchemaError" and "under way" in o["message"])
                   for o in outcomes), outcomes
        refused += sum("error" in o for o in outcomes)
        indexes = vector_indexes(empty)
        assert len(indexes) == 1, indexes
        field = "embeddingB" if indexes[0][0] == "memory_embedding_b" else "embedding"
        sizes = empty.query(f"MATCH (m:Memory) WHERE m.text IS NOT NULL RETURN DISTINCT size(m.{field}) AS n")
        assert [r["n"] for r in sizes] == [indexes[0][1]] and without_active_vector(empty) == 0
    assert refused >= 5, refused
