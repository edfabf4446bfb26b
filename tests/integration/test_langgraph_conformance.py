"""GraphMemStore behaves as LangGraph's reference stores do where its contract says so
(docs/integrations.md#langgraph-store): several indexed texts scored by the best one,
namespace labels of any text LangGraph accepts, filter keys as plain paths, sync calls from
threads on an async store (refused on the loop's own thread as LangGraph's callers expect),
and thousands of concurrent async calls. Against a real Neo4j."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp, SearchOp
from neo4j import AsyncGraphDatabase

from graphmem import AsyncMemory, ConfigurationError, EventLoopThreadError, HashingEmbedder, InvalidInputError, Memory
from graphmem.integrations.langgraph import GraphMemStore


def _store(memory, fields):
    return GraphMemStore(memory, index={"dims": 256, "embed": HashingEmbedder(256), "fields": fields})


# -- several indexed texts ----------------------------------------------------------------
def test_an_item_scores_as_its_best_field(memory):
    store = _store(memory, ["a", "b", "c"])
    store.put(("docs",), "one", {"a": "red apples", "b": "green pears", "skip": "blue plums"})
    store.put(("docs",), "two", {"a": "yellow lemons", "c": "red apples", "skip": "green pears"})
    both = store.search(("docs",), query="red apples")
    assert {h.key for h in both} == {"one", "two"}
    assert both[0].score == pytest.approx(1.0, abs=1e-4) and both[1].score == pytest.approx(1.0, abs=1e-4)
    pears = store.search(("docs",), query="green pears")
    assert pears[0].key == "one" and pears[0].score == pytest.approx(1.0, abs=1e-4)
    assert pears[1].score < 0.9  # "green pears" of item two is not an indexed field
    lemons = store.search(("docs",), query="yellow lemons")
    assert [h.key for h in lemons] == ["two", "one"] and lemons[1].score < lemons[0].score


def test_each_element_of_a_path_is_its_own_text(memory):
    store = _store(memory, ["notes[*].text"])
    store.put(("n",), "trip", {"notes": [{"text": "museum in Berlin"}, {"text": "night train to Vienna"},
                                         {"text": "coffee in Prague"}]})
    store.put(("n",), "other", {"notes": [{"text": "train timetable"}]})
    hit = store.search(("n",), query="night train to Vienna")[0]
    assert hit.key == "trip" and hit.score == pytest.approx(1.0, abs=1e-4)
    assert store.search(("n",), query="coffee in Prague")[0].score == pytest.approx(1.0, abs=1e-4)


def test_a_put_names_its_own_fields_and_the_memory_embedder_scores_fields_too(memory):
    own = GraphMemStore(memory, index={"fields": ["nowhere"]})  # the memory's embedder
    own.put(("p",), "x", {"k0": "alpha beta", "k1": "gamma delta", "k2": "epsilon"}, index=["k0", "k1"])
    own.put(("p",), "y", {"k0": "zeta", "k1": "eta", "k2": "gamma delta"}, index=["k0", "k2"])
    scores = {h.key: h.score for h in own.search(("p",), query="gamma delta")}
    assert scores["x"] == pytest.approx(1.0, abs=1e-4) and scores["y"] == pytest.approx(1.0, abs=1e-4)
    assert own.search(("p",), query="alpha beta")[0].key == "x"
    assert own.search(("p",), query="epsilon")[0].score < 0.9  # k2 of x is not indexed


def test_field_vectors_stay_on_the_item_record_so_recall_and_erase_see_them(memory):
    store = _store(memory, ["title", "body"])
    store.put(("kb",), "1", {"title": "Lisbon", "body": "trams climb the hills"})
    facts = memory.facts(scope="kb")
    assert [f.text for f in facts] == ["Lisbon\ntrams climb the hills"]  # one record per item
    assert memory.recall("trams climb the hills", scope="kb", k=1)[0].record.id == facts[0].id
    memory.erase(scope="kb")
    assert store.search(("kb",), query="Lisbon") == [] and memory.facts(scope="kb") == []
    assert store.get(("kb",), "1") is None


def test_too_many_indexed_texts_is_refused_naming_the_value(memory):
    store = _store(memory, ["xs[*]"])
    with pytest.raises(InvalidInputError) as info:
        store.put(("t",), "k", {"xs": [f"text {i}" for i in range(513)]})
    assert info.value.field == "value" and "512" in str(info.value)
    assert store.get(("t",), "k") is None


# -- namespace labels ---------------------------------------------------------------------
LABELS = [("alice\n",), ("a/b", " padded "), ("%41", "50%"), ("tab\tinside", "zero\u200bwidth"), ("\u00e9t\u00e9",)]


@pytest.mark.parametrize("namespace", LABELS, ids=repr)
def test_any_label_langgraph_accepts_round_trips(memory, namespace):
    store = GraphMemStore(memory)
    store.put(namespace, "k", {"v": 1})
    assert store.get(namespace, "k").namespace == namespace
    assert [i.namespace for i in store.search(namespace[:1])] == [namespace]
    assert store.list_namespaces() == [namespace]
    assert store.list_namespaces(prefix=namespace[:1]) == [namespace]


def test_labels_map_to_distinct_scopes_and_plain_labels_keep_theirs(memory):
    store = GraphMemStore(memory)
    for ns in [("a/b",), ("a", "b"), ("a%2Fb",), ("alice",), ("alice\n",)]:
        store.put(ns, "k", {"ns": list(ns)})
    assert store.scope_of(("users", "42")) == "users/42" and store.scope_of(("a/b",)) == "a%2Fb"
    assert store.get(("a/b",), "k").value == {"ns": ["a/b"]} and store.get(("a%2Fb",), "k").value == {"ns": ["a%2Fb"]}
    assert {i.namespace for i in store.search(("a",))} == {("a", "b")}  # "a/b" is one label, not two
    assert store.get(("alice",), "k").value == {"ns": ["alice"]}
    for bad in [("",), ("a.b",), ("ok", 7)]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"v": 1})


# -- filters ------------------------------------------------------------------------------
def test_filter_keys_are_value_keys_or_dotted_paths_into_nested_dicts(memory):
    store = GraphMemStore(memory)
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested", "rank": 3}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2", "rank": 1}})
    store.put(("docs",), "dotted", {"user.access-level": "literal", "user": {"access-level": "inner"}})

    def keys(**filters):
        return sorted(i.key for i in store.search(("docs",), filter=filters["f"]))

    assert keys(f={"access-level": "public"}) == ["hyphen"] and keys(f={"123abc": "ok"}) == ["digit"]
    assert keys(f={"user.access-level": "nested"}) == ["hyphen"] and keys(f={"user.123abc": "ok2"}) == ["digit"]
    assert keys(f={"user.access-level": "literal"}) == ["dotted"]  # a key the value holds as it is wins
    assert keys(f={"user.access-level": "inner"}) == []
    assert keys(f={"user.rank": {"$gte": 2}}) == ["hyphen"] and keys(f={"user.rank": {"$ne": 3}}) == ["digit", "dotted"]
    assert keys(f={"user": {"access-level": "nested"}}) == ["hyphen"]  # nested dicts, as before


async def test_a_filter_key_that_is_not_a_plain_path_is_refused_before_any_read(neo4j, schema, embedder, tenant):
    reads = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: reads.append(name)) as memory:
        store = GraphMemStore(memory)
        store.put(("docs",), "public", {"access": "public"})
        reads.clear()
        bad = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
        with pytest.raises(ValueError, match="Invalid filter key") as info:
            store.search(("docs",), filter={bad: "dummy"})
        assert isinstance(info.value, InvalidInputError) and info.value.field == "filter"
        assert repr(bad) in str(info.value)
        with pytest.raises(InvalidInputError, match="Invalid filter key 'a\\[0\\]'"):
            await store.asearch(("docs",), filter={"a[0]": 1})
        with pytest.raises(InvalidInputError, match="'\\$in'"):
            store.batch([SearchOp(("docs",), filter={"access": {"$in": ["public"]}})])
        assert reads == []
        assert [i.key for i in store.search(("docs",), filter={"access": "public"})] == ["public"] and reads


# -- the async store ----------------------------------------------------------------------
async def test_sync_calls_from_threads_on_a_store_built_in_async_code(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        store = GraphMemStore(amem)
        await asyncio.to_thread(store.put, ("t",), "k", {"v": 1})  # no async call was made before
        assert (await asyncio.to_thread(store.get, ("t",), "k")).value == {"v": 1}
        assert (await store.aget(("t",), "k")).value == {"v": 1}
        calls = [lambda: store.get(("t",), "k"), lambda: store.put(("t",), "k", {"v": 2}),
                 lambda: store.delete(("t",), "k"), lambda: store.search(("t",)),
                 lambda: store.list_namespaces(prefix=("t",)), lambda: store.batch([PutOp(("t",), "k", {"v": 3})])]
        for call in calls:  # LangGraph's callers catch asyncio.InvalidStateError; every refusal is graphmem's
            with pytest.raises(EventLoopThreadError, match="event loop's own thread") as info:
                call()
            assert isinstance(info.value, asyncio.InvalidStateError) and isinstance(info.value, ConfigurationError)
        assert (await store.aget(("t",), "k")).value == {"v": 1}  # nothing was written
        elsewhere = await asyncio.to_thread(GraphMemStore, amem)  # built where no loop runs
        with pytest.raises(ConfigurationError, match="build the store in async code"):
            await asyncio.to_thread(elsewhere.get, ("t",), "k")
        await elsewhere.aget(("t",), "k")
        assert (await asyncio.to_thread(elsewhere.get, ("t",), "k")).value == {"v": 1}


async def test_thousands_of_concurrent_calls_complete_on_a_small_pool(neo4j, schema, embedder, tenant):
    # two pooled connections and a 5 s wait for one: a transaction per call would starve
    driver = AsyncGraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password), max_connection_pool_size=2,
                                       connection_acquisition_timeout=5.0)
    try:
        amem = AsyncMemory.from_driver(driver, tenant=tenant, embedder=embedder)
        store = GraphMemStore(amem)
        calls = []
        for i in range(1500):
            ns = ("load", str(i % 3))
            calls += [store.aput(ns, f"k{i % 500}", {"i": i}), store.aget(ns, f"k{i % 500}"), store.asearch(("load",))]
        results = await asyncio.gather(*calls)
        assert len(results) == 4500
        assert all(isinstance(r, list) for r in results[2::3])
        last = {}
        for i in range(1500):
            last[(str(i % 3), f"k{i % 500}")] = i
        for (part, key), i in list(last.items())[:50]:
            assert (await store.aget(("load", part), key)).value == {"i": i}
        assert await store.alist_namespaces(prefix=("load",)) == [("load", "0"), ("load", "1"), ("load", "2")]
    finally:
        await driver.close()


async def test_a_bad_call_merged_with_others_fails_alone(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        store = GraphMemStore(amem)
        good = [store.aput(("m",), f"k{i}", {"i": i}) for i in range(20)]
        bad = store.abatch([PutOp(("m",), "bad", {"x": object()})])
        out = await asyncio.gather(*good, bad, return_exceptions=True)
        assert out[:20] == [None] * 20
        assert isinstance(out[20], InvalidInputError) and out[20].field == "value"
        assert len(await store.asearch(("m",), limit=100)) == 20 and await store.aget(("m",), "bad") is None
