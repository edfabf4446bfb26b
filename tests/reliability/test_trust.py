"""Issue 28's trust holes, one test per finding, each through the public API on the real
Neo4j: whose a record is counts in every "same record" decision, an import is checked as
every write is, and every bad input gets a graphmem error naming the field."""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphmem import ConflictError, InvalidInputError, Memory
from graphmem._base.scopes import MAX_DEPTH
from graphmem.integrations.langgraph import GraphMemStore

from .helpers import footprint

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

DOCS = Path(__file__).resolve().parents[2] / "docs"
T0 = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)


def open_memory(neo4j, tenant, embedder=None, **kwargs) -> Memory:
    return Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, **kwargs)


@pytest.fixture
def second(neo4j, schema, embedder, tenant):
    """Another tenant of the same database."""
    with open_memory(neo4j, tenant + "-b", embedder) as m:
        yield m
        m.erase(scope="u")


# -- 1. whose a record is --------------------------------------------------------------------------------------


def test_two_people_saying_the_same_thing_are_two_records(memory):
    maria = memory.remember("I am vegetarian", scope="u", user_id="maria")
    bob = memory.remember("I am vegetarian", scope="u", user_id="bob")
    assert bob.id != maria.id and bob.user_id == "bob"
    # the same person saying it again is still one record
    assert memory.remember("I am vegetarian", scope="u", user_id="maria").id == maria.id
    assert memory.remember("i am  vegetarian.", scope="u", user_id="bob").id == bob.id
    # ... and so are the agent and session dimensions
    assert memory.remember("I am vegetarian", scope="u", user_id="bob", session_id="s2").id != bob.id
    memory.erase(user_id="maria")
    left = memory.recall("vegetarian", scope="u", kinds=["fact"])
    assert {r.record.user_id for r in left} == {"bob"}
    assert memory.get(bob.id).user_id == "bob"


def test_a_batch_keeps_each_owner_s_statement(memory):
    facts = memory.remember_many([{"text": "I like tea", "scope": "u", "user_id": u} for u in ("ann", "bo", "ann")])
    assert facts[0].id == facts[2].id and facts[1].id != facts[0].id
    assert [f.user_id for f in facts] == ["ann", "bo", "ann"]


def test_an_explicit_id_of_another_owner_is_refused(memory, driver):
    memory.remember("I am vegetarian", scope="u", user_id="maria", id="diet-1")
    before = footprint(driver, memory.tenant)
    with pytest.raises(InvalidInputError) as err:
        memory.remember("I am vegetarian", scope="u", user_id="bob", id="diet-1")
    assert err.value.field == "id" and "another user_id" in err.value.message
    assert footprint(driver, memory.tenant) == before
    assert memory.remember("I am vegetarian", scope="u", user_id="maria", id="diet-1").user_id == "maria"
    with pytest.raises(InvalidInputError) as err:  # in a batch, the item is named, and none of the batch lands
        memory.remember_many([{"text": "I like figs", "scope": "u", "user_id": "bob"},
                              {"text": "I am vegetarian", "scope": "u", "user_id": "bob", "id": "diet-1"}])
    assert err.value.field == "items[1].id" and "another user_id" in err.value.message
    assert footprint(driver, memory.tenant) == before


def test_the_same_words_from_two_people_at_once_are_two_episodes(memory):
    said = {"role": "user", "content": "I moved to Glasgow", "occurred_at": T0}
    memory.ingest([said], scope="u", session_id="s", user_id="maria", llm=None)
    memory.ingest([said], scope="u", session_id="s", user_id="bob", llm=None)
    assert {m.user_id for m in memory.messages("s", scope="u")} == {"maria", "bob"}
    memory.erase(user_id="maria")
    assert [m.user_id for m in memory.messages("s", scope="u")] == ["bob"]


def test_curation_never_merges_two_people_s_records(memory):
    for user in ("maria", "bob"):
        memory.remember("Prefers window seats", scope="u", user_id=user, provenance="extraction")
    assert memory.dedupe(scope="u") == 0
    memory.remember("Prefers window seats", scope="u", user_id="bob", session_id="s9", provenance="extraction",
                    id="restated")
    memory.remember("Prefers window seats", scope="u", user_id="bob", session_id="s9", provenance="extraction",
                    id="restated-again")
    assert memory.dedupe(scope="u") == 1  # one owner's two records are still duplicates
    memory.erase(user_id="maria")
    assert {f.user_id for f in memory.facts(scope="u")} == {"bob"}


def test_one_person_s_forget_does_not_silence_another(memory):
    memory.remember("Allergic to nuts", scope="u", user_id="maria", provenance="extraction")
    assert memory.forget(scope="u", text="Allergic to nuts") == 1
    # an extraction for maria stays held back; the same words for bob are his
    assert memory.remember("Allergic to nuts", scope="u", user_id="maria", provenance="extraction") is None
    bob = memory.remember("Allergic to nuts", scope="u", user_id="bob", provenance="extraction")
    assert bob is not None and bob.user_id == "bob"


def test_an_insight_of_one_person_is_not_another_s_twin(memory):
    fact = memory.remember("Ann works at Acme", scope="u")
    mine = memory.add_insight("Ann is employed", scope="u", cites=[fact.id], user_id="maria")
    theirs = memory.add_insight("Ann is employed", scope="u", cites=[fact.id], user_id="bob")
    assert mine.id != theirs.id and theirs.user_id == "bob"


# -- 2. import goes through the checks ---------------------------------------------------------------------------


def exported(memory, text="Order 4411 ships on Monday"):
    memory.remember(text, scope="u/shop", user_id="ann")
    return list(memory.export_records())


def node_of(records):
    return next(i for i, r in enumerate(records) if r["record"] == "node")


@pytest.mark.parametrize("key, value, field_end, words", [
    ("text", "order \udc80 4411", "props.text", "surrogate"),  # free text keeps NUL and ESC (issue 49.7), not this
    ("subjectName", "Ann\x1b[2J", "props.subjectName", "control character"),  # a name refuses them
    ("text", "x" * 10_000_000, "props.text", "limit"),
    ("embedding", [float("nan")] * 256, "props.embedding", "NaN"),
    ("embedding", [0.1] * 3, "props.embedding", "dimensions"),
    ("tags", ["ok", "bad\x07"], "props.tags[1]", "control character"),
    ("provenance", "oracle", "props.provenance", "not one of"),
    ("importance", 7, "props.importance", "between 0 and 1"),
    ("userId", " ann", "props.userId", "space"),
    ("validFrom", "2026-01-01", "props.validFrom", "datetime"),
    ("isAdmin", True, "props.isAdmin", "not a property graphmem writes"),
])
def test_import_refuses_what_a_write_would(memory, second, driver, key, value, field_end, words):
    records = exported(memory)
    i = node_of(records)
    bad = json.loads(json.dumps(records[i]))
    bad["props"][key] = value
    records[i] = bad
    before = footprint(driver, second.tenant)
    with pytest.raises(InvalidInputError, match=words) as err:
        second.import_records(records, batch_size=1)
    assert err.value.field == f"records[{i}].{field_end}"
    assert footprint(driver, second.tenant) == before  # nothing of the file was written


def test_a_chosen_lexkey_cannot_blind_another_tenant(neo4j, schema, memory, second):
    victim = open_memory(neo4j, memory.tenant)  # full-text only: the lexical side is all there is
    for n in range(10):
        memory.remember(f"invoice {n} is paid", scope="u")
    assert len(victim.recall("invoice", scope="u", k=10)) == 10
    stolen = victim.recall("invoice", scope="u", k=1)[0].record
    victim_key = [r for r in memory.export_records() if r["record"] == "node"][0]["props"]["lexKey"]
    flood = [{"record": "node", "kind": "fact", "props": {
        "id": f"flood-{n}", "scope": stolen.scope, "text": "invoice invoice invoice", "lexKey": victim_key,
        "provenance": "manual", "status": "active", "createdAt": {"$datetime": T0.isoformat()},
    }} for n in range(300)]
    second.import_records([{"record": "header", "format": "graphmem-export", "version": 1, "tenant": "x", "scope": None},
                           *flood])
    assert len(victim.recall("invoice", scope="u", k=10)) == 10
    assert all(r.record.tenant == memory.tenant for r in victim.recall("invoice", scope="u", k=10))
    victim.close()


def test_an_exported_copy_keeps_keyword_recall(neo4j, schema, memory, second):
    records = exported(memory)
    second.import_records(records)
    keyword = open_memory(neo4j, second.tenant)
    try:
        found = keyword.recall("order 4411", scope="u/shop")
        assert [r.record.text for r in found] == ["Order 4411 ships on Monday"]
        assert found[0].parts.lexical > 0
    finally:
        keyword.close()


def test_import_checks_the_whole_file_first(memory, second, driver):
    records = exported(memory)
    i = node_of(records)
    twice = [*records[:i + 1], records[i]]
    with pytest.raises(InvalidInputError) as err:
        second.import_records(twice, batch_size=1)
    assert err.value.field == f"records[{i + 1}].props.id"
    assert footprint(driver, second.tenant) == (0, 0)
    second.import_records(records)
    with pytest.raises(ConflictError, match=rf"records\[{i}\]"):
        second.import_records(iter(records))
    assert sum(row["total"] for row in second.counts()) == len([r for r in records if r["record"] == "node"])


def test_import_keeps_notes_and_summaries_their_labels(memory, second, driver):
    memory.note_add("likes tea", scope="u", owner="ann")
    second.import_records(list(memory.export_records()))
    assert [n.text for n in second.notes(scope="u", owner="ann")] == ["likes tea"]


# -- 3. clear errors, true acceptances -----------------------------------------------------------------------------


def test_stats_and_curate_survive_a_memory_without_provenance(memory, driver):
    memory.remember("Ann works at Acme", scope="u")
    driver.execute_query("MATCH (m:Memory {tenant: $t}) REMOVE m.provenance", {"t": memory.tenant})
    stats = memory.stats(scope="u")
    assert stats.by_provenance == {"unknown": 1}
    assert memory.curate(scope="u") is not None


def test_control_characters_inside_entity_properties_are_refused(memory, driver):
    before = footprint(driver, memory.tenant)
    for properties, field in [({"note": "a\x00b"}, "properties.note"), ({"a": {"b": ["ok", "\x1b[2J"]}}, "properties.a.b[1]"),
                              ({"k\x07": 1}, "properties key 'k\\x07'")]:
        with pytest.raises(InvalidInputError, match="control character") as err:
            memory.upsert_entity("Ann", type="person", scope="u", properties=properties)
        assert err.value.field == field
    assert footprint(driver, memory.tenant) == before


@pytest.mark.parametrize("blank", ["\u200b", "\u200b\u200c\u200d", " \ufeff ", "\u2060"])
def test_text_of_only_zero_width_characters_is_empty(memory, blank):
    with pytest.raises(InvalidInputError, match="must not be empty"):
        memory.remember(blank, scope="u")
    with pytest.raises(InvalidInputError, match="must not be empty"):
        memory.add_episode(blank, scope="u", role="user")


def test_derived_from_must_name_episodes(memory, driver):
    episode = memory.add_episode("I moved to Glasgow", scope="u", role="user")
    fact = memory.remember("Lives in Glasgow", scope="u")
    before = footprint(driver, memory.tenant)
    for sources, words in [(["missing"], "names no memory"), ([episode.id, fact.id], "not an episode")]:
        with pytest.raises(InvalidInputError, match=words) as err:
            memory.remember("Moved", scope="u", derived_from=sources)
        assert err.value.field == f"derived_from[{len(sources) - 1}]"
    with pytest.raises(InvalidInputError) as err:
        memory.remember_many([{"text": "ok", "scope": "u"}, {"text": "x", "scope": "u", "derived_from": ["gone"]}])
    assert err.value.field == "items[1].derived_from[0]"
    assert footprint(driver, memory.tenant) == before
    kept = memory.remember("Moved", scope="u", derived_from=[episode.id])
    assert list(memory.evidence(kept.id).successors(kept.id)) == [episode.id]


def test_store_values_get_graphmem_errors(memory, driver):
    store = GraphMemStore(memory)
    before = footprint(driver, memory.tenant)
    for value, words in [({"a": object()}, "JSON"), ({"a": {1, 2}}, "JSON"), ({"a": "x" * 10_000_000}, "limit"),
                         ({"a": "\x1b[2J"}, "control character"), ({"k\x00": 1}, "control character")]:
        with pytest.raises(InvalidInputError, match=words) as err:
            store.put(("users", "ann"), "k", value)
        assert err.value.field.startswith("value")
    with pytest.raises(InvalidInputError, match="control character"):
        store.put(("users", "ann"), "bad\x1bkey", {"a": 1})
    assert footprint(driver, memory.tenant) == before


def test_tenants_and_ids_padded_with_spaces_are_refused(neo4j, schema, tenant):
    for name in (tenant + " ", " " + tenant, tenant + "\t"):
        with pytest.raises(InvalidInputError, match="tenant"):
            open_memory(neo4j, name)
    with open_memory(neo4j, tenant) as m:
        with pytest.raises(InvalidInputError) as err:
            m.remember("x", scope="u", user_id="maria ")
        assert err.value.field == "user_id"


def test_a_correction_that_loses_a_race_is_a_conflict(neo4j, schema, memory):
    fact = memory.remember("Ann lives in Leeds", scope="u", subject="ann", predicate="lives_in", object="Leeds")
    rival = open_memory(neo4j, memory.tenant)
    read = memory._store.run.read_as
    raced = threading.Event()

    def read_then_lose(row_type, name, **params):  # the fact is read, then corrected by another writer
        rows = read(row_type, name, **params)
        if name == "memory_get" and not raced.is_set():
            raced.set()
            rival.correct(fact.id, "Ann lives in York", object="York")
        return rows

    memory._store.run.read_as = read_then_lose
    try:
        with pytest.raises(ConflictError, match="concurrently"):
            memory.correct(fact.id, "Ann lives in Glasgow", object="Glasgow")
    finally:
        memory._store.run.read_as = read
        rival.close()
    assert raced.is_set()
    assert [f.object for f in memory.facts(scope="u", subject="ann")] == ["York"]


def test_limits_doc_states_the_scope_depth_the_code_allows(memory):
    doc = (DOCS / "limits.md").read_text()
    stated = re.search(r"a path of at most (\d+) levels", doc)
    assert stated and int(stated.group(1)) == MAX_DEPTH
    deep = "/".join(f"s{i}" for i in range(MAX_DEPTH))
    assert memory.remember("deep", scope=deep).scope == deep
    with pytest.raises(InvalidInputError, match="deeper"):
        memory.remember("too deep", scope=deep + "/x")


# -- 4. what erase reaches ---------------------------------------------------------------------------------------


def test_erase_by_session_reaches_what_only_names_the_session(memory):
    memory.ingest([{"role": "user", "content": "the refund was 12 EUR"}], scope="u", session_id="s1", llm=None)
    memory.record_correction("helper", "12 EUR", "21 EUR", field="amount", scope="u", session_id="s1")
    memory.remember("kept", scope="u", session_id="s2")
    report = memory.erase(session_id="s1")
    assert report.correction == 1 and report.episode == 1
    assert [f.text for f in memory.facts(scope="u")] == ["kept"]
    assert memory.corrections(scope="u") == []


def test_store_items_carry_the_namespace_s_user(memory):
    store = GraphMemStore(memory, user_id=lambda ns: ns[1] if ns[:1] == ("users",) else None)
    store.put(("users", "maria"), "diet", {"text": "vegetarian"})
    store.put(("users", "bob"), "diet", {"text": "vegan"})
    store.put(("shared",), "menu", {"text": "soup"})
    report = memory.erase(user_id="maria")
    assert report.fact == 1
    assert store.get(("users", "maria"), "diet") is None
    assert store.get(("users", "bob"), "diet").value == {"text": "vegan"}
    assert store.get(("shared",), "menu").value == {"text": "soup"}
    with pytest.raises(InvalidInputError):
        GraphMemStore(memory, user_id=" maria")

