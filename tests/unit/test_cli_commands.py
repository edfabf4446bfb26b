"""The memory commands' parser and transcript reader (no database), and their documentation:
every command is in the README's command-line section and in docs/cli.md."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphmem import _cli, _commands

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_is_documented_in_the_readme_and_docs():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Command line"):readme.index("## Notebooks")]
    docs = (ROOT / "docs" / "cli.md").read_text()
    parser_commands = set(_cli._parser()._subparsers._group_actions[0].choices)
    assert set(_commands.NAMES) <= parser_commands
    for name in _commands.NAMES:
        assert re.search(rf"^graphmem {name}\b", section, flags=re.M), name
        assert f"### `graphmem {name}" in docs or f"`graphmem {name} FILE`" in docs, name


def test_every_command_has_help(capsys):
    for name in _commands.NAMES:
        with pytest.raises(SystemExit) as done:
            _cli.main([name, "--help"])
        assert done.value.code == 0
        assert "--tenant" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as done:
        _cli.main(["facts", "--as-of", "last tuesday"])
    assert done.value.code == 2
    assert "ISO-8601" in capsys.readouterr().err


def test_json_lines_become_sessions():
    text = "\n".join(json.dumps(m) for m in [
        {"role": "user", "content": "hi", "session_id": "a", "occurred_at": "2025-03-01T09:00:00Z"},
        {"role": "assistant", "content": "hello", "session_id": "a"},
        {"role": "user", "content": "again", "session_id": "b", "scope": "x/y"},
    ])
    sessions = list(_commands._sessions(text, "x"))
    assert [(s["scope"], s["session_id"], len(s["messages"])) for s in sessions] == [("x", "a", 2), ("x/y", "b", 1)]
    assert sessions[0]["messages"][0]["occurred_at"] == datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def test_a_json_list_of_sessions():
    text = json.dumps([{"session_id": "s1", "messages": [{"role": "user", "content": "one"}]},
                       {"session_id": "s2", "scope": "b", "messages": [{"role": "user", "content": "two"}]}])
    sessions = list(_commands._sessions(text, "a"))
    assert [(s["scope"], s["session_id"]) for s in sessions] == [("a", "s1"), ("b", "s2")]


@pytest.mark.parametrize("text, message", [
    ('{"role": "user", "content": "x"}', "no scope"),
    ('{"role": "user", "content": "x", "colour": "red"}\n', "unknown field 'colour'"),
    ('{"role": "user", "content": "x", "occurred_at": "soon"}', "not an ISO-8601 time"),
    ('{"role": "user"\n', "not JSON"),
])
def test_bad_transcripts_are_refused_with_a_reason(text, message):
    default = None if message == "no scope" else "a"
    with pytest.raises(_commands.Usage, match=message):
        list(_commands._sessions(text, default))


def test_table_aligns_and_cuts():
    out = _commands._table([{"a": "x" * 80, "b": 1}], ["a", "b"], width=10)
    header, row = out.splitlines()
    assert header.split() == ["A", "B"] and row.startswith("x" * 9 + "…")
