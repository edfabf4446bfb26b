"""`graphmem neo4j start` keeps its data: a real start, a write, stop, start again on the same
folder (same password, same port, the memory still there), then reset."""

from __future__ import annotations

import pytest

from graphmem import HashingEmbedder, Memory

from .cli import alive, env_lines, neo4j_cli

# two real starts and stops of Neo4j (three minutes on two busy cores): make test-reliability
pytestmark = pytest.mark.long


def test_data_and_password_survive_stop_and_start_until_reset(tmp_path):
    state = tmp_path / "state"
    data = state / "neo4j-data"
    try:
        first = env_lines(neo4j_cli(state, "start", "--no-browser"))
        pid = int((state / "neo4j.pid").read_text().split()[0])
        with Memory(first["NEO4J_URI"], (first["NEO4J_USER"], first["NEO4J_PASSWORD"]), tenant="kept",
                    embedder=HashingEmbedder(64)) as memory:
            memory.setup()
            memory.remember("Alice lives in Paris", scope="acme", subject="alice", predicate="lives_in", object="Paris")

        stopped = neo4j_cli(state, "stop")
        assert "Neo4j stopped" in stopped.stderr and not alive(pid)
        assert (data / "graphmem-password").read_text().strip() == first["NEO4J_PASSWORD"]
        assert (data / "graphmem-password").stat().st_mode & 0o777 == 0o600
        assert (state / "neo4j.env").stat().st_mode & 0o777 == 0o600
        assert neo4j_cli(state, "status", check=False).returncode == 1

        second = env_lines(neo4j_cli(state, "start", "--no-browser"))
        # the same password (set on the first start only); the same port when it was free again
        assert (second["NEO4J_USER"], second["NEO4J_PASSWORD"]) == (first["NEO4J_USER"], first["NEO4J_PASSWORD"])
        with Memory(second["NEO4J_URI"], (second["NEO4J_USER"], second["NEO4J_PASSWORD"]), tenant="kept",
                    embedder=HashingEmbedder(64)) as memory:
            assert [f.object for f in memory.facts(scope="acme")] == ["Paris"]

        refused = neo4j_cli(state, "reset", check=False)
        assert refused.returncode == 2 and "stop it first" in refused.stderr and data.is_dir()
    finally:
        neo4j_cli(state, "stop", check=False)
    neo4j_cli(state, "reset")
    assert not data.exists() and not (state / "neo4j.env").exists()

