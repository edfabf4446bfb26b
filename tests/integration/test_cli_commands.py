"""The memory commands of the ``graphmem`` console script, run as a subprocess against the
test Neo4j (the ``cli`` fixture of tests/integration/conftest.py): ingest, recall, context,
facts, history, forget, stats, graph, erase, and the export -> erase -> import round trip
that must give back the same graph."""

from __future__ import annotations

import json
import re
from collections import Counter

import networkx as nx

from .helpers import utc

SCOPE = "acme/support/ann"


def test_ingest_then_read_back(cli, tmp_path, memory):
    transcript = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "content": "My kettle arrived dented", "occurred_at": "2025-03-02T09:00:00Z", "session_id": "s1"},
        {"role": "assistant", "content": "Sorry! A refund is on its way", "session_id": "s1"},
        {"role": "user", "content": "The toaster is cracked too", "occurred_at": "2025-03-09T09:00:00Z", "session_id": "s2"},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = cli("ingest", str(transcript), "--scope", SCOPE, "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["sessions"] == 2 and summary["messages"] == 3 and summary["episodes"] == 3
    # how many, how long, the rate: on standard error, so --json's output stays one document
    assert re.search(r"^ingest: 3 messages in [\d.]+ s, [\d,]+ messages/s$", done.stderr, re.M), done.stderr
    episodes = [n for n in memory.graph(scope=SCOPE) if memory.get(n).kind == "episode"]
    assert len(episodes) == 3
    assert {memory.get(e).session_id for e in episodes} == {"s1", "s2"}

    found = cli("recall", "dented kettle", "--scope", SCOPE, "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["record"]["text"] == "My kettle arrived dented"
    table = cli("recall", "dented kettle", "--scope", SCOPE)
    assert table.stdout.splitlines()[0].split() == ["RANK", "SCORE", "KIND", "ID", "TEXT"]
    assert "My kettle arrived dented" in table.stdout
    assert cli("recall", "kettle", "--scope", "elsewhere").returncode == 1  # nothing there
    context = cli("context", "kettle", "--scope", SCOPE)
    assert context.returncode == 0 and "kettle" in context.stdout

    stats = cli("stats", "--json")
    assert stats.returncode == 0
    # the three turns, and their speakers' entities (the user and the assistant, by role)
    assert [(r["scope"], r["kind"], r["total"]) for r in json.loads(stats.stdout)] == [
        (SCOPE, "entity", 2), (SCOPE, "episode", 3)]


def test_facts_history_forget_and_bad_input(cli, memory):
    memory.remember("Ann lives in Paris", scope=SCOPE, subject="ann", predicate="lives_in", object="Paris",
                    valid_from=utc(2020))
    berlin = memory.remember("Ann moved to Berlin", scope=SCOPE, subject="ann", predicate="lives_in", object="Berlin",
                             valid_from=utc(2024))
    now = cli("facts", "--scope", SCOPE, "--json")
    assert [f["object"] for f in json.loads(now.stdout)] == ["Berlin"]
    then = cli("facts", "--scope", SCOPE, "--valid-at", "2021-06-01")
    assert then.returncode == 0 and "Paris" in then.stdout and "Berlin" not in then.stdout
    history = cli("history", "ann", "--scope", SCOPE)
    assert history.returncode == 0
    paris_line = next(line for line in history.stdout.splitlines() if "Paris" in line)
    assert f"{berlin.id} (changed)" in paris_line
    assert cli("history", "nobody", "--scope", SCOPE).returncode == 1

    forgot = cli("forget", "--scope", SCOPE, "--id", berlin.id, "--json")
    assert forgot.returncode == 0 and json.loads(forgot.stdout) == {"forgotten": 1}
    assert memory.get(berlin.id).invalidation_reason == "forgotten"
    assert cli("forget", "--scope", SCOPE, "--id", berlin.id).returncode == 1  # already forgotten

    missing_scope = cli("facts")
    assert missing_scope.returncode == 2 and "--scope" in missing_scope.stderr
    bad_scope = cli("facts", "--scope", "acme//ann")
    assert bad_scope.returncode == 2 and "empty segment" in bad_scope.stderr
    assert cli("facts", "--scope", SCOPE, "--as-of", "yesterday").returncode == 2
    assert cli("frobnicate").returncode == 2


def test_the_facts_table_names_entities_and_json_keeps_their_ids(cli, memory):
    alice = memory.upsert_entity("Alice", type="person", scope=SCOPE)
    acme = memory.upsert_entity("Acme", type="organization", scope=SCOPE)
    works = memory.relate(alice, "works_at", acme, scope=SCOPE, valid_from=utc(2020), text="Alice works at Acme")
    shown = cli("facts", "--scope", SCOPE)
    line = next(row for row in shown.stdout.splitlines() if works.id in row)
    assert line.split()[1:4] == ["Alice", "works_at", "Acme"] and alice.id not in shown.stdout
    history = cli("history", "Alice", "--scope", SCOPE)
    assert "Acme" in history.stdout and acme.id not in history.stdout
    [fact] = json.loads(cli("facts", "--scope", SCOPE, "--json").stdout)
    assert (fact["subject"], fact["subject_name"], fact["object"], fact["object_name"]) == (
        alice.id, "Alice", acme.id, "Acme")


def test_neo4j_unavailable_exits_3(cli):
    down = cli("stats", env_extra={"NEO4J_URI": "bolt://127.0.0.1:9"})
    assert down.returncode == 3, down.stderr
    assert "Neo4j unavailable" in down.stderr


def build_story(memory):
    said = memory.add_episode("Ann: I work at Acme and live in Paris", scope=SCOPE, occurred_at=utc(2024, 12, 30))
    ann = memory.upsert_entity("Ann", type="person", scope="acme", aliases=["Annie"], properties={"team": "blue"})
    acme = memory.upsert_entity("Acme", type="organisation", scope="acme")
    paris = memory.upsert_entity("Paris", type="place", scope="acme")
    berlin = memory.upsert_entity("Berlin", type="place", scope="acme")
    works = memory.relate(ann.id, "works_at", acme.id, scope=SCOPE, valid_from=utc(2020))
    memory.relate(ann.id, "lives_in", paris.id, scope=SCOPE, valid_from=utc(2021))
    moved = memory.relate(ann.id, "lives_in", berlin.id, scope=SCOPE, valid_from=utc(2025, 1, 5))
    tea = memory.remember("Ann likes green tea", scope=SCOPE, provenance="extraction", derived_from=[said.id])
    memory.correct(tea.id, "Ann likes black tea")
    memory.add_insight("Ann is settled at Acme", cites=[works.id, moved.id], scope=SCOPE)
    memory.add_procedure("Offer a refund first", scope="acme/support", trigger="damaged delivery",
                         steps=["apologise", "refund {item}"], variables=["item"])
    memory.remember("Bob likes coffee", scope="acme/support/bob")
    return moved


def records(path):
    nodes, edges = {}, Counter()
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["record"] == "node":
            nodes[record["id"]] = record
        elif record["record"] == "edge":
            edges[(record["type"], record["source"], record["target"], json.dumps(record["props"], sort_keys=True))] += 1
    return nodes, edges


def test_export_erase_import_gives_the_same_graph(cli, memory, tmp_path):
    moved = build_story(memory)
    before_graph = memory.graph(scope=SCOPE, include_invalidated=True, kinds=None)
    first = tmp_path / "first.jsonl"
    exported = cli("export", "-o", str(first))
    assert exported.returncode == 0, exported.stderr
    nodes, edges = records(first)
    kinds = Counter(n["kind"] for n in nodes.values())
    # four entities the story writes, and two its episode gives (its speaker, and a name it mentions)
    assert kinds == {"entity": 6, "fact": 6, "episode": 1, "insight": 1, "procedure": 1}
    types = Counter(key[0] for key in edges.elements())
    assert {"ABOUT", "RELATES", "SUPERSEDES", "CITES", "DERIVED_FROM", "SPOKE", "MENTIONS"} <= set(types)
    assert all(n["props"]["embedding"] for n in nodes.values() if n["kind"] == "fact")
    assert all("$datetime" in n["props"]["createdAt"] for n in nodes.values())

    refused = cli("erase", "--all")  # stdin is not a terminal: --yes is required
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert len(memory.counts()) > 0
    erased = cli("erase", "--all", "--yes", "--json")
    assert erased.returncode == 0, erased.stderr
    report = json.loads(erased.stdout)
    assert report["erased"] == len(nodes)
    assert {k: n for k, n in report["kinds"].items() if k != "scope"} == kinds and report["kinds"]["scope"] >= 1
    assert cli("stats").returncode == 1
    assert memory.graph(scope=SCOPE, include_invalidated=True).number_of_nodes() == 0

    imported = cli("import", str(first), "--batch-size", "3", "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["nodes"] == len(nodes)
    lines_in = len(first.read_text().splitlines())
    assert re.search(rf"^import: {lines_in:,} records in [\d.]+ s, [\d,]+ records/s$", imported.stderr, re.M)
    assert json.loads(imported.stdout)["edges"] == sum(edges.values())
    again = cli("import", str(first))  # the ids are taken now
    assert again.returncode == 4 and "already holds" in again.stderr

    second = tmp_path / "second.jsonl"
    assert cli("export", "-o", str(second)).returncode == 0
    nodes_after, edges_after = records(second)
    assert nodes_after == nodes  # ids, the four timestamps, embeddings: every property
    assert edges_after == edges
    after_graph = memory.graph(scope=SCOPE, include_invalidated=True)
    assert dict(after_graph.nodes(data=True)) == dict(before_graph.nodes(data=True))
    assert sorted(after_graph.edges(keys=True, data=True), key=repr) == sorted(before_graph.edges(keys=True, data=True), key=repr)
    assert {s["path"]: s["memories"] for s in memory.scopes()}["acme"] == 4
    # the imported memory works: recall and supersession see the imported records
    assert memory.recall("black tea", scope=SCOPE, k=1)[0].record.text == "Ann likes black tea"
    assert [f.id for f in memory.facts(scope=SCOPE, predicate="lives_in")] == [moved.id]


def test_scope_export_and_graph_file(cli, memory, tmp_path):
    build_story(memory)
    part = tmp_path / "bob.jsonl"
    assert cli("export", "--scope", "acme/support/bob", "-o", str(part)).returncode == 0
    nodes, edges = records(part)
    assert [n["props"]["text"] for n in nodes.values()] == ["Bob likes coffee"] and not edges
    out = tmp_path / "ann.graphml"
    drawn = cli("graph", "--scope", SCOPE, "--format", "graphml", "-o", str(out))
    assert drawn.returncode == 0, drawn.stderr
    graph = nx.read_graphml(out, force_multigraph=True)
    assert graph.number_of_nodes() == memory.graph(scope=SCOPE).number_of_nodes() > 0
