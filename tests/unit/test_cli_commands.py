"""The memory commands' parser and transcript reader (no database), and their documentation:
every command is in docs/cli.md (its overview block and a section of its own) and named in
the README's command-line paragraph."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem._cli import commands, console, main

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_is_documented_in_docs_and_named_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("**The command line.**"):readme.index("**Neo4j Browser.**")]
    docs = (ROOT / "docs" / "cli.md").read_text()
    glance = docs[docs.index("## At a glance"):docs.index("## Common options")]
    parser_commands = set(main._parser()._subparsers._group_actions[0].choices)
    assert set(commands.NAMES) <= parser_commands
    assert "docs/cli.md" in section
    for name in commands.NAMES:
        assert re.search(rf"^graphmem {name}\b", glance, flags=re.M), name
        assert f"### `graphmem {name}" in docs or f"`graphmem {name} FILE`" in docs, name
        assert f"`{name}`" in section, name


def test_every_command_has_help(capsys):
    for name in commands.NAMES:
        with pytest.raises(SystemExit) as done:
            main.main([name, "--help"])
        assert done.value.code == 0
        assert "--tenant" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as done:
        main.main(["facts", "--as-of", "last tuesday"])
    assert done.value.code == 2
    assert "ISO-8601" in capsys.readouterr().err


def test_json_lines_become_sessions():
    text = "\n".join(json.dumps(m) for m in [
        {"role": "user", "content": "hi", "session_id": "a", "occurred_at": "2025-03-01T09:00:00Z"},
        {"role": "assistant", "content": "hello", "session_id": "a"},
        {"role": "user", "content": "again", "session_id": "b", "scope": "x/y"},
    ])
    sessions = list(console.transcript_sessions(text, "x"))
    assert [(s["scope"], s["session_id"], len(s["messages"])) for s in sessions] == [("x", "a", 2), ("x/y", "b", 1)]
    assert sessions[0]["messages"][0]["occurred_at"] == datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def test_a_json_list_of_sessions():
    text = json.dumps([{"session_id": "s1", "messages": [{"role": "user", "content": "one"}]},
                       {"session_id": "s2", "scope": "b", "messages": [{"role": "user", "content": "two"}]}])
    sessions = list(console.transcript_sessions(text, "a"))
    assert [(s["scope"], s["session_id"]) for s in sessions] == [("a", "s1"), ("b", "s2")]


@pytest.mark.parametrize("text, message", [
    ('{"role": "user", "content": "x"}', "no scope"),
    ('{"role": "user", "content": "x", "colour": "red"}\n', "unknown field 'colour'"),
    ('{"role": "user", "content": "x", "occurred_at": "soon"}', "not an ISO-8601 time"),
    ('{"role": "user"\n', "not JSON"),
])
def test_bad_transcripts_are_refused_with_a_reason(text, message):
    default = None if message == "no scope" else "a"
    with pytest.raises(console.Usage, match=message):
        list(console.transcript_sessions(text, default))


def test_table_aligns_and_cuts():
    out = console.table([{"a": "x" * 80, "b": 1}], ["a", "b"], width=10)
    header, row = out.splitlines()
    assert header.split() == ["A", "B"] and row.startswith("x" * 9 + "…")


def test_an_untimed_message_follows_the_message_before_it_across_sessions():
    text = "\n".join(json.dumps(m) for m in [
        {"role": "user", "content": "first, untimed", "session_id": "a"},
        {"role": "user", "content": "late?", "session_id": "a", "occurred_at": "2026-11-20T09:00:00Z"},
        {"role": "assistant", "content": "tomorrow", "session_id": "a"},
        {"role": "user", "content": "thanks", "session_id": "b"},
        {"role": "user", "content": "naive", "session_id": "b", "occurred_at": "2026-11-21T08:00:00"},
    ])
    sessions = list(console.transcript_sessions(text, "x"))
    times = [m.get("occurred_at") for s in sessions for m in s["messages"]]
    nine = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    assert times == [None, nine, nine + timedelta(microseconds=1), nine + timedelta(microseconds=2),
                     datetime(2026, 11, 21, 8, tzinfo=timezone.utc)]
    assert [s["where"] for s in sessions] == [["line 1", "line 2", "line 3"], ["line 4", "line 5"]]


@pytest.mark.parametrize("text, where", [
    ('{"role": "user", "content": "a"}\n\n{"role": "user", "content": "b}\n', "line 3, column 29: not JSON (Unterminated string starting at line 3, column 29)"),
    ('[\n {"role": "user",\n  "content": "a" "b"}\n]\n', "line 3, column 18: not JSON (Expecting ',' delimiter)"),
    ('{"role": "user", "content": "a"}\n{"role": "user", "content": "b", }\n', "line 2, column 34: not JSON"),
])
def test_malformed_json_is_refused_with_its_line_and_column(text, where):
    with pytest.raises(console.Usage) as refused:
        list(console.transcript_sessions(text, "x"))
    assert str(refused.value).startswith(where)


def test_errors_about_an_item_name_the_line_it_came_from():
    from graphmem import InvalidInputError
    from graphmem._cli.console import located

    found = located(InvalidInputError("records[2].type", "'LIKES' is not one of CITES"), ["line 1", "line 2", "line 4"],
                    "records", "a.jsonl")
    assert str(found) == "a.jsonl: line 4, type: 'LIKES' is not one of CITES"
    whole = located(InvalidInputError("records[0]", "must be a JSON object"), ["line 1"], "records", "a.jsonl")
    assert str(whole) == "a.jsonl: line 1: must be a JSON object"
    assert located(InvalidInputError("batch_size", "must be positive"), ["line 1"], "records", "a.jsonl") is None


def test_erase_takes_no_scope_from_the_environment(monkeypatch):
    """GRAPHMEM_SCOPE is the scope of every other command; erase deletes only what its command
    line names (else `erase --yes` would erase that scope, and `erase --all` would be refused)."""
    monkeypatch.setenv("GRAPHMEM_SCOPE", "acme/support/ann")
    assert main._parser().parse_args(["facts"]).scope == "acme/support/ann"
    assert main._parser().parse_args(["erase", "--yes"]).scope is None
    assert main._parser().parse_args(["erase", "--all", "--yes"]).scope is None
    assert main._parser().parse_args(["erase", "--scope", "acme/x", "--yes"]).scope == "acme/x"


def test_erase_and_remember_options():
    args = main._parser().parse_args(["erase", "--all", "--yes"])
    assert (args.all, args.yes, args.id, args.scope) == (True, True, None, None)
    args = main._parser().parse_args(["remember", "Ann likes tea", "--scope", "a", "--no-single-valued",
                                      "--valid-from", "2024-01-01"])
    assert (args.single_valued, args.provenance) == (False, "manual")
    assert args.valid_from == datetime(2024, 1, 1, tzinfo=timezone.utc)
