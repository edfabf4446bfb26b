"""Fixtures of the integration tests beyond the session's (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# the console script pip installed beside this interpreter: the command line as a user runs it
GRAPHMEM = Path(sys.executable).parent / "graphmem"


@pytest.fixture
def cli(neo4j, schema, tenant):
    """Runs ``graphmem ARGS`` (the console script) against the test Neo4j in the test's tenant."""
    assert GRAPHMEM.is_file(), f"no console script at {GRAPHMEM}: install the package (pip install -e .)"
    env = {**os.environ, "NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password,
           "GRAPHMEM_TENANT": tenant, "GRAPHMEM_EMBEDDER": "hashing"}
    env.pop("GRAPHMEM_SCOPE", None)

    def run(*args: str, stdin: str = "", env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(GRAPHMEM), *args], input=stdin, capture_output=True, text=True,
                              env={**env, **(env_extra or {})}, timeout=180)

    return run
