"""The README's Python example runs as written and prints what the README says; the README
stays a front page (about 150 lines). The examples that moved to docs/tour.md are run by
tests/integration/test_docs_tour.py, the next-step shell lines by tests/launcher/test_browser.py
(after a real ``make demo``), the Browser query by tests/integration/test_demo.py."""

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
    assert len(pairs) == len(blocks("python")) == 1
    assert len(pairs[0][0].strip().splitlines()) <= 20
    for code, printed in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), {})
        assert out.getvalue() == printed


def test_readme_opens_with_the_two_commands():
    first = blocks("sh")[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == ["make demo", "make test"]


def test_readme_is_a_front_page_that_links_into_docs():
    text = README.read_text()
    assert len(text.splitlines()) <= 160
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings == ["One example", "Next steps", "Documentation"]
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", text))
    docs = README.parent / "docs"
    assert linked >= {"docs/benchmarks.md", "docs/cli.md", "docs/neo4j.md", "docs/tour.md", "docs/notebooks.md"}
    for link in linked:
        assert (README.parent / link).is_file(), link
    assert "make test-reliability" in text and "make notebooks" in text  # both targets named
    assert (docs / "benchmarks.md").read_text().count("| graphmem |") >= 3  # the tables live there now
