"""docs/design-notes.md: every note opens with its status, a superseded note names a note
that exists, and the contents are what tools/notes_index.py makes of the notes."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("graphmem_tools_notes_index", ROOT / "tools" / "notes_index.py")
notes_index = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = notes_index  # its dataclass looks its module up
_spec.loader.exec_module(notes_index)


def test_every_note_has_a_status_and_the_contents_are_current():
    text = notes_index.NOTES.read_text()
    topics = notes_index.read(text)
    names = [n.name for _, notes in topics for n in notes]
    assert len(names) > 90 and len(set(names)) == len(names)
    assert [n for n in names if next(x for _, ns in topics for x in ns if x.name == n).status is None] == []
    assert notes_index.render(text) == text, "run python tools/notes_index.py"


def test_a_superseded_note_names_one_that_exists():
    text = notes_index.NOTES.read_text()
    names = {n.name for _, notes in notes_index.read(text) for n in notes}
    for line in text.splitlines():
        if line.startswith("*Status: superseded"):
            named = re.findall(r"\]\(#([\w-]+)\)", line)
            assert named and set(named) <= names, line


def test_the_contents_follow_the_notes():
    made = notes_index.contents([("A topic, here", [notes_index.Note("one", "current"),
                                                     notes_index.Note("two", "superseded")])])
    assert "- [A topic, here](#a-topic-here): [one](#one) · [two](#two) (superseded)" in made
