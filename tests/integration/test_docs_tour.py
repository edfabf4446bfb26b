"""docs/tour.md (what moved out of the README) runs as written against a real Neo4j: every
Python example prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "tour.md"


def test_tour_examples_run_and_print_what_they_say(neo4j, schema, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", neo4j.uri)
    monkeypatch.setenv("NEO4J_USER", neo4j.user)
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j.password)
    text = DOC.read_text()
    pairs = re.findall(r"```python\n(.*?)```\s*prints\s*```text\n(.*?)```", text, flags=re.S)
    assert len(pairs) == len(re.findall(r"```python\n", text)) == 2  # learning, agents
    for i, (code, printed) in enumerate(pairs):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{DOC}[example {i}]", "exec"), {})
        assert out.getvalue() == printed
