"""The Neo4j Browser kit (browser/style.grass, browser/queries) and its loader
graphmem/_server/browser.py. Nothing here starts Neo4j: tests/integration/test_browser_queries.py
EXPLAINs and runs the queries, tests/launcher/test_browser.py renders them in Chromium."""

from __future__ import annotations

import json
import re

import pytest

from graphmem import LauncherError
from graphmem._cli.main import main
from graphmem._server import browser

KINDS = {"Fact": "{text}", "Entity": "{name}", "Episode": "{text}", "Insight": "{text}", "Procedure": "{text}"}


def browser_split(command: str) -> list[str]:
    """How Browser cuts browser.post_connect_cmd into commands: at ';' outside quotes."""
    protected = re.sub(r"(`[^`]*?`|\"[^\"]*?\"|'[^']*?')", lambda m: m.group(0).replace(";", "\0"), command)
    return [part.strip().replace("\0", ";") for part in protected.split(";") if part.strip()]


def test_parse_grass_keeps_quoted_braces_and_semicolons_and_drops_comments():
    rules = browser.parse_grass("""
        /* a comment { with braces; } */
        node { color: #FFF; }
        node.Fact {
          caption: '{text}';
          note: "a; b";
        }
        relationship { caption: '<type>' }
    """)
    assert rules == {"node": {"color": "#FFF"}, "node.Fact": {"caption": "{text}", "note": "a; b"},
                     "relationship": {"caption": "<type>"}}


@pytest.mark.parametrize("text", ["node { color: #FFF;", "node { caption: '{text}; }", "node { color }", "stray"])
def test_parse_grass_rejects_broken_style(text):
    with pytest.raises(LauncherError):
        browser.parse_grass(text)


def test_every_kind_has_a_colour_and_its_caption_and_edges_show_their_type():
    style = browser.style()
    for kind, caption in KINDS.items():
        assert style[f"node.{kind}"]["caption"] == caption
        assert re.fullmatch(r"#[0-9A-F]{6}", style[f"node.{kind}"]["color"])
    colours = [style[f"node.{kind}"]["color"] for kind in KINDS]
    assert len(set(colours)) == len(colours)
    assert style["relationship"]["caption"] == "<type>"
    # Browser merges every rule matching a node's labels in order, later ones winning, and adds
    # a default rule (at the end) for a label no rule colours: :Memory needs its own, first
    order = list(style)
    assert style["node.Memory"]["color"] and style["node.Memory"]["caption"]
    assert all(order.index("node.Memory") < order.index(f"node.{kind}") for kind in KINDS)


def test_style_command_survives_browsers_post_connect_split_as_one_command():
    command = browser.style_command(leading_colon=False)
    assert browser_split(command) == [command]
    assert json.loads(command.removeprefix("style ")) == browser.style()


def test_cli_style_prints_the_command_to_paste(capsys):
    assert main(["neo4j", "style"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(":style {") and json.loads(out.removeprefix(":style "))["node.Fact"]["caption"] == "{text}"


WANTED_QUERIES = {"timeline", "changes_since", "insight_evidence", "scope_tree", "entity_neighbourhood",
                  "same_as_queue", "procedure_outcomes"}


def test_the_queries_people_need_are_shipped():
    assert WANTED_QUERIES <= set(browser.query_names())


@pytest.mark.parametrize("name", sorted(WANTED_QUERIES))
def test_each_query_documents_a_param_command_for_every_parameter_and_keeps_to_a_tenant(name):
    query = browser.query(name)
    assert "tenant" in query.parameters
    documented = set(re.findall(r"^:param (\w+) => \S", query.doc, re.MULTILINE))
    assert documented == set(query.parameters), name
    assert len([line for line in query.doc.splitlines() if not line.startswith(":param")]) >= 1


def test_an_unknown_query_is_a_clear_error():
    with pytest.raises(LauncherError, match="no Browser query"):
        browser.query("nope")
