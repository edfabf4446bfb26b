"""Operating a store for months (issue 43, items 1 and 2): re-embedding with another embedder
and schema versions, against a real Neo4j of the module's own (``graphmem neo4j start
--ephemeral`` in a temporary state dir: a re-embedding switches the whole database to
another vector index, and an upgrade test needs a database without graphmem's node, which
the session's shared server cannot give). Each test starts from an emptied database."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase

from graphmem import HashingEmbedder, Memory, RecallSettings, SchemaError, WordLlamaEmbedder
from graphmem._base import dialect, layout, templates
from graphmem._base.embeddings import named_embedder
from graphmem._cli import sample
from graphmem._sync.executor import Executor
from graphmem._sync.upgrade import anchor_episodes, rekey
from graphmem.integrations.langgraph import GraphMemStore
from tests.fakes import extraction, scripted
from tests.launcher.cli import env_lines, neo4j_cli

# make test-reliability: operations on whole stores (re-embedding, upgrades, slot moves), on a Neo4j of its own
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ["Where does Yusuf live?", "What club did Samira join?", "What does Nora do at the weekend?",
             "Who codes in Rust?", "How do I handle a damaged delivery?", "Where does Ada live?"]
# distinct words in every fact: texts a bag-of-words embedder would embed alike ("Person 5" and
# "Person 7") tie exactly, and recall orders exact ties as the store happens to return them
NAMES = ("Yusuf Mirela Tomas Ingrid Kwame Lucia Anders Priya Mateo Sione Hana Olek Amara Bruno Keiko Dmitri Fatima "
         "Rowan Zeynep Idris Noor Casimir Leilani Oskar Thandi Emeka Solveig Ravi Marisol Jonas Aiko Farid Greta "
         "Laszlo Nadia Pedro Ulla Vikram Wanda Xavier").split()
CITIES = ("Porto", "Ghent", "Turku", "Bergen", "Split", "Kraków", "Aarhus")
LANGUAGES = ("Rust", "Go", "Haskell", "Elixir", "Kotlin")
# questions whose words pick out a few memories: "where does Yusuf live?" matches forty
# "... lives in ..." facts with one full-text score, which Lucene orders by its own document
# order, different in any two stores written apart
COMPARED = ["What club did Samira join?", "What does Nora do at the weekend?", "How do I handle a damaged delivery?",
            "Which step did the backup job fail at?", "Why was the order refunded?", "Is Tariq at the observatory?"]


class Store:
    """The module's own Neo4j: its settings, direct Cypher, and memory objects on it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.auth = (env["NEO4J_USER"], env["NEO4J_PASSWORD"])

    def memory(self, tenant: str, embedder: Any) -> Memory:
        return Memory(self.env["NEO4J_URI"], self.auth, tenant=tenant, embedder=embedder)

    def query(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        with GraphDatabase.driver(self.env["NEO4J_URI"], auth=self.auth) as driver:
            records, _, _ = driver.execute_query(statement, params)
        return [r.data() for r in records]

    def wipe(self) -> None:
        """An empty database, as a fresh server's: no node, no constraint, no index but Neo4j's
        own lookup indexes (a full-text index keeps the statistics of deleted documents)."""
        self.query("MATCH (n) DETACH DELETE n")
        for row in self.query("SHOW CONSTRAINTS YIELD name RETURN name"):
            self.query(f"DROP CONSTRAINT {row['name']}")
        for row in self.query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
            self.query(f"DROP INDEX {row['name']}")

    def cli(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "graphmem._cli", *args], capture_output=True, text=True,
                              env=self.cli_env(), cwd=ROOT, timeout=600, **kwargs)

    def cli_env(self) -> dict[str, str]:
        return dict(os.environ, **{k: self.env[k] for k in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD")})

    def vectors(self, tenant: str) -> dict[tuple[str, str], tuple[list[float] | None, list[float] | None]]:
        """(kind, text) -> (slot a's vector, slot b's vector) of every memory of ``tenant`` (a long
        episode's window by its position: the tests write one long episode a tenant)."""
        rows = self.query("MATCH (m:Memory {tenant: $t}) "
                          "RETURN m.kind AS kind, coalesce(m.text, 'window ' + toString(m.position)) AS key, "
                          "m.embedding AS a, m.embeddingB AS b", t=tenant)
        return {(r["kind"], r["key"]): (r["a"], r["b"]) for r in rows}


def own_server(tmp_path_factory) -> Iterator[Store]:
    """A Neo4j of the calling module's own (its module-scoped fixture yields from this)."""
    state = tmp_path_factory.mktemp("operations") / "state"
    env = env_lines(neo4j_cli(state, "start", "--ephemeral", "--no-browser"))
    try:
        yield Store(env)
    finally:
        neo4j_cli(state, "stop", check=False)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    yield from own_server(tmp_path_factory)


@pytest.fixture
def empty(store):
    store.wipe()
    return store


def populate(memory: Memory) -> None:
    """Every kind a store holds: a conversation stored without a model (episodes, speakers,
    entities), facts with and without a predicate, an extracted fact, a long episode (its
    windows), an insight, a procedure, a decision, a note."""
    sample.store(memory, "friends")
    facts = memory.remember_many([{"text": f"{name} lives in {CITIES[i % 7]}", "scope": "people",
                                   "subject": name.lower(), "predicate": "lives_in", "object": CITIES[i % 7]}
                                  for i, name in enumerate(NAMES)] +
                                 [{"text": f"{name} writes {LANGUAGES[i % 5]} at {CITIES[(i + 3) % 7]} startups",
                                   "scope": "people"} for i, name in enumerate(NAMES)])
    memory.ingest([{"role": "user", "content": "I'm Ada and I live in Lisbon"}], scope="people",
                  llm=scripted(extraction(
                      [{"name": "Ada", "type": "person", "aliases": []}, {"name": "Lisbon", "type": "city", "aliases": []}],
                      [{"subject": "Ada", "predicate": "lives_in", "object": "Lisbon", "object_is_entity": True,
                        "text": "Ada lives in Lisbon", "valid_from": None, "corrects": False, "messages": [1],
                        "single_valued": True}])))
    memory.add_episode("log line " * 400 + "the backup job failed at the zebra step " + "ok " * 600,
                       scope="people", role="tool")
    memory.add_insight("Two of them live in Bergen", cites=[facts[3].id, facts[10].id], scope="people")
    memory.add_procedure("Offer a refund first", scope="people", trigger="damaged delivery",
                         condition="the parcel arrived broken", steps=["apologise", "refund"])
    memory.log_decision("bot", "Refund the order", reasoning="the parcel was dented", decision_type="refund",
                        scope="people")
    memory.note_add("prefers short answers", scope="people", owner="assistant")


def answers(store: Store, embedder: Any) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """Per question and scope: the top 10, as (text, semantic similarity), the semantic side
    scanned exactly (the vector index is approximate: two HNSW graphs of the same vectors,
    built in another order, return slightly different neighbours)."""
    memory = Memory(store.env["NEO4J_URI"], store.auth, tenant="ops", embedder=embedder,
                    recall_settings=RecallSettings(strategy="exact"))
    with memory:
        return {(q, scope): [(r.record.text or "", r.parts.semantic) for r in memory.recall(q, scope=scope, k=10)]
                for q in COMPARED for scope in ("people", "friends")}


def assert_same_answers(got: dict[tuple[str, str], list[tuple[str, float]]],
                        expected: dict[tuple[str, str], list[tuple[str, float]]]) -> None:
    """The same memories in the same order, with the same semantic similarity (to 1e-4: a
    transformer's batched inference pads each batch to its longest text, so vectors made in
    other batches agree to about 1e-6)."""
    for key, want in expected.items():
        assert [t for t, _ in got[key]] == [t for t, _ in want], key
        assert [s for _, s in got[key]] == pytest.approx([s for _, s in want], abs=1e-4), key


class Asker(threading.Thread):
    """Recalls one question after another with a memory object of its own until stopped,
    keeping how many answered and what failed, with whether the store had switched slots by
    then (an object on the old embedder is told after the switch, never before)."""

    def __init__(self, store: Store, embedder: Any) -> None:
        super().__init__(daemon=True)
        self.store, self.memory = store, store.memory("ops", embedder)
        self.stop, self.failures, self.answered = threading.Event(), [], 0

    def run(self) -> None:
        while not self.stop.is_set():
            for q in QUESTIONS:
                try:
                    if self.memory.recall(q, scope="people", k=3):
                        self.answered += 1
                except Exception as exc:
                    slot = self.store.query("MATCH (s:GraphMemStore) RETURN s.vectorSlot AS slot")[0]["slot"]
                    self.failures.append((slot, type(exc).__name__, str(exc)))


# -- re-embedding ------------------------------------------------------------------------
# a kill -9 of the command line's run with two real models (about 110 s on two cores): one of
# the long runs, in make test-reliability (CI runs both)
@pytest.mark.long
def test_wordllama_to_minilm_killed_midway_resumed_answering_throughout_equal_to_minilm_from_the_start(empty):
    old = empty.memory("ops", WordLlamaEmbedder())
    old.setup()
    populate(old)
    total = empty.query("MATCH (m:Memory) WHERE m.embedding IS NOT NULL RETURN count(m) AS n")[0]["n"]
    assert total > 100
    asker = Asker(empty, WordLlamaEmbedder())
    asker.start()
    # the command line run, killed (SIGKILL) once it has written a few batches
    run = subprocess.Popen([sys.executable, "-m", "graphmem._cli", "reembed", "--to", "minilm", "--embedder", "wordllama",
                            "--batch-size", "8"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                           env=empty.cli_env(), cwd=ROOT)
    lines = []
    for line in run.stderr:
        lines.append(line)
        if sum("reembed: embed:" in line for line in lines) >= 3:
            run.send_signal(signal.SIGKILL)
            break
    run.wait(timeout=60)
    assert run.returncode == -signal.SIGKILL, "".join(lines)
    under_way = old.schema_plan()
    assert under_way.reembed and under_way.reembed["dimensions"] == 384 and not under_way.reembed["switchedAt"]
    assert under_way.vector_index == "memory_embedding"  # recall still on the old index
    done_before = empty.query("MATCH (m:Memory) WHERE m.embeddingB IS NOT NULL RETURN count(m) AS n")[0]["n"]
    assert 0 < done_before < total
    # started again, in this process: it continues where the killed one stopped; from the
    # switch on, a memory object on MiniLM answers
    after: list[Asker] = []

    def at_switch(step):
        if step.phase == "switch":
            after.append(Asker(empty, named_embedder("minilm")))
            after[0].start()

    report = old.reembed(named_embedder("minilm"), batch_size=64, progress=at_switch)
    time.sleep(1.0)
    for thread in (asker, *after):
        thread.stop.set()
        thread.join(timeout=60)
    assert asker.answered > 0 and after[0].answered > 0 and after[0].failures == []
    # the object on WordLlama answered until the switch, and was told why not after it
    assert all(slot == "b" and (name, "re-embedded" in text or "another embedder" in text) in (
        ("SchemaError", True), ("InvalidInputError", True)) for slot, name, text in asker.failures), asker.failures
    assert report.switched and report.resumed == done_before and report.embedded == total - done_before
    assert report.index == "memory_embedding_b" and report.cleaned == total and report.remaining == 0
    assert empty.query("SHOW VECTOR INDEXES YIELD name RETURN collect(name) AS names")[0]["names"] == ["memory_embedding_b"]
    assert empty.query("MATCH (m:Memory) WHERE m.embedding IS NOT NULL RETURN count(m) AS n")[0]["n"] == 0
    assert old.schema_plan().reembed is None
    # the same memories written with MiniLM from the start, on an emptied database (full-text
    # statistics span tenants): the same vectors, the same answers
    minilm = named_embedder("minilm")
    got, ops = answers(empty, minilm), empty.vectors("ops")
    empty.wipe()
    fresh = empty.memory("ops", minilm)
    fresh.setup()
    populate(fresh)
    new = empty.vectors("ops")
    assert ops.keys() == new.keys()
    for key, (a, b) in new.items():  # the re-embedded store's in slot b, the fresh one's in slot a
        assert b is None and ops[key][0] is None, key
        if a is None:
            assert ops[key][1] is None, key
        else:
            assert ops[key][1] == pytest.approx(a, abs=1e-5), key
    assert_same_answers(got, answers(empty, minilm))


def test_re_embedding_with_the_same_embedder_gives_every_kind_the_vector_it_was_written_with(empty):
    embedder = HashingEmbedder(64)
    memory = empty.memory("kinds", embedder)
    memory.setup()
    populate(memory)
    items = GraphMemStore(memory, index={"dims": 64, "embed": embedder, "fields": ["text"]})
    items.put(("docs",), "one", {"text": "red apples"})
    several = GraphMemStore(memory, index={"dims": 64, "embed": embedder, "fields": ["a", "b"]})
    several.put(("docs",), "two", {"a": "green pears", "b": "blue plums"})
    before = empty.vectors("kinds")
    kinds = {kind for kind, _ in before}
    assert {"fact", "episode", "entity", "chunk", "insight", "procedure", "decision", "note"} <= kinds
    report = memory.reembed(HashingEmbedder(64))
    assert report.switched and report.embedded == sum(a is not None for a, _ in before.values())
    after = empty.vectors("kinds")
    for key, (a, _) in before.items():
        assert after[key][0] is None, key
        assert (after[key][1] is None) == (a is None), key
        if a is not None:
            assert after[key][1] == pytest.approx(a, abs=1e-6), key
    # a store item with several fields keeps the vector of its joined texts, not one per field
    assert empty.query("MATCH (m:Fact {tenant: 'kinds'}) WHERE m.storeVectors IS NOT NULL OR m.storeVectorsB IS NOT NULL "
                       "RETURN count(m) AS n")[0]["n"] == 0
    assert [h.key for h in items.search(("docs",), query="red apples")][:1] == ["one"]
    assert memory.recall("Who codes in Rust?", scope="people", k=3)


def test_a_run_for_some_tenants_leaves_the_switch_to_the_run_that_completes_the_rest(empty):
    first, second = empty.memory("first", HashingEmbedder(64)), empty.memory("second", HashingEmbedder(64))
    first.setup()
    first.remember_many([{"text": f"first fact {i}", "scope": "s"} for i in range(30)])
    second.remember_many([{"text": f"second fact {i}", "scope": "s"} for i in range(20)])
    partial = first.reembed(HashingEmbedder(32), tenants=["first"])
    assert not partial.switched and partial.embedded == 30 and partial.remaining == 20
    assert partial.index == "memory_embedding" and partial.tenants == ["first"]
    assert second.recall("second fact 3", scope="s", k=1)[0].record.text == "second fact 3"  # still the old index
    rest = second.reembed(HashingEmbedder(32))
    assert rest.switched and rest.resumed == 30 and rest.embedded == 20
    after = empty.memory("first", HashingEmbedder(32))
    assert after.recall("first fact 7", scope="s", k=1)[0].record.text == "first fact 7"


def test_an_interrupted_run_continues_with_its_embedder_and_another_is_refused_unless_restarted(empty):
    memory = empty.memory("ctrl-c", HashingEmbedder(64))
    memory.setup()
    memory.remember_many([{"text": f"fact number {i}", "scope": "s"} for i in range(50)])
    batches = []

    def interrupt(step):
        batches.append(step)
        if len(batches) == 2:
            raise KeyboardInterrupt  # Ctrl-C between two batches

    with pytest.raises(KeyboardInterrupt):
        memory.reembed(HashingEmbedder(32), batch_size=10, progress=interrupt)
    assert batches[-1].done == 20 and batches[-1].total == 50 and "20 / 50" in batches[-1].line()
    plan = memory.reembed(HashingEmbedder(32), dry_run=True)
    assert (plan.dry_run, plan.embedded, plan.resumed, plan.switched) == (True, 30, 20, False)
    assert plan.rate > 0 and plan.estimate_seconds is not None
    with pytest.raises(SchemaError, match="another embedder.*restart"):
        memory.reembed(HashingEmbedder(48))
    again = memory.reembed(HashingEmbedder(48), restart=True)
    assert again.switched and again.embedded == 50 and again.resumed == 0 and again.dimensions == 48
    assert empty.query("MATCH (m:Memory {tenant: 'ctrl-c'}) RETURN collect(DISTINCT size(m.embeddingB)) AS d")[0]["d"] == [48]


def test_a_dry_run_changes_nothing(empty):
    memory = empty.memory("dry", HashingEmbedder(64))
    memory.setup()
    memory.remember_many([{"text": f"dry fact {i}", "scope": "s"} for i in range(25)])
    before = empty.query("MATCH (s:GraphMemStore) RETURN properties(s) AS p")[0]["p"]
    plan = memory.reembed(HashingEmbedder(32), dry_run=True)
    assert plan.dry_run and plan.embedded == 25 and not plan.switched and plan.index == "memory_embedding"
    assert empty.query("MATCH (s:GraphMemStore) RETURN properties(s) AS p")[0]["p"] == before
    assert empty.query("SHOW VECTOR INDEXES YIELD name RETURN collect(name) AS n")[0]["n"] == ["memory_embedding"]
    shown = empty.cli("reembed", "--to", "hashing", "--embedder", "hashing", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert "25 memories to embed with HashingEmbedder (256 dimensions)" in shown.stdout


def test_writers_on_the_old_embedder_are_caught_up_and_a_stale_memory_object_is_told(empty):
    memory = empty.memory("busy", HashingEmbedder(64))
    memory.setup()
    memory.remember_many([{"text": f"busy fact {i}", "scope": "s"} for i in range(40)])
    writer = empty.memory("busy", HashingEmbedder(64))
    writer.recall("busy", scope="s")  # it has read the store's slot: it writes to the old one

    def write_meanwhile(step):
        if step.phase == "embed" and step.done == 10:
            writer.remember("written during the re-embedding", scope="s")

    report = memory.reembed(HashingEmbedder(32), batch_size=10, progress=write_meanwhile)
    assert report.switched and report.embedded == 41
    row = empty.query("MATCH (m:Memory {tenant: 'busy', text: 'written during the re-embedding'}) "
                      "RETURN m.embedding AS a, size(m.embeddingB) AS b")[0]
    assert row == {"a": None, "b": 32}
    with pytest.raises(SchemaError, match=r"re-embedded.*32 dimensions.*gives other vectors \(64 dimensions\)"):
        writer.recall("busy fact 3", scope="s")
    assert memory.recall("busy fact 3", scope="s", k=1)[0].record.text == "busy fact 3"


def test_the_command_line_moves_the_store_and_says_what_to_use(empty):
    memory = empty.memory("cli", HashingEmbedder(256))
    memory.setup()
    memory.remember_many([{"text": f"cli fact {i}", "scope": "s"} for i in range(12)])
    done = empty.cli("reembed", "--to", "wordllama", "--embedder", "hashing", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["switched"] and report["embedded"] == 12 and report["index"] == "memory_embedding_b"
    stale = empty.cli("recall", "cli fact", "--tenant", "cli", "--scope", "s", "--embedder", "hashing")
    # hashing and WordLlama both give 256 dimensions, but the run recorded the new embedder's
    # vector for a probe text: the stale process is refused (exit 4) and told what to do
    assert stale.returncode == 4, stale.stderr
    assert "make the memory object with the new embedder" in stale.stderr
    check = empty.cli("setup", "--check", "--tenant", "cli", "--embedder", "wordllama")
    assert check.returncode == 0 and "memory_embedding_b (slot b): 256 dimensions" in check.stdout


# -- schema versions ---------------------------------------------------------------------
def test_a_store_of_the_previous_layout_is_upgraded_step_by_step(empty, caplog):
    memory = empty.memory("old", HashingEmbedder(64))
    memory.setup()
    entity = memory.upsert_entity("C++", type="language", scope="old", aliases=["CPP!"])
    memory.remember("Bob codes in C#", scope="old")
    said = memory.add_episode("I moved to Glasgow last week", scope="old", role="user",
                              occurred_at=datetime(2026, 3, 10, 12, tzinfo=timezone.utc))
    anchors = empty.query("MATCH (e:Episode {tenant: 'old', id: $id}) RETURN e.refersTo AS r", id=said.id)[0]["r"]
    assert anchors
    # what the release before schema versions left: no store node, keys by the old rule
    # (every symbol folded away), episodes without time anchors
    empty.query("MATCH (s:GraphMemStore) DETACH DELETE s")
    empty.query("MATCH (m:Memory {tenant: 'old'}) WHERE m.kind IN ['fact', 'entity'] "
                "SET m.textKey = CASE m.id WHEN $e THEN 'c' ELSE 'bob codes in c' END, "
                "m.nameKey = CASE m.id WHEN $e THEN 'c' END, m.aliasKeys = CASE m.id WHEN $e THEN ['cpp'] END",
                e=entity.id)
    empty.query("MATCH (e:Episode) REMOVE e.refersTo")
    empty.query("DROP CONSTRAINT graphmem_store_id IF EXISTS")  # a release before versions had none
    reader = empty.memory("old", HashingEmbedder(64))
    plan = reader.schema_plan()
    assert plan.store_version == 1 and plan.graphmem_version == layout.VERSION and not plan.current
    assert [(s.version, s.name) for s in plan.steps] == [(2, "keys"), (3, "time anchors"), (4, "vector slots")]
    assert plan.steps[0].changes >= 2 and plan.steps[1].changes == 1 and plan.steps[2].changes == 0
    check = empty.cli("setup", "--check", "--tenant", "old", "--embedder", "hashing")
    assert check.returncode == 1
    assert "store schema version: 1 (written before versions were recorded)" in check.stdout
    assert "step 3 (time anchors)" in check.stdout and "1 records to change" in check.stdout
    assert "graphmem_store_id" in plan.missing and "  to create: graphmem_store_id" in check.stdout
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        reader.setup()
    said_lines = [r.getMessage() for r in caplog.records if r.name == "graphmem"]
    assert [line.split(":")[0] for line in said_lines if line.startswith("upgrading")] == [
        "upgrading the store from schema version 1", "upgrading the store from schema version 2",
        "upgrading the store from schema version 3"]
    assert empty.query("MATCH (s:GraphMemStore) RETURN s.schemaVersion AS v, s.vectorSlot AS slot")[0] == {
        "v": layout.VERSION, "slot": "a"}
    assert empty.query("MATCH (e:Episode {tenant: 'old', id: $id}) RETURN e.refersTo AS r", id=said.id)[0]["r"] == anchors
    assert reader.upsert_entity("c++", type="language", scope="old").id == entity.id
    assert reader.forget(scope="old", text="Bob codes in C#.") == 1
    # each step again changes nothing; a second setup runs none
    with empty_executor(empty) as run:
        assert rekey(run) == 0 and anchor_episodes(run) == 0
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        reader.setup()
    assert not [r for r in caplog.records if r.getMessage().startswith("upgrading")]
    assert reader.schema_plan().current


def test_a_store_written_by_a_newer_graphmem_is_refused_clearly(empty):
    memory = empty.memory("newer", HashingEmbedder(64))
    memory.setup()
    memory.remember("kept as it was", scope="s")
    empty.query("MATCH (s:GraphMemStore) SET s.schemaVersion = $v", v=layout.VERSION + 1)
    later = empty.memory("newer", HashingEmbedder(64))
    for call in (lambda: later.remember("x", scope="s"), lambda: later.recall("kept", scope="s"), later.setup):
        with pytest.raises(SchemaError, match=f"schema version {layout.VERSION + 1}.*newer graphmem.*up to version {layout.VERSION}"):
            call()
    plan = later.schema_plan()
    assert plan.newer and plan.steps == [] and not plan.current
    check = empty.cli("setup", "--check", "--tenant", "newer", "--embedder", "hashing")
    assert check.returncode == 1 and "newer than this graphmem's" in check.stdout
    refused = empty.cli("facts", "--tenant", "newer", "--scope", "s", "--embedder", "hashing")
    assert refused.returncode == 4 and "newer graphmem" in refused.stderr
    assert empty.query("MATCH (m:Memory {tenant: 'newer'}) RETURN count(m) AS n")[0]["n"] == 1


def test_a_fresh_database_starts_at_the_current_version_without_steps(empty, caplog):
    memory = empty.memory("fresh", HashingEmbedder(64))
    plan = memory.schema_plan()
    assert plan.store_version == 0 and plan.steps == [] and "memory_embedding" in plan.missing
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        memory.setup()
    assert not [r for r in caplog.records if r.getMessage().startswith("upgrading")]
    assert memory.schema_plan().current and memory.schema_plan().store_version == layout.VERSION


class empty_executor:
    """A sync executor on the module's server, for calling an upgrade step directly."""

    def __init__(self, store: Store) -> None:
        self.driver = GraphDatabase.driver(store.env["NEO4J_URI"], auth=store.auth)

    def __enter__(self) -> Executor:
        return Executor(self.driver, database=None, tracer=None, owns_driver=False)

    def __exit__(self, *exc: Any) -> None:
        self.driver.close()


def test_every_template_s_version_for_slot_b_compiles_on_a_store_in_slot_b(empty):
    """The session's shared server stays in slot a; here the store is moved to slot b (its
    index made), and every ``:b`` version is EXPLAINed (the index DDL run: IF NOT EXISTS), its
    Cypher 25 ones where the server speaks it (Neo4j 2026)."""
    memory = empty.memory("compile", HashingEmbedder(64))
    memory.setup()
    memory.remember("one memory", scope="s")
    assert memory.reembed(HashingEmbedder(64)).index == "memory_embedding_b"
    version = empty.query("CALL dbms.components() YIELD versions RETURN versions[0] AS v")[0]["v"]
    names = [n for n in templates.variant_names() if n.endswith(":b")]
    assert {"recall:b", "recall:cypher25:b", "fact_create:b", "schema_vector:b", "reembed_page:b"} <= set(names)
    for name in names:
        if ":cypher25" in name and not dialect.filters_vectors(version):
            continue
        template = templates.get(name)
        params = {p: None for p in template.parameters}
        if name == "schema_vector_drop:b":  # it would drop the index everything here searches
            assert template.text.splitlines()[1] == "DROP INDEX memory_embedding_b IF EXISTS"
        elif name.startswith("schema_"):
            empty.query(template.text, dimensions=64)
        else:
            empty.query("EXPLAIN " + template.text, **params)


def test_the_re_embedding_benchmark_runs_and_refuses_a_database_it_would_switch(empty, tmp_path):
    """bench/reembed.py in small (make bench runs it on a server of its own): its table, and
    its refusal of a database holding memories without --wipe."""
    env = dict(empty.cli_env(), GRAPHMEM_BENCH_RESULTS=str(tmp_path))
    under_load = "## Re-embedding under a writer and a recaller\n\nits figures\n"
    (tmp_path / "reembed.md").write_text(f"# the figures of an earlier run\n\n{under_load}")
    bench = [sys.executable, str(ROOT / "bench" / "reembed.py"), "--sizes", "300", "--from", "hashing", "--to",
             "hashing384", "--batch", "64"]
    done = subprocess.run(bench, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "reembed.md").read_text()
    assert table.startswith("# Re-embedding a store with another embedder\n") and table.endswith(f"\n\n{under_load}")
    row = next(line for line in table.splitlines() if line.startswith("| 300 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "hashing -> hashing384" and cells[-1] == "yes"
    assert float(cells[3]) > 0 and float(cells[4].replace(",", "")) > 0 and int(cells[9].replace(",", "")) >= 0
    assert empty.query("SHOW VECTOR INDEXES YIELD name, options "
                       "RETURN name, options.indexConfig['vector.dimensions'] AS d") == [
        {"name": "memory_embedding_b", "d": 384}]
    refused = subprocess.run(bench, capture_output=True, text=True, env=env, timeout=600)
    assert refused.returncode != 0 and "holds 300 memories" in refused.stderr and "--wipe" in refused.stderr
    assert empty.env["NEO4J_PASSWORD"] not in table + done.stdout + done.stderr


def test_the_re_embedding_benchmark_under_a_writer_and_a_recaller(empty, tmp_path):
    """bench/reembed.py --under-load in small: a writer process on the old embedder and a
    recaller process beside the run, and what it checks at the end (no raw error, no memory
    without an active vector, every accepted write stored with one); its section replaces
    the earlier one after the sizes' figures, which stay."""
    env = dict(empty.cli_env(), GRAPHMEM_BENCH_RESULTS=str(tmp_path))
    section = "## Re-embedding under a writer and a recaller"
    (tmp_path / "reembed.md").write_text(f"# the sizes' figures\n\n{section}\n\nold\n")
    bench = [sys.executable, str(ROOT / "bench" / "reembed.py"), "--wipe", "--under-load", "--sizes", "200",
             "--pairs", "hashing:hashing384", "--batch", "64", "--after", "2"]
    done = subprocess.run(bench, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (tmp_path / "reembed.md").read_text()
    assert text.startswith(f"# the sizes' figures\n\n{section}\n\n20")
    assert text.count(section) == 1 and "\nold\n" not in text
    written, asked = ([c.strip().replace(",", "") for c in line.strip("|").split("|")]
                      for line in text.splitlines() if line.startswith("| 200 | hashing -> hashing384 |"))
    calls, accepted, refused, raw, lost, memories, unembedded, left = (int(c) for c in written[3:4] + written[6:7]
                                                                        + written[8:])
    assert calls == accepted + refused and accepted > 0 and raw == lost == unembedded == left == 0
    assert memories == 200 + accepted
    assert int(asked[2]) > 0 and int(asked[5]) == 0
    assert empty.env["NEO4J_PASSWORD"] not in text + done.stdout + done.stderr
