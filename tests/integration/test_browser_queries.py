"""Every query of the Neo4j Browser kit (browser/queries) compiles against the real Neo4j and
returns the graph it promises on a small memory written through the public API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from neo4j.graph import Node, Path, Relationship

from graphmem._cli import sample
from graphmem._server import browser

from ..browser_story import SCOPE, write_story

SAMPLE = {"tenant": "t", "subject": "alice", "scope": "acme", "since": datetime(2026, 1, 1, tzinfo=timezone.utc),
          "insight": "i", "entity": "alice", "procedure": "p", "limit": 50}
FRIENDS = "friends"


@pytest.mark.parametrize("name", browser.query_names())
def test_every_browser_query_compiles(driver, schema, name):
    query = browser.query(name)
    assert set(query.parameters) <= set(SAMPLE), f"add a sample value for {set(query.parameters) - set(SAMPLE)}"
    driver.execute_query("EXPLAIN " + query.text, {p: SAMPLE[p] for p in query.parameters})


def graph_of(records) -> tuple[dict[str, Node], set[str]]:
    """Every node and relationship type a Browser graph view would draw from these rows."""
    nodes, types = {}, set()

    def visit(value):
        if isinstance(value, Node):
            nodes[value.element_id] = value
        elif isinstance(value, Relationship):
            types.add(value.type)
            visit(value.start_node)
            visit(value.end_node)
        elif isinstance(value, Path):
            for rel in value.relationships:
                visit(rel)
            for node in value.nodes:
                visit(node)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    for record in records:
        for value in record.values():
            visit(value)
    return nodes, types


def run(driver, name, **params):
    query = browser.query(name)
    records, _, _ = driver.execute_query(query.text, params)
    return records


def test_browser_queries_draw_the_story(driver, memory):
    started = datetime.now(timezone.utc) - timedelta(seconds=1)
    story = write_story(memory)
    tenant = memory.tenant

    nodes, types = graph_of(run(driver, "timeline", tenant=tenant, subject="Alice"))
    texts = {n["text"] for n in nodes.values() if "Fact" in n.labels}
    assert {"Alice lives in Paris", "Alice moved to Berlin", "Alice moved to Munich"} <= texts
    assert {"SUPERSEDES", "ABOUT"} <= types
    assert {n["tenant"] for n in nodes.values()} == {tenant}
    by_id, _ = graph_of(run(driver, "timeline", tenant=tenant, subject=story.alice))
    assert set(by_id) == set(nodes)  # the entity id finds the same timeline as its name

    nodes, types = graph_of(run(driver, "changes_since", tenant=tenant, scope="acme", since=started))
    assert set(story.facts) <= {n["id"] for n in nodes.values()} and "SUPERSEDES" in types
    later, _ = graph_of(run(driver, "changes_since", tenant=tenant, scope="acme",
                            since=datetime.now(timezone.utc) + timedelta(hours=1)))
    assert later == {}

    records = run(driver, "scope_tree", tenant=tenant)
    assert {"acme", "acme/support", SCOPE} <= {r["s"]["path"] for r in records}
    assert {r["s"]["path"]: r["memories"] for r in records}["acme"] == 0

    nodes, types = graph_of(run(driver, "insight_evidence", tenant=tenant, insight=story.insight))
    assert {"Alice lives in Paris", "Alice moved to Munich", "Alice moves often"} <= {n["text"] for n in nodes.values()}
    assert "CITES" in types

    records = run(driver, "entity_neighbourhood", tenant=tenant, entity="Alice", limit=50)
    nodes, types = graph_of(records)
    assert "Acme" in {n.get("name") for n in nodes.values()} and {"RELATES", "ABOUT"} <= types
    believed = {p.start_node["text"] for p in records[0]["facts"]}
    assert "Alice moved to Berlin" not in believed and "Alice moved to Munich" in believed

    records = run(driver, "procedure_outcomes", tenant=tenant, procedure=story.procedure)
    assert records[0]["successes"] == 1 and len(records[0]["outcomes"]) == 1
    assert graph_of(records)[1] == {"OUTCOME"}

    assert run(driver, "same_as_queue", tenant=tenant, limit=50) == []

    sample.store(memory, FRIENDS)  # a conversation stored without a model
    records = run(driver, "conversation", tenant=tenant, scope=FRIENDS, limit=30)
    nodes, types = graph_of(records)
    assert len(records) == 29 and types == {"SPOKE", "MENTIONS"}
    people = {n["name"] for n in nodes.values() if "Entity" in n.labels}
    assert {"Samira", "Nora", "Tariq", "Porto"} <= people
    for record in records:  # each turn said by one of the two friends; each name at its span
        assert [p.start_node["name"] for p in record["said"]] in (["Samira"], ["Nora"])
        text = record["ep"]["text"]
        for path in record["named"]:
            link = path.relationships[0]
            spans = [text[a:b] for a, b in zip(link["starts"], link["ends"])]
            names = {path.end_node["name"], *path.end_node["aliases"]}
            assert spans and all(s in names for s in spans), (spans, names)
    # another tenant sees none of it
    assert graph_of(run(driver, "timeline", tenant=tenant + "-other", subject="Alice"))[0] == {}
