"""`graphmem neo4j start` runs the Neo4j version it is asked for (issue 30): the one this
machine's JDKs do not make the default (5.26.19 LTS where a Java 21+ is found, else 2026.08.1
if one is), built with Maven for that version in a cache folder of its own, started, written to and read
through graphmem with Browser served beside it, and stopped. The default version is
the session's own server (tests/neo4j_server.py), which test_browser.py drives in Chromium."""

from __future__ import annotations

import json
import urllib.request

import pytest
from neo4j import GraphDatabase

from graphmem import HashingEmbedder, Memory
from graphmem._server.java import NEO4J_2026, NEO4J_LTS, choose, find_jdks

from .cli import env_lines, neo4j_cli

# a real start (and, the first time, a Maven build) of a second Neo4j: make test-reliability
pytestmark = pytest.mark.long


def test_the_version_that_is_not_the_default_starts_when_forced(tmp_path):
    jdks = find_jdks()
    other = NEO4J_LTS if choose(jdks).neo4j == NEO4J_2026 else NEO4J_2026
    if other == NEO4J_2026 and not any(j.feature >= 21 for j in jdks):
        pytest.skip("no Java 21+ on this machine: Neo4j 2026 cannot run")
    state = tmp_path / "state"
    try:
        started = neo4j_cli(state, "start", "--ephemeral", "--neo4j-version", other)
        assert f"graphmem: neo4j {other} (forced by GRAPHMEM_NEO4J_VERSION or --neo4j-version; Java " in started.stderr
        lines = env_lines(started)
        assert f"Neo4j {other} running at {lines['NEO4J_URI']}" in started.stderr
        auth = (lines["NEO4J_USER"], lines["NEO4J_PASSWORD"])
        with GraphDatabase.driver(lines["NEO4J_URI"], auth=auth) as driver:
            assert driver.get_server_info().agent == f"Neo4j/{other}"
        with Memory(lines["NEO4J_URI"], auth, tenant="versions", embedder=HashingEmbedder(64)) as memory:
            memory.setup()  # graphmem's schema (vector and full-text indexes among it) on this version too
            memory.remember("Alice lives in Paris", scope="acme", subject="alice", predicate="lives_in", object="Paris")
            assert [f.object for f in memory.facts(scope="acme")] == ["Paris"]
        # Browser's discovery document and page, from the HTTP connector
        root = lines["NEO4J_BROWSER_URL"].removesuffix("browser/")
        with urllib.request.urlopen(root, timeout=30) as answer:
            assert json.load(answer)["neo4j_version"] == other
        with urllib.request.urlopen(lines["NEO4J_BROWSER_URL"], timeout=30) as answer:
            assert answer.status == 200 and b"<html" in answer.read().lower()
        assert lines["NEO4J_PASSWORD"] not in started.stdout + started.stderr
    finally:
        neo4j_cli(state, "stop", check=False)
