"""docs/integrations.md runs as written against a real Neo4j, and prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
from datetime import datetime, timezone
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", flags=re.S)


def test_integrations_guide_runs_and_prints_what_it_says(memory, neo4j, monkeypatch):
    for name, value in (("NEO4J_URI", neo4j.uri), ("NEO4J_USER", neo4j.user), ("NEO4J_PASSWORD", neo4j.password)):
        monkeypatch.setenv(name, value)  # the MCP example opens its own AsyncMemory from the environment
    source = DOC.read_text()
    blocks = list(BLOCK.finditer(source))
    namespace = {"memory": memory}
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    checked = 0
    for i, block in enumerate(blocks):
        if block.group(1) != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.group(2), f"{DOC}[block {i}]", "exec"), namespace)
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if following is not None and following.group(1) == "text" and \
                source[block.end():following.start()].strip() == "prints":
            expected = following.group(2).replace("2026-11-30", today)
            assert out.getvalue() == expected, f"block {i} printed:\n{out.getvalue()}"
            checked += 1
    assert checked >= 6  # every example states its output
