"""``graphmem demo`` (what ``make demo`` runs) against a real Neo4j: it tells the story and
leaves its memories in tenant ``demo`` for Neo4j Browser; running it again starts clean.
The graph it leaves is what Browser's queries (browser/queries) and the README's query
show: entities, RELATES edges between them, facts ABOUT them, a move and a correction."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from graphmem import Memory
from graphmem._server import browser

from .conftest import GRAPHMEM
from .test_browser_queries import graph_of, run

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_demo_tells_its_story_and_keeps_a_graph_browser_shows(neo4j, schema, driver):
    env = dict(os.environ, NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password)
    for _ in range(2):  # a second run starts from a clean slate
        done = subprocess.run([str(GRAPHMEM), "demo"], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert "Alice moved to Munich" in done.stdout and "tenant 'demo'" in done.stdout
    assert neo4j.password not in done.stdout + done.stderr

    nodes, types = graph_of(run(driver, "timeline", tenant="demo", subject="Alice"))
    facts = {n["text"]: n for n in nodes.values() if "Fact" in n.labels}
    assert {"Alice lives in Paris", "Alice moved to Berlin", "Alice moved to Munich", "Alice works at Acme"} <= set(facts)
    assert facts["Alice moved to Berlin"]["invalidationReason"] == "corrected"
    assert {n["name"] for n in nodes.values() if "Entity" in n.labels} == {"Alice", "Acme", "Paris", "Berlin", "Munich"}
    assert {"SUPERSEDES", "ABOUT"} <= types
    records, _, _ = driver.execute_query(
        "MATCH (:Fact {tenant: 'demo', text: 'Alice moved to Munich'})-[s:SUPERSEDES]->(old:Fact) "
        "RETURN old.text AS old, s.reason AS reason")
    assert [(r["old"], r["reason"]) for r in records] == [("Alice moved to Berlin", "corrected")]

    nodes, types = graph_of(run(driver, "entity_neighbourhood", tenant="demo", entity="Alice", limit=50))
    assert {"RELATES", "ABOUT"} <= types  # the current relations, and the believed facts about Alice
    assert {n["name"] for n in nodes.values() if "Entity" in n.labels} >= {"Alice", "Acme", "Munich", "Paris"}
    scopes = {r["s"]["path"]: r["memories"] for r in run(driver, "scope_tree", tenant="demo")}
    assert {"acme", "acme/support", "acme/support/alice"} <= set(scopes) and scopes["acme"] == 4  # Acme and 3 cities

    # the query the README offers for Browser draws Alice's relations to the other entities
    [query] = re.findall(r"^MATCH p=\(:Entity.*RETURN p$", README.read_text(), flags=re.M)
    records, _, _ = driver.execute_query(query.replace("$tenant", "'demo'") if "$tenant" in query else query)
    drawn = [(p.start_node["name"], p.relationships[0]["predicate"], p.end_node["name"]) for p in
             (r["p"] for r in records) if p.start_node["tenant"] == "demo"]
    assert {("Alice", "lives_in", "Paris"), ("Alice", "works_at", "Acme"), ("Alice", "lives_in", "Munich")} <= set(drawn)

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant="demo", embedder=None) as demo:
        history = demo.history(subject="Alice", predicate="lives_in", scope="acme/support/alice")
        assert [f.object_name for f in history] == ["Paris", "Berlin", "Munich"]
        assert len(browser.query_names()) >= 7
        demo.erase(scope="acme")
