"""What ``graphmem setup --check`` (``Memory.schema_plan()``) reports of a store's layout and
what ``setup()`` repairs (issue 49): a stray vector index, a store's node that names the wrong
slot or is gone, memories without a vector in the active slot (which ``reembed`` embeds), a
dropped full-text or vector index met by recall and ingest, a store of a newer schema
version. Against a real Neo4j of the module's own (``graphmem neo4j start --ephemeral``):
each test drops indexes or edits the store's node, which the session's shared server cannot
take. Each test starts from an emptied database."""

from __future__ import annotations

import json
import logging

import pytest

from graphmem import HashingEmbedder, Memory, SchemaError
from graphmem._base import layout
from graphmem.integrations.langgraph import GraphMemStore
from tests.fakes import extraction, scripted
from tests.integration.test_operations import Store
from tests.launcher.cli import env_lines, neo4j_cli

# make test-reliability: broken stores repaired (dropped indexes, stray nodes), on a Neo4j of its own
pytestmark = pytest.mark.long

DIMS = 256  # what the command line's --embedder hashing gives


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    state = tmp_path_factory.mktemp("store-check") / "state"
    env = env_lines(neo4j_cli(state, "start", "--ephemeral", "--no-browser"))
    try:
        yield Store(env)
    finally:
        neo4j_cli(state, "stop", check=False)


@pytest.fixture
def empty(store):
    store.wipe()
    return store


def vector_indexes(store: Store) -> list[str]:
    return [r["name"] for r in store.query("SHOW VECTOR INDEXES YIELD name RETURN name ORDER BY name")]


def in_slot_b(store: Store, tenant: str) -> Memory:
    """A store moved to slot b by a re-embedding (same embedder), holding three memories."""
    memory = store.memory(tenant, HashingEmbedder(DIMS))
    memory.setup()
    memory.remember_many([{"text": f"Tariq keeps bees at the observatory {i}", "scope": "s"} for i in range(3)])
    assert memory.reembed(HashingEmbedder(DIMS)).index == "memory_embedding_b"
    assert vector_indexes(store) == ["memory_embedding_b"]
    return memory


def semantic(memory: Memory, query: str) -> list[float | None]:
    return [r.parts.semantic for r in memory.recall(query, scope="s", k=3)]


# -- the layout: stray index, the store's node -------------------------------------------------
def test_a_stray_index_of_the_other_slot_is_reported_and_dropped_by_setup_unless_a_run_claims_it(empty):
    in_slot_b(empty, "stray")
    # what a re-embedding killed right after its switch, run by a graphmem before the rerun dropped
    # it, leaves: the old slot's index beside the new one, no re-embedding recorded
    empty.query("CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON n.embedding "
                "OPTIONS {indexConfig: {`vector.dimensions`: 256, `vector.similarity_function`: 'cosine'}}")
    memory = empty.memory("stray", HashingEmbedder(DIMS))
    plan = memory.schema_plan()
    assert plan.stray_indexes == ["memory_embedding"] and plan.vector_indexes == ["memory_embedding", "memory_embedding_b"]
    assert plan.missing == [] and plan.vector_slot == "b" and not plan.current and plan.without_vector == 0
    check = empty.cli("setup", "--check", "--tenant", "stray", "--embedder", "hashing")
    assert check.returncode == 1, check.stderr
    assert "stray vector index memory_embedding (the inactive slot's, no re-embedding fills it): setup would drop it" \
        in check.stdout and check.stdout.rstrip().endswith("setup would change the above")
    # a run holding the claim (it has not recorded its start yet) owns the other slot's index
    empty.query("MATCH (s:GraphMemStore) SET s.reembedRun = 'another run'")
    assert memory.schema_plan().stray_indexes == []
    memory.setup()
    assert vector_indexes(empty) == ["memory_embedding", "memory_embedding_b"]
    # a run killed right after its switch: the old slot's index is read by nothing any more
    empty.query("MATCH (s:GraphMemStore) SET s.reembedSlot = 'b', s.reembedStartedAt = datetime(), "
                "s.reembedSwitchedAt = datetime()")
    assert memory.schema_plan().stray_indexes == ["memory_embedding"]
    memory.setup()
    assert vector_indexes(empty) == ["memory_embedding_b"]
    empty.query("MATCH (s:GraphMemStore) REMOVE s.reembedRun, s.reembedSlot, s.reembedStartedAt, s.reembedSwitchedAt")
    assert memory.schema_plan().sound and all(s is not None for s in semantic(memory, "bees at the observatory"))
    assert empty.cli("setup", "--check", "--tenant", "stray", "--embedder", "hashing").returncode == 0


def test_a_store_node_naming_the_wrong_slot_is_reported_and_corrected_by_setup(empty):
    in_slot_b(empty, "wrong")
    empty.query("MATCH (s:GraphMemStore) SET s.vectorSlot = 'a'")  # by hand, or a node restored from elsewhere
    memory = empty.memory("wrong", HashingEmbedder(DIMS))
    plan = memory.schema_plan()
    assert plan.vector_slot == "a" and plan.slot_found == "b" and not plan.current
    assert plan.missing == [] and plan.stray_indexes == [] and plan.vector_dimensions == DIMS
    assert plan.without_vector == 0  # counted in slot b, where the vectors are
    check = empty.cli("setup", "--check", "--tenant", "wrong", "--embedder", "hashing")
    assert check.returncode == 1
    assert "the store's node says slot a, but every vector is in slot b: setup would record slot b" in check.stdout
    memory.setup()
    assert empty.query("MATCH (s:GraphMemStore) RETURN s.vectorSlot AS slot")[0]["slot"] == "b"
    assert vector_indexes(empty) == ["memory_embedding_b"]  # no empty slot-a index made beside it
    assert all(s is not None for s in semantic(memory, "bees at the observatory"))
    assert memory.schema_plan().sound


def test_a_missing_store_node_is_read_from_the_slot_b_index_reported_and_recorded(empty):
    in_slot_b(empty, "gone")
    empty.query("MATCH (s:GraphMemStore) DETACH DELETE s")
    memory = empty.memory("gone", HashingEmbedder(DIMS))
    plan = memory.schema_plan()
    assert not plan.recorded and plan.vector_slot == "b" and plan.vector_index == "memory_embedding_b"
    assert "memory_embedding" not in plan.missing and plan.vector_dimensions == DIMS and plan.without_vector == 0
    check = empty.cli("setup", "--check", "--tenant", "gone", "--embedder", "hashing")
    assert check.returncode == 1 and "is missing (a store written before versions, or the node deleted): the " \
        "vector indexes say slot b; setup would record it" in check.stdout
    memory.setup()
    assert empty.query("MATCH (s:GraphMemStore) RETURN s.vectorSlot AS slot, s.schemaVersion AS v")[0] == {
        "slot": "b", "v": layout.VERSION}
    assert vector_indexes(empty) == ["memory_embedding_b"] and memory.schema_plan().sound


# -- memories without a vector in the active slot ----------------------------------------------
def test_memories_without_a_vector_are_counted_said_by_setup_and_embedded_by_reembed(empty, caplog):
    memory = empty.memory("owed", HashingEmbedder(DIMS))
    memory.setup()
    kept = memory.remember_many([{"text": f"Ingrid rows on the fjord {i}", "scope": "s"} for i in range(3)])
    with pytest.warns(UserWarning, match="embedder=None"):
        lexical = Memory(empty.env["NEO4J_URI"], empty.auth, tenant="owed", embedder=None)
    lexical.remember_many([{"text": f"Oskar bakes rye bread {i}", "scope": "s"} for i in range(2)])
    # a vector removed as one Neo4j cannot compare (setup's repair), and one stranded in slot b
    empty.query("MATCH (m:Memory {id: $id}) REMOVE m.embedding SET m.embeddingRemovedAt = datetime()", id=kept[0].id)
    empty.query("MATCH (m:Memory {id: $id}) SET m.embeddingB = m.embedding, m.reembedPending = true "
                "REMOVE m.embedding", id=kept[1].id)
    # a LangGraph store item put without a vector (index=False) is owed none
    items = GraphMemStore(memory, index={"dims": DIMS, "embed": HashingEmbedder(DIMS), "fields": ["text"]})
    items.put(("docs",), "plain", {"text": "not to be searched by meaning"}, index=False)
    other = empty.memory("other", HashingEmbedder(DIMS))
    other.remember("Lucia sails to Split", scope="s")
    plan = memory.schema_plan()
    assert plan.without_vector == 4 and plan.stranded == 1 and plan.current and not plan.sound
    check = empty.cli("setup", "--check", "--tenant", "owed", "--embedder", "hashing", "--json")
    assert check.returncode == 1 and json.loads(check.stdout)["without_vector"] == 4
    text = empty.cli("setup", "--check", "--tenant", "owed", "--embedder", "hashing").stdout
    assert "memories without a vector in slot a: 4 (1 stranded by a re-embedding)" in text
    assert text.rstrip().endswith("setup would change nothing; graphmem reembed would")
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        memory.setup()
        other.setup()
    said = [r.getMessage() for r in caplog.records if "have no vector in the store's active slot" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("4 memories of tenant 'owed'") and "graphmem reembed" in said[0]
    report = memory.reembed(HashingEmbedder(DIMS))
    # every memory owed a vector, the other tenant's too: 3 + 2 written without an embedder + 1
    assert report.switched and report.embedded == 6
    after = memory.schema_plan()
    assert after.without_vector == 0 and after.sound and after.vector_slot == "b"
    rows = empty.query("MATCH (m:Memory) RETURN m.text AS text, m.embeddingB IS NOT NULL AS vector, "
                       "m.embeddingRemovedAt IS NULL AS cleared, m.reembedPending IS NULL AS done")
    assert {r["text"]: r["vector"] for r in rows} == {
        **{f"Ingrid rows on the fjord {i}": True for i in range(3)}, **{f"Oskar bakes rye bread {i}": True for i in range(2)},
        "Lucia sails to Split": True, '{"text": "not to be searched by meaning"}': False}
    assert all(r["cleared"] and r["done"] for r in rows)
    scores = {r.record.text: r.parts.semantic for r in memory.recall("Oskar bakes rye bread", scope="s", k=5)}
    assert scores["Oskar bakes rye bread 0"] is not None
    assert empty.cli("setup", "--check", "--tenant", "owed", "--embedder", "hashing").returncode == 0


# -- dropped indexes and a newer store -------------------------------------------------------
def test_a_dropped_full_text_index_is_a_schema_error_naming_it(empty):
    memory = empty.memory("text", HashingEmbedder(DIMS))
    memory.setup()
    memory.remember("Ada lives in Lisbon", scope="s")
    for index in ("memory_text", "entity_keys"):
        empty.query(f"DROP INDEX {index}")
        with pytest.raises(SchemaError, match=f"full-text index {index} is missing.*run setup\\(\\) \\(graphmem setup\\)"):
            memory.recall("Where does Ada live?", scope="s")
        assert memory.schema_plan().missing == [index]
        found = empty.cli("recall", "Ada", "--tenant", "text", "--scope", "s", "--embedder", "hashing")
        assert found.returncode == 4 and f"full-text index {index} is missing" in found.stderr
        if index == "entity_keys":  # ingest resolves the names it meets through it
            with pytest.raises(SchemaError, match="full-text index entity_keys is missing"):
                memory.ingest([{"role": "user", "content": "I'm Bo and I live in Oslo"}], scope="s",
                              llm=scripted(extraction([{"name": "Bo", "type": "person", "aliases": []}])))
        memory.setup()
        assert memory.recall("Where does Ada live?", scope="s")[0].record.text == "Ada lives in Lisbon"


def test_a_dropped_vector_index_is_said_once_listed_missing_and_made_again_by_setup(empty, caplog):
    memory = empty.memory("vec", HashingEmbedder(DIMS))
    memory.setup()
    memory.remember_many([{"text": f"Kwame repairs clocks in Ghent {i}", "scope": "s"} for i in range(3)])
    empty.query("DROP INDEX memory_embedding")
    reader = empty.memory("vec", HashingEmbedder(DIMS))
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        for _ in range(3):
            assert all(s is not None for s in semantic(reader, "clocks in Ghent"))  # scanned exactly
        assert sum("vector index memory_embedding is missing" in r.getMessage() for r in caplog.records) == 1
        memory.recall("clocks in Ghent", scope="s")  # an object that knew the index meets it gone
    said = [r.getMessage() for r in caplog.records if "vector index memory_embedding is missing" in r.getMessage()]
    # once per driver (memory objects made from one driver share it): each object here has its own
    assert len(said) == 2 and "run setup() (graphmem setup)" in said[0]
    plan = reader.schema_plan()
    assert plan.missing == ["memory_embedding"] and plan.vector_dimensions is None
    check = empty.cli("setup", "--check", "--tenant", "vec", "--embedder", "hashing")
    assert check.returncode == 1 and "  to create: memory_embedding" in check.stdout
    reader.setup()
    assert vector_indexes(empty) == ["memory_embedding"] and reader.schema_plan().sound


def test_a_newer_store_lists_nothing_missing_that_exists(empty):
    memory = empty.memory("newer", HashingEmbedder(DIMS))
    memory.setup()
    memory.remember("kept as it was", scope="s")
    empty.query("MATCH (s:GraphMemStore) SET s.schemaVersion = $v", v=layout.VERSION + 1)
    plan = empty.memory("newer", HashingEmbedder(DIMS)).schema_plan()
    assert plan.newer and plan.missing == [] and plan.vector_dimensions == DIMS and plan.without_vector is None
    empty.query("DROP INDEX memory_text")
    assert empty.memory("newer", HashingEmbedder(DIMS)).schema_plan().missing == ["memory_text"]


def test_setup_check_on_a_schema_version_changed_by_hand_exits_4_with_what_to_do(empty):
    memory = empty.memory("hand", HashingEmbedder(DIMS))
    memory.setup()
    empty.query("MATCH (s:GraphMemStore) SET s.schemaVersion = 'four'")
    for args in (["setup", "--check"], ["setup"]):
        done = empty.cli(*args, "--tenant", "hand", "--embedder", "hashing")
        assert done.returncode == 4 and "Traceback" not in done.stderr, done.stderr
        assert "holds schemaVersion 'four', not a version number" in done.stderr and "setup()" in done.stderr
