"""``graphmem demo`` (what ``make demo`` runs) against a real Neo4j: it tells the story and
leaves its memories in tenant ``demo`` for Neo4j Browser; running it again starts clean."""

from __future__ import annotations

import os
import subprocess
import sys

from graphmem import Memory


def test_the_demo_tells_its_story_and_keeps_its_graph(neo4j, schema):
    env = dict(os.environ, NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password)
    for _ in range(2):  # a second run starts from a clean slate
        done = subprocess.run([sys.executable, "-m", "graphmem._cli", "demo"], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert "Alice moved to Munich" in done.stdout and "tenant 'demo'" in done.stdout
    assert neo4j.password not in done.stdout + done.stderr
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant="demo", embedder=None) as demo:
        history = demo.history(subject="alice", predicate="lives_in", scope="acme/support/alice")
        assert [f.object for f in history] == ["Paris", "Berlin", "Munich"]
        demo.erase(scope="acme")
