"""A tiny run of each benchmark: the harness works end to end (no timing asserts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_recall_benchmark_smoke(neo4j, schema, tmp_path):
    env = dict(os.environ, NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password,
               GRAPHMEM_BENCH_RESULTS=str(tmp_path))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "recall.py"), "--sizes", "300", "--queries", "3"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "recall.md").read_text()
    assert "| 300 | whole tenant |" in table and "200-memory scope (in 300)" in table
    assert "2 cores" in table or "cores" in table
    assert neo4j.password not in table + done.stdout + done.stderr


def test_write_benchmark_smoke(neo4j, schema, tmp_path, driver):
    env = dict(os.environ, NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password,
               GRAPHMEM_BENCH_RESULTS=str(tmp_path))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "write.py"), "--sizes", "120", "--batch", "50"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "write.md").read_text()
    assert "| 120 |" in table and "floor rows/s" in table
    records, _, _ = driver.execute_query("MATCH (n:Floor) RETURN count(n) AS n")
    assert records[0]["n"] == 0  # the benchmark cleans up after itself
