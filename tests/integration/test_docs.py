"""The Python blocks of the guides in docs/ run, in order, against a real Neo4j."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = DOCS / "learning.md"


def run_blocks(path: Path, memory) -> dict:
    namespace = {"memory": memory}
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)):
        exec(compile(block, f"{path}[block {i}]", "exec"), namespace)
    return namespace


def test_ingest_guide_blocks_run_as_written(memory):
    namespace = run_blocks(DOCS / "ingest.md", memory)
    assert namespace["moved"].facts[0].valid_from == namespace["datetime"](2024, 3, 31, 23, tzinfo=namespace["timezone"].utc)


def test_learning_guide_blocks_run_as_written(memory):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 6
    namespace = {"memory": memory}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC}[block {i}]", "exec"), namespace)
    assert namespace["memory"].get(namespace["refund"].id).success_count == 1
