"""Each framework's example in docs/integrations.md runs with every socket held to the
test's Neo4j: neither graphmem nor the framework around it reaches for the network (no
model call, no telemetry, no download)."""

from __future__ import annotations

import pytest

from tests.frameworks.doc_blocks import run_blocks
from tests.network_guard import guard_sockets


@pytest.mark.parametrize("tag", ["adk", "agent-framework", "openai-agents", "pydantic-ai", "llamaindex"])
def test_a_framework_example_opens_no_socket_but_neo4j_s(tag, memory, neo4j, monkeypatch):
    tried = guard_sockets(monkeypatch, neo4j.uri)
    assert run_blocks(tag, {"memory": memory}) >= 1
    assert tried == []
