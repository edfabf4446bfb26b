"""The Python blocks of docs/agent-turn.md run, in order, against a real Neo4j."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from graphmem import Memory

DOC = Path(__file__).resolve().parents[2] / "docs" / "agent-turn.md"


def test_agent_turn_guide_blocks_run_as_written(memory, neo4j, embedder):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 7
    # the guide's Memory(...) reads its connection from the environment; here, the test server
    namespace = {"memory": memory, "Memory": functools.partial(Memory, neo4j.uri, (neo4j.user, neo4j.password),
                                                                embedder=embedder)}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC}[block {i}]", "exec"), namespace)
    assert namespace["profile"].name == "Ann Lee"
    assert len(namespace["summary"].cites) == 10
