"""Idempotence, all-or-nothing batches, bad input, the tracer."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from graphmem import MAX_TEXT_LENGTH, InvalidInputError, Memory, NotFoundError

from .helpers import utc

SCOPE = "acme/ops"


def count(driver, tenant):
    records, _, _ = driver.execute_query("MATCH (m:Memory {tenant: $t}) RETURN count(m) AS n", {"t": tenant})
    return records[0]["n"]


def test_same_id_twice_leaves_one_node(memory, driver):
    first = memory.remember("Deploys happen on Tuesdays", scope=SCOPE, id="rule-1")
    again = memory.remember("Deploys happen on Fridays", scope=SCOPE, id="rule-1")
    assert again.id == first.id and again.text == "Deploys happen on Tuesdays"
    assert count(driver, memory.tenant) == 1
    ep1 = memory.add_episode("hello", scope=SCOPE, id="ep-1")
    ep2 = memory.add_episode("hello again", scope=SCOPE, id="ep-1")
    # the episode, and once its speaker's entity (the user, by role): the second write added nothing
    assert ep1 == ep2 and count(driver, memory.tenant) == 3
    speakers = memory.graph(scope=SCOPE, kinds=["entity"]).nodes(data=True)
    assert [a["name"] for _, a in speakers] == ["user"]


def test_an_id_used_by_another_kind_is_refused(memory):
    memory.add_episode("hello", scope=SCOPE, id="shared-id")
    with pytest.raises(InvalidInputError) as info:
        memory.remember("a fact", scope=SCOPE, id="shared-id")
    assert info.value.field == "id"


def test_a_batch_that_fails_validation_half_way_writes_nothing(memory, driver):
    items = [{"text": f"fact {i}", "scope": SCOPE} for i in range(10)]
    items[6]["valid_from"] = datetime(2020, 1, 1)  # naive
    with pytest.raises(InvalidInputError) as info:
        memory.remember_many(items)
    assert info.value.field == "items[6].valid_from"
    assert count(driver, memory.tenant) == 0
    assert memory.scopes() == []


def test_a_batch_lands_in_one_transaction(neo4j, schema, embedder, tenant):
    seen = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: seen.append(name)) as m:
        facts = m.remember_many([{"text": f"fact {i}", "scope": SCOPE} for i in range(50)])
    assert len(facts) == 50 and len({f.id for f in facts}) == 50
    assert seen.count("fact_create") == 1


@pytest.mark.parametrize("kwargs, field", [
    ({"valid_from": datetime(2020, 1, 1)}, "valid_from"),
    ({"valid_to": datetime(2020, 1, 1)}, "valid_to"),
    ({"valid_from": utc(2021), "valid_to": utc(2020)}, "valid_to"),
    ({"text": ""}, "text"),
    ({"text": "   "}, "text"),
    ({"text": "x" * (MAX_TEXT_LENGTH + 1)}, "text"),
    ({"provenance": "rumour"}, "provenance"),
    ({"embedding": [0.1] * 3}, "embedding"),
    ({"embedding": [math.nan] * 256}, "embedding"),
    ({"importance": 1.5}, "importance"),
    ({"sensitivity": "top-secret"}, "sensitivity"),
    ({"subject": "alice"}, "predicate"),
    ({"tags": "oops"}, "tags"),
    ({"tags": {"a": 1}}, "tags"),  # a dict's keys were taken for the tags (issue 43.6)
])
def test_bad_input_names_the_field_and_writes_nothing(memory, driver, kwargs, field):
    args = {"text": "Alice lives in Paris", "scope": SCOPE, **kwargs}
    with pytest.raises(InvalidInputError) as info:
        memory.remember(**args)
    assert info.value.field == field
    assert field in str(info.value)
    assert count(driver, memory.tenant) == 0


def test_a_restatement_s_sources_are_checked_too(memory):
    """Text already stored is returned, not written again, but a derived_from id that names
    nothing is still bad input (it used to return the stored fact, issue 43.6)."""
    fact = memory.remember("Alice lives in Paris", scope=SCOPE)
    with pytest.raises(InvalidInputError) as info:
        memory.remember("Alice lives in Paris", scope=SCOPE, derived_from=["nope"])
    assert info.value.field == "derived_from[0]"
    said = memory.add_episode("Alice: I live in Paris", scope=SCOPE)
    assert memory.remember("Alice lives in Paris", scope=SCOPE, derived_from=[said.id]).id == fact.id


def test_a_wrong_dimension_from_the_embedder_is_refused(neo4j, schema, tenant, driver):
    from langchain_core.embeddings import Embeddings

    class Short(Embeddings):
        def embed_documents(self, texts):
            return [[1.0, 0.0, 0.0] for _ in texts]

        def embed_query(self, text):
            return [1.0, 0.0, 0.0]

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=Short()) as m:
        with pytest.raises(InvalidInputError, match="3 dimensions; the vector index has 256; the store's vectors "
                                                    "come from another embedder"):
            m.remember("x", scope=SCOPE)
        # a vector the caller gives is the caller's: no word of embedders
        with pytest.raises(InvalidInputError, match=r"embedding: has 3 dimensions; the vector index has 256$"):
            m.remember("x", scope=SCOPE, embedding=[1.0, 0.0, 0.0])
    assert count(driver, tenant) == 0


def test_correct_an_unknown_id(memory):
    with pytest.raises(NotFoundError, match="fact_id"):
        memory.correct("no-such-fact", "whatever")


def test_the_tracer_sees_every_template_and_never_the_password(neo4j, schema, embedder, tenant):
    seen = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: seen.append((name, params, seconds))) as m:
        fact = m.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in", object="Paris")
        m.facts(scope=SCOPE)
        m.get(fact.id)
    names = [name for name, _, _ in seen]
    # the first call reads the store's node (its schema version and vector slot), the first
    # embedding write the vector index's dimension, once per Memory; every write transaction
    # begins with the writers' guard (docs/operations.md#while-a-run-is-under-way-what-is-guaranteed)
    assert names == ["store_layout", "schema_vector_info", "write_guard", "memory_existing", "fact_duplicates", "scope_ensure", "fact_create",
                     "fact_supersede", "fact_list", "memory_get"]
    create = {name: params for name, params, _ in seen}["fact_create"]
    assert create["tenant"] == tenant and create["rows"][0]["props"]["text"] == "Alice lives in Paris"
    assert all(seconds >= 0 for _, _, seconds in seen)
    assert neo4j.password not in repr(seen)


@pytest.mark.long  # make test-reliability: inputs at volume
def test_texts_up_to_the_limit_are_stored_and_forgettable(memory):
    """Range indexes cap values at ~8 KB; long texts must still be written, matched and forgotten."""
    words = " ".join(f"word{i}" for i in range(5000))[:MAX_TEXT_LENGTH - 5]
    episode = memory.add_episode(words, scope="s")
    fact = memory.remember(words + " fact", scope="s")
    assert memory.get(episode.id).text == words and fact.text.endswith(" fact")
    assert memory.forget(scope="s", text=words + " fact") == 1
    assert memory.remember(words + " fact", scope="s", provenance="extraction") is None  # tombstone still matches
