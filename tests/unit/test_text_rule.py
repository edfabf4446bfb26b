"""The one rule for characters (issue 49.7), without a database: free text keeps every
character but a lone surrogate, names refuse control characters, nothing is replaced; the
command line escapes what it prints; GraphML refuses what XML cannot carry."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import networkx as nx
import pytest

from graphmem import InvalidInputError, graph_to_graphml
from graphmem._base import validate as check
from graphmem._cli.console import json_text, shown, table
from graphmem._learning.ingest import messages, speaker_name
from graphmem._memory.import_rules import node

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FREE = "esc \x1b[2J, C1 \x90 \x9b, nul \x00, del \x7f, bell \x07, cr \r, tab \t, nl \n"


def test_free_text_keeps_every_control_character():
    assert check.text(FREE, "text") == FREE
    assert check.texts([FREE, "two"], "steps") == [FREE, "two"]


@pytest.mark.parametrize("surrogate", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_a_lone_surrogate_is_refused_with_the_field_and_position(surrogate):
    for call in (check.text, check.name):
        with pytest.raises(InvalidInputError) as err:
            call(f"ab{surrogate}c", "messages[3].content")
        assert err.value.field == "messages[3].content"
        assert f"U+{ord(surrogate):04X}" in err.value.message and "position 2" in err.value.message


@pytest.mark.parametrize("control", ["\x00", "\x1b", "\x90", "\x9b", "\x7f", "\x07"])
def test_names_refuse_control_characters(control):
    with pytest.raises(InvalidInputError, match=f"U\\+{ord(control):04X}.*position 4") as err:
        check.name(f"Nora{control}Bob", "name")
    assert err.value.field == "name"
    assert not check.nameable(f"Nora{control}Bob") and check.nameable("Nora Bob")
    with pytest.raises(InvalidInputError, match="control character"):
        speaker_name(f"Nora{control}Bob", "messages[0].name")


def test_a_message_is_never_rewritten():
    [said] = messages([{"role": "user", "content": FREE, "name": "Nora  Bob"}], None, NOW)
    assert said["content"] == FREE and said["speaker"] == "Nora Bob"  # spacing of a name folded, as documented
    with pytest.raises(InvalidInputError) as err:
        messages([{"role": "user", "content": "hi", "name": "Nora\x00Bob"}], None, NOW)
    assert err.value.field == "messages[0].name"


def test_text_of_only_controls_and_spaces_is_empty():
    for empty in ("\x00", "\x1b \x90", "\u200b\x00 "):
        with pytest.raises(InvalidInputError, match="empty"):
            check.text(empty, "text")


def test_an_import_checks_free_text_and_names_by_the_writes_rules():
    props = {"id": "f1", "scope": "a", "createdAt": NOW, "text": FREE, "steps": [FREE], "statusLog": [FREE]}
    assert node("procedure", props, "records[1].props", tenant="t", dimension=None)["text"] == FREE
    with pytest.raises(InvalidInputError) as err:
        node("entity", {**props, "steps": None, "statusLog": None, "text": "Ann\x1b"}, "records[1].props", tenant="t",
             dimension=None)
    assert err.value.field == "records[1].props.text"  # an entity's text is its name
    with pytest.raises(InvalidInputError) as err:
        node("episode", {**props, "speaker": "Nora\x00Bob"}, "records[1].props", tenant="t", dimension=None)
    assert err.value.field == "records[1].props.speaker"


def test_the_command_line_prints_controls_escaped_and_json_parses_back():
    printed = shown(FREE)
    assert "\\x1b[2J" in printed and "\\x90" in printed and "\\x00" in printed and "\\x0d" in printed
    assert not any(ch in printed for ch in "\x1b\x90\x9b\x00\x7f\x07\r")
    assert "\t" in printed and "\n" in printed  # layout stays
    text = json_text({"text": FREE})
    assert not any(ch in text for ch in "\x1b\x90\x9b\x00\x7f\x07\r") and json.loads(text) == {"text": FREE}
    cells = table([{"text": "a\x1bb", "n": 1}], ["text", "n"]).splitlines()
    assert cells[1].startswith("a\\x1bb ") and len(cells[0]) <= len(cells[1]) + 1  # measured after escaping


def test_graphml_refuses_what_xml_cannot_carry_and_keeps_c1_as_references(tmp_path):
    graph = nx.MultiDiGraph()
    graph.add_node("f1", text="c1 \x90 and \x9b")
    written = graph_to_graphml(graph, tmp_path / "g.graphml")
    raw = written.read_text(encoding="utf-8")
    assert "\x90" not in raw and "&#x90;" in raw
    assert nx.read_graphml(written).nodes["f1"]["text"] == "c1 \x90 and \x9b"
    graph.add_node("f2", text="esc \x1b[2J")
    with pytest.raises(InvalidInputError, match="U\\+001B at position 4") as err:
        graph_to_graphml(graph, tmp_path / "h.graphml")
    assert err.value.field == "graph.nodes['f2'].text"
