"""The README's Python example runs as written and prints what the README says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def examples() -> list[tuple[str, str]]:
    """Each Python example with the output the README says it prints."""
    return re.findall(r"```python\n(.*?)```\s*prints\s*```text\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_examples_run_and_print_what_they_say(neo4j, schema, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", neo4j.uri)
    monkeypatch.setenv("NEO4J_USER", neo4j.user)
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j.password)
    pairs = examples()
    assert len(pairs) == len(blocks("python")) == 3
    assert len(pairs[0][0].strip().splitlines()) <= 20
    for code, printed in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), {})
        assert out.getvalue() == printed


def test_readme_opens_with_the_two_commands():
    first = blocks("sh")[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == ["make demo", "make test"]
