"""The core's key-value surface (``ItemStore``, what ``GraphMemStore`` translates LangGraph's
operations to) and the stored form of an item, against a real Neo4j."""

from __future__ import annotations

import json

import pytest

from graphmem import InvalidInputError
from graphmem._memory.store import ItemDelete, ItemGet, ItemPut, ItemScopes, ItemSearch, item_subject
from graphmem._sync.store import ItemStore

VERSIONS = """
MATCH (m:Fact {tenant: $tenant, subject: $subject})
OPTIONAL MATCH (m)-[s:SUPERSEDES]->(old:Fact)
RETURN properties(m) AS props, s.reason AS reason, old.id AS replaced
ORDER BY m.createdAt, m.id
"""


def test_batch_reads_see_the_state_before_its_writes(memory):
    items = ItemStore(memory)
    assert items.batch(writes=[ItemPut("kv/a", "k", {"n": 1}), ItemPut("kv/b", "k", {"n": 2})]).got == []
    reads = [ItemGet("kv/a", "k"), ItemGet("kv/a", "missing"), ItemSearch("kv", 10), ItemScopes("kv"), ItemScopes(None)]
    results = items.batch(reads, [ItemPut("kv/a", "k", {"n": 3}), ItemDelete("kv/b", "k")])
    first, missing = results.got
    assert first is not None and first.value == {"n": 1} and first.key == "k" and first.scope == "kv/a"
    assert missing is None and first.ttl is None
    assert [sorted(i.scope for i in found) for found in results.found] == [["kv/a", "kv/b"]]
    assert results.scopes == [["kv/a", "kv/b"], ["kv/a", "kv/b"]]
    after = items.batch([ItemGet("kv/a", "k"), ItemGet("kv/b", "k"), ItemScopes("kv")])
    now, gone = after.got
    assert now is not None and now.value == {"n": 3} and gone is None and after.scopes == [["kv/a"]]
    assert now.created == first.created and now.updated > first.updated and now.id != first.id
    history = items.history("kv/b", "k")
    assert [(v.value, v.reason) for v in history] == [({"n": 2}, "forgotten")]
    assert [v.value for v in items.history("kv/a", "k")] == [{"n": 1}, {"n": 3}]


def test_a_version_is_stored_whole_as_a_single_valued_fact(memory, driver):
    items = ItemStore(memory)
    items.batch(writes=[ItemPut("s", "k", {"text": "tea", "n": 1}, text="tea", ttl=30, user_id="ann")])
    items.batch(writes=[ItemPut("s", "k", {"text": "tea", "n": 1}, text="tea")])  # the same value again
    rows, _, _ = driver.execute_query(VERSIONS, tenant=memory.tenant, subject=item_subject("s", "k"))
    assert len(rows) == 2
    first, second = (r["props"] for r in rows)
    for props in (first, second):
        # the object is the version's own id, so that a put of the same value is a new version
        assert props["object"] == props["id"] and props["predicate"] == "langgraph_item"
        assert json.loads(props["valueJson"]) == {"text": "tea", "n": 1} and props["storeKey"] == "k"
        assert props["singleValued"] is True and props["provenance"] == "manual" and props["text"] == "tea"
        assert props["storeCreatedAt"] == first["createdAt"]  # the item's creation: its first put
    assert first["storeTtl"] == 30.0 and first["userId"] == "ann" and "storeTtl" not in second
    assert (rows[1]["reason"], rows[1]["replaced"]) == ("changed", first["id"])


def test_reads_and_writes_of_other_shapes_are_refused_naming_them(memory):
    items = ItemStore(memory)
    cases = [
        (dict(reads=[{"op": "get", "items": []}]), "reads[0]"),
        (dict(reads=[ItemGet("s", "k"), ItemSearch("s", -1)]), "reads[1].limit"),
        (dict(reads=[ItemScopes("/bad/")]), "reads[0].prefix"),
        (dict(writes=[{"scope": "s", "key": "k", "value": {}}]), "writes[0]"),
        (dict(writes=[ItemPut("s", "k", {"n": 1}), ItemDelete("s", "k")]), "writes[1].key"),
        (dict(writes=[ItemPut("s", "k", {"n": 1}, field_texts=["a", ""])]), "writes[0].field_texts"),
        (dict(writes=[ItemPut("s", "k", {"n": 1}, ttl=0)]), "ttl"),
    ]
    for arguments, field in cases:
        with pytest.raises(InvalidInputError) as info:
            items.batch(**arguments)
        assert info.value.field == field, (arguments, info.value)
    assert items.batch([ItemScopes("s")]).scopes == [[]]  # nothing of the refused batches was written


def test_a_sweep_takes_a_checked_prefix_and_deletes_only_expired_items_below_it(memory):
    items = ItemStore(memory)
    with pytest.raises(InvalidInputError) as info:
        items.sweep("/bad/")
    assert info.value.field == "prefix"
    items.batch(writes=[ItemPut("kv/a", "k", {"n": 1}, ttl=30), ItemPut("kv/b", "k", {"n": 2})])
    assert items.sweep("kv") == 0 and items.sweep() == 0  # a TTL not yet run out
    assert [v.value for v in items.history("kv/a", "k")] == [{"n": 1}]


def test_an_item_s_user_and_session_are_what_erase_finds_it_by(memory):
    items = ItemStore(memory)
    items.batch(writes=[ItemPut("a/b", "k1", {"v": 1}, embed=False, user_id="ann", session_id="s1"),
                        ItemPut("a/b", "k2", {"v": 2}, embed=False, user_id="ann", session_id="s2"),
                        ItemPut("a/b", "k3", {"v": 3}, embed=False)])
    assert memory.erase(session_id="s1").total == 1
    assert sorted(i.key for i in items.batch([ItemSearch("a", 10)]).found[0]) == ["k2", "k3"]
    assert memory.erase(user_id="ann").total == 1
    assert [i.key for i in items.batch([ItemSearch("a", 10)]).found[0]] == ["k3"]
    with pytest.raises(InvalidInputError) as info:
        items.batch(writes=[ItemPut("a/b", "k4", {"v": 4}, embed=False, session_id=" s")])
    assert "session_id" in info.value.field
