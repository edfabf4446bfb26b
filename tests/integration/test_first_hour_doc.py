"""docs/first-hour.md: the 20-line script of a new user runs against a real Neo4j, with
Memory()'s defaults, and prints what the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "first-hour.md"


def test_the_first_hour_script_prints_what_the_page_says(neo4j, schema, tmp_path):
    text = PAGE.read_text()
    script = re.search(r"```python\n(.*?)```", text, flags=re.S).group(1)
    expected = re.search(r"prints\n\n```text\n(.*?)```", text, flags=re.S).group(1)
    assert len(script.strip().splitlines()) <= 30
    (tmp_path / "first_hour.py").write_text(script)
    env = {"NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password,
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(tmp_path / "first_hour.py")], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
