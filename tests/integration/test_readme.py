"""The README's Python example runs as written and prints what the README says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_example_runs_and_prints_what_it_says(neo4j, schema, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", neo4j.uri)
    monkeypatch.setenv("NEO4J_USER", neo4j.user)
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j.password)
    code = blocks("python")
    assert len(code) == 1 and len(code[0].strip().splitlines()) <= 20
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code[0], str(README), "exec"), {})
    assert out.getvalue() == blocks("text")[0]


def test_readme_opens_with_the_two_commands():
    first = blocks("sh")[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == ["make demo", "make test"]
