"""The package layout is the architecture (docs/architecture.md): each folder of graphmem/
is one concept, its ``__init__.py`` opens with two lines saying what the concept owns and
which folders it may import, and the code keeps to that line (the size rule is
test_module_size.py)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
# the front door and the version stay at the top; everything else lives in a concept folder
TOP_LEVEL = {"__init__.py", "_version.py", "py.typed"}


def folders() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def allowed(folder: Path) -> set[str] | None:
    """The folders the ``__init__`` docstring's "Imports ..." sentence names (None: any)."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    sentence = re.search(r"Imports (.*?)\.(?:\s|$)", doc.replace("\n", " "))
    assert sentence, f"{folder.name}/__init__.py does not say what it may import"
    text = sentence.group(1)
    if text.startswith("anything"):
        return None
    if text.startswith("nothing"):
        return set()
    return {name.strip().removeprefix("graphmem.") for name in re.findall(r"(?:graphmem\.)?_?\w+", text)
            if name.strip().removeprefix("graphmem.") in {f.name for f in folders()} | {"graphmem"}}


def imported_folders(path: Path) -> set[str]:
    """The graphmem folders (or "graphmem", the front door) a module imports."""
    tree = ast.parse(path.read_text())
    package = path.parent.relative_to(PACKAGE.parent).parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = list(package[: len(package) - node.level + 1]) + (node.module.split(".") if node.module else [])
            else:
                parts = (node.module or "").split(".")
            if parts[0] != "graphmem":
                continue
            if len(parts) == 1:  # from graphmem import X / from .. import folder
                found.update(a.name if (PACKAGE / a.name).is_dir() else "graphmem" for a in node.names)
            else:
                found.add(parts[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "graphmem":
                    found.add(parts[1] if len(parts) > 1 else "graphmem")
    return {f for f in found if f != "_version"}


def test_only_the_front_door_and_the_version_are_flat():
    flat = {p.name for p in PACKAGE.iterdir() if p.is_file() and p.suffix in (".py", ".typed")}
    assert flat <= TOP_LEVEL, f"modules outside a concept folder: {sorted(flat - TOP_LEVEL)}"


@pytest.mark.parametrize("folder", folders(), ids=lambda f: f.name)
def test_each_folder_says_what_it_owns_and_imports(folder):
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text()))
    assert doc, f"{folder.name}/__init__.py has no docstring"
    lines = doc.splitlines()
    assert len(lines) >= 2 and lines[0].strip() and lines[1].strip(), f"{folder.name}: two lines expected"
    allowed(folder)


@pytest.mark.parametrize("folder", folders(), ids=lambda f: f.name)
def test_each_folder_imports_only_what_its_init_allows(folder):
    permitted = allowed(folder)
    if permitted is None:
        return
    wrong = {}
    for path in sorted(folder.glob("*.py")):
        bad = imported_folders(path) - permitted - {folder.name}
        if bad:
            wrong[path.name] = sorted(bad)
    assert not wrong, f"{folder.name} imports beyond its line ({sorted(permitted)}): {wrong}"


def test_the_rule_catches_an_import_up_the_layers(tmp_path, monkeypatch):
    """The check above can fail: a _base module importing _recall is reported."""
    fake = tmp_path / "graphmem" / "_base"
    fake.mkdir(parents=True)
    (fake / "x.py").write_text("from .._recall import fusion\nfrom . import errors\n")
    base_may = allowed(PACKAGE / "_base")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "graphmem")
    assert imported_folders(fake / "x.py") == {"_recall", "_base"}
    assert imported_folders(fake / "x.py") - base_may - {"_base"} == {"_recall"}
