"""The Python blocks of docs/learning.md run, in order, against a real Neo4j."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "learning.md"


def test_learning_guide_blocks_run_as_written(memory):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 6
    namespace = {"memory": memory}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC}[block {i}]", "exec"), namespace)
    assert namespace["memory"].get(namespace["refund"].id).success_count == 1
