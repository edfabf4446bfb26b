"""docs/architecture.md draws the package as a tree: every hand-written module is named
under its own folder (the generated _sync/ mirrors _async/), and nothing named there is gone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "graphmem"


def drawn() -> dict[str, set[str]]:
    """Per folder of the tree, the module names its lines name."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    tree = doc[doc.index("```text\ngraphmem/") + len("```text\n"):]
    tree = tree[:tree.index("```")]
    named: dict[str, set[str]] = {"": set()}
    folder = ""
    for line in tree.splitlines()[1:]:
        if re.match(r"^  [A-Za-z_]+/", line):
            folder = line.split("/")[0].strip()
            named[folder] = set()
            continue
        if line.startswith("  ") and not line.startswith("    "):
            folder = ""  # a module at the top (__init__.py, _version.py)
        names = re.match(r"^\s*((?:[\w.]+\.py\s)+)", line + " ")
        if names:
            named[folder].update(names.group(1).split())
    return named


def written() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"": {p.name for p in PACKAGE.glob("*.py")}}
    for path in PACKAGE.glob("*/*.py"):
        if path.parent.name != "_sync" and path.name != "__init__.py":
            found.setdefault(path.parent.name, set()).add(path.name)
    return found


def test_the_tree_names_every_module_under_its_folder():
    tree, code = drawn(), written()
    missing = {folder: sorted(names - tree.get(folder, set())) for folder, names in code.items()}
    assert {f: m for f, m in missing.items() if m} == {}


def test_the_tree_names_no_module_that_is_gone():
    tree, code = drawn(), written()
    gone = {folder: sorted(names - code.get(folder, set())) for folder, names in tree.items()}
    assert {f: g for f, g in gone.items() if g} == {}
