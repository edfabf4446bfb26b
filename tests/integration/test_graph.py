"""memory.graph(): the memory graph as networkx in one query -- nodes, edges, both time
axes, the tenant wall -- and its GraphML / JSON forms."""

from __future__ import annotations

import networkx as nx
import pytest

from graphmem import InvalidInputError, Memory, graph_from_json, graph_to_graphml, graph_to_json

from .helpers import Clock, utc

SCOPE = "acme/support/ann"


@pytest.fixture
def clock():
    return Clock(utc(2025, 1, 1))


@pytest.fixture
def mem(neo4j, schema, embedder, tenant, clock):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m


def small_memory(mem, clock):
    """Ann, Acme and Berlin; an episode, facts derived from it, a move, a correction, an insight."""
    said = mem.add_episode("Ann: I work at Acme and live in Paris", scope=SCOPE, occurred_at=utc(2024, 12, 30))
    ann = mem.upsert_entity("Ann", type="person", scope="acme", aliases=["Annie"])
    acme = mem.upsert_entity("Acme", type="organisation", scope="acme")
    paris = mem.upsert_entity("Paris", type="place", scope="acme")
    berlin = mem.upsert_entity("Berlin", type="place", scope="acme")
    works = mem.relate(ann.id, "works_at", acme.id, scope=SCOPE, valid_from=utc(2020))
    lives = mem.relate(ann.id, "lives_in", paris.id, scope=SCOPE, valid_from=utc(2021))
    likes = mem.remember("Ann likes green tea", scope=SCOPE, provenance="extraction", derived_from=[said.id])
    clock.tick(days=10)
    moved = mem.relate(ann.id, "lives_in", berlin.id, scope=SCOPE, valid_from=utc(2025, 1, 5))
    clock.tick(days=10)
    fixed = mem.correct(likes.id, "Ann likes black tea")
    clock.tick(days=1)
    insight = mem.add_insight("Ann is settled at Acme", cites=[works.id, moved.id], scope=SCOPE)
    return {"said": said, "ann": ann, "acme": acme, "paris": paris, "berlin": berlin, "works": works,
            "lives": lives, "likes": likes, "moved": moved, "fixed": fixed, "insight": insight}


def edge_types(graph, source, target):
    return {d["type"] for d in graph.get_edge_data(source, target, default={}).values()}


def test_nodes_and_edges_carry_their_attributes(mem, clock):
    m = small_memory(mem, clock)
    graph = mem.graph(scope=SCOPE)
    assert isinstance(graph, nx.MultiDiGraph)
    # believed now and true now: the Paris fact is closed in valid time, the tea fact corrected
    assert m["lives"].id not in graph and m["likes"].id not in graph
    for key in ("works", "moved", "fixed", "insight", "said", "ann", "acme", "berlin"):
        assert m[key].id in graph, key
    moved = graph.nodes[m["moved"].id]
    assert moved["kind"] == "fact" and moved["predicate"] == "lives_in" and moved["object"] == m["berlin"].id
    assert moved["valid_from"] == utc(2025, 1, 5) and moved["created_at"] == utc(2025, 1, 11)
    assert moved["provenance"] == "manual" and moved["status"] == "active" and "embedding" not in moved
    assert graph.nodes[m["ann"].id]["name"] == "Ann" and graph.nodes[m["ann"].id]["type"] == "person"
    insight = graph.nodes[m["insight"].id]
    assert insight["salience"] == 2 and insight["status"] == "quarantined"
    assert edge_types(graph, m["insight"].id, m["works"].id) == {"CITES"}
    assert edge_types(graph, m["moved"].id, m["ann"].id) == {"ABOUT"}
    assert graph.get_edge_data(m["moved"].id, m["ann"].id)["ABOUT"]["role"] == "subject"
    relates = graph.get_edge_data(m["ann"].id, m["berlin"].id)
    [(key, data)] = relates.items()
    assert data["type"] == "RELATES" and data["predicate"] == "lives_in" and data["fact_id"] == m["moved"].id
    assert m["paris"].id in graph and not graph.has_edge(m["ann"].id, m["paris"].id)  # the closed fact's projection
    # with invalidated records and at an earlier valid time: the whole story, with SUPERSEDES
    full = mem.graph(scope=SCOPE, include_invalidated=True, valid_at=utc(2025, 1, 1))
    assert m["likes"].id in full and m["lives"].id in full
    assert full.nodes[m["likes"].id]["invalidation_reason"] == "corrected"
    assert edge_types(full, m["fixed"].id, m["likes"].id) == {"SUPERSEDES"}
    assert edge_types(full, m["likes"].id, m["said"].id) == {"DERIVED_FROM"}
    assert full.has_edge(m["ann"].id, m["paris"].id)


def test_kinds_and_scope_narrow_the_graph(mem, clock):
    m = small_memory(mem, clock)
    entities = mem.graph(scope=SCOPE, kinds=["entity"])
    assert {d["kind"] for _, d in entities.nodes(data=True)} == {"entity"}
    assert entities.has_edge(m["ann"].id, m["acme"].id)  # RELATES joins two entities
    top = mem.graph(scope="acme")  # the facts live one level down: invisible from above
    assert set(top) == {m[k].id for k in ("ann", "acme", "paris", "berlin")}
    with pytest.raises(InvalidInputError) as err:
        mem.graph(scope=SCOPE, kinds=["gossip"])
    assert err.value.field == "kinds"


def test_time_travel_shows_what_was_believed_then(mem, clock):
    m = small_memory(mem, clock)
    before_move = mem.graph(scope=SCOPE, as_of=utc(2025, 1, 5), valid_at=utc(2025, 1, 3))
    assert m["lives"].id in before_move and m["moved"].id not in before_move
    assert "valid_to" not in before_move.nodes[m["lives"].id]  # the close was recorded later
    assert before_move.has_edge(m["ann"].id, m["paris"].id)
    assert m["likes"].id in before_move and m["fixed"].id not in before_move and m["insight"].id not in before_move
    assert "invalidated_at" not in before_move.nodes[m["likes"].id]
    # believed after the correction, but true in 2024: Paris, and no tea fact (corrected by then)
    later = mem.graph(scope=SCOPE, valid_at=utc(2024, 6, 1))
    assert m["lives"].id in later and m["moved"].id not in later and m["likes"].id not in later


def test_another_tenant_sees_nothing(mem, clock, neo4j, embedder):
    m = small_memory(mem, clock)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=mem.tenant + "-other", embedder=embedder) as other:
        other.remember("Bob likes coffee", scope=SCOPE)
        theirs = other.graph(scope=SCOPE, include_invalidated=True)
        assert [d["text"] for _, d in theirs.nodes(data=True)] == ["Bob likes coffee"]
        assert theirs.number_of_edges() == 0
        other.erase(scope="acme")
    ours = mem.graph(scope=SCOPE, include_invalidated=True)
    assert "Bob likes coffee" not in {d.get("text") for _, d in ours.nodes(data=True)}
    assert m["ann"].id in ours


def test_graphml_and_json_round_trip(mem, clock, tmp_path):
    small_memory(mem, clock)
    graph = mem.graph(scope=SCOPE, include_invalidated=True)
    path = graph_to_graphml(graph, tmp_path / "memory.graphml")
    back = nx.read_graphml(path, force_multigraph=True)
    assert set(back.nodes) == set(graph.nodes)
    assert back.number_of_edges() == graph.number_of_edges()
    for node, data in graph.nodes(data=True):
        assert back.nodes[node]["kind"] == data["kind"]
        assert back.nodes[node]["created_at"] == data["created_at"].isoformat()
    tags = [d for _, d in graph.nodes(data=True) if d.get("aliases")]
    assert tags and all("Annie" in back.nodes[n]["aliases"] for n, d in graph.nodes(data=True) if d.get("aliases"))
    text = graph_to_json(graph)
    again = graph_from_json(text)
    assert dict(again.nodes(data=True)) == dict(graph.nodes(data=True))
    assert sorted(again.edges(keys=True, data=True), key=repr) == sorted(graph.edges(keys=True, data=True), key=repr)
    assert again.graph["as_of"] == graph.graph["as_of"]


def test_history_keeps_every_version(mem, clock):
    m = small_memory(mem, clock)
    everything = mem.graph(scope=SCOPE, history=True)
    assert {m[k].id for k in ("lives", "likes", "moved", "fixed", "works")} <= set(everything)
    assert everything.has_edge(m["ann"].id, m["paris"].id)
    early = mem.graph(scope=SCOPE, history=True, as_of=utc(2025, 1, 2))
    assert m["lives"].id in early and m["moved"].id not in early  # recorded later
