"""GraphMemStore: LangGraph's store interface on the bitemporal graph, against a real Neo4j.
The first tests follow the checks LangGraph's own store tests make of every store."""

from __future__ import annotations

import asyncio
import operator
from datetime import timedelta
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from graphmem import AsyncMemory, HashingEmbedder, InvalidInputError
from graphmem.integrations.langgraph import GraphMemStore

from .helpers import Clock, utc


@pytest.fixture
def store(memory):
    return GraphMemStore(memory, index={"fields": ["text"]})


def test_put_get_delete(store):
    ns = ("users", "42")
    assert store.get(ns, "prefs") is None
    store.put(ns, "prefs", {"text": "likes tea", "n": 1})
    item = store.get(ns, "prefs")
    assert item.value == {"text": "likes tea", "n": 1} and item.key == "prefs" and item.namespace == ns
    assert item.created_at == item.updated_at
    store.put(ns, "prefs", {"text": "likes coffee", "n": 2})
    again = store.get(ns, "prefs")
    assert again.value["text"] == "likes coffee" and again.created_at == item.created_at
    assert again.updated_at > item.updated_at
    assert store.get(("users",), "prefs") is None and store.get(("users", "42", "x"), "prefs") is None
    store.delete(ns, "prefs")
    assert store.get(ns, "prefs") is None
    store.put(ns, "prefs", {"text": "likes water"})
    assert store.get(ns, "prefs").value == {"text": "likes water"}


def test_a_put_keeps_the_old_value_as_history(memory, store):
    ns = ("users", "42")
    for drink in ("tea", "coffee", "water"):
        store.put(ns, "drink", {"text": f"drinks {drink}"})
    store.delete(ns, "drink")
    versions = memory.history(subject=store.item_subject(ns, "drink"), scope="users/42")
    assert [v.text for v in versions] == ["drinks tea", "drinks coffee", "drinks water"]
    assert [s.reason for s in versions[0].superseded_by] == ["changed"]
    assert versions[0].valid_to == versions[1].valid_from and versions[0].believed  # the world changed
    assert versions[2].invalidation_reason == "forgotten"                          # delete is a forget
    assert memory.get(versions[1].id).superseded_by[0].by == versions[2].id
    values = store.history(ns, "drink")
    assert [v["value"]["text"] for v in values] == ["drinks tea", "drinks coffee", "drinks water"]
    assert [v["reason"] for v in values] == [None, None, "forgotten"]
    assert values[0]["valid_to"] == values[1]["valid_from"] and values[2]["valid_to"] is None
    assert store.history(ns, "never") == []


def test_search_by_query_filter_and_prefix(store):
    store.put(("docs", "a"), "1", {"text": "neo4j is a graph database", "kind": "db", "stars": 5})
    store.put(("docs", "a"), "2", {"text": "tea is a drink from leaves", "kind": "food", "stars": 3})
    store.put(("docs", "b"), "3", {"text": "postgres is a relational database", "kind": "db", "stars": 4})
    store.put(("other",), "4", {"text": "graph database elsewhere", "kind": "db", "stars": 1})
    hits = store.search(("docs",), query="graph database")
    assert [h.key for h in hits][:1] == ["1"] and {h.key for h in hits} == {"1", "2", "3"}
    assert hits[0].score > hits[-1].score and -1.0 <= hits[-1].score <= 1.0
    assert {h.key for h in store.search(("docs",), filter={"kind": "db"}, query="database")} == {"1", "3"}
    assert {h.key for h in store.search(("docs",), filter={"stars": {"$gte": 4}})} == {"1", "3"}
    assert {h.key for h in store.search(("docs",), filter={"stars": {"$ne": 5}, "kind": "db"})} == {"3"}
    assert [h.key for h in store.search(("docs", "b"))] == ["3"]
    assert {h.key for h in store.search(())} == {"1", "2", "3", "4"}
    page = store.search(("docs",), query="database", limit=1, offset=1)
    ranked = store.search(("docs",), query="database", limit=3)
    assert len(page) == 1 and page[0].key == ranked[1].key
    assert all(h.score is None for h in store.search(("docs",)))


def test_list_namespaces(store):
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z",)]:
        store.put(ns, "k", {"text": "v"})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z",)]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("d",)) == [("a", "b", "d")]
    assert store.list_namespaces(prefix=("a", "*")) == [("a", "b", "c"), ("a", "b", "d"), ("a", "x")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "x"), ("z",)]
    assert store.list_namespaces(limit=1, offset=1) == [("a", "b", "d")]
    store.delete(("z",), "k")
    assert ("z",) not in store.list_namespaces()


def test_batch_is_one_unit_and_reads_see_the_state_before(store):
    ns = ("b",)
    results = store.batch([
        PutOp(ns, "k1", {"text": "one"}),
        GetOp(ns, "k1"),
        PutOp(ns, "k2", {"text": "two"}),
        SearchOp(ns),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ns),)),
        PutOp(ns, "k2", {"text": "two again"}),
    ])
    assert results[0] is None and results[1] is None and results[3] == [] and results[4] == []
    assert store.get(ns, "k2").value == {"text": "two again"}
    with pytest.raises(InvalidInputError):  # a bad value rejects the whole batch
        store.batch([PutOp(ns, "k3", {"text": "three"}), PutOp(ns, "k4", {"bad": object()})])
    assert store.get(ns, "k3") is None


def test_namespaces_are_checked_and_mapped_under_a_root(memory):
    store = GraphMemStore(memory, scope="app/store")
    store.put(("users", "7"), "k", {"a": 1})
    assert store.get(("users", "7"), "k").value == {"a": 1}
    assert memory.facts(scope="app/store/users/7")[0].text == '{"a": 1}'  # no index: the JSON is the text
    assert store.list_namespaces() == [("users", "7")]
    for bad in [("",), ("a.b",)]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"a": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"a": 1})
    with pytest.raises(InvalidInputError) as info:
        store.put(("users",), "k", {"a": 1}, ttl=-5)
    assert info.value.field == "ttl"


def test_ttl_ends_valid_time_and_reads_refresh_it(neo4j, schema, embedder, tenant):
    from graphmem import Memory

    clock = Clock(utc(2025, 1, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as memory:
        store = GraphMemStore(memory, ttl={"default_ttl": 10})
        store.put(("s",), "short", {"v": 1}, ttl=1)
        store.put(("s",), "default", {"v": 2})
        store.put(("s",), "forever", {"v": 3}, ttl=None)
        clock.tick(minutes=2)
        assert store.get(("s",), "short") is None
        assert {i.key for i in store.search(("s",))} == {"default", "forever"}
        clock.tick(minutes=6)
        assert store.get(("s",), "default").value == {"v": 2}         # a read at 8 min: valid until 18
        clock.tick(minutes=6)
        assert store.get(("s",), "default", refresh_ttl=False).value == {"v": 2}  # 14 < 18, not extended
        clock.tick(minutes=5)
        assert store.get(("s",), "default") is None                   # 19 > 18
        assert store.get(("s",), "forever").value == {"v": 3}
        assert store.list_namespaces() == [("s",)]
        expired = memory.history(subject=store.item_subject(("s",), "short"), scope="s")
        assert expired[0].valid_to == utc(2025) + timedelta(minutes=1) and expired[0].believed
        store.put(("s",), "short", {"v": 4})                           # a put after expiry starts afresh
        assert store.get(("s",), "short").created_at == clock.now


def test_index_fields_own_embedder_and_unindexed_puts(memory):
    store = GraphMemStore(memory, index={"dims": 256, "embed": HashingEmbedder(256), "fields": ["title", "body"]})
    store.put(("n",), "1", {"title": "Berlin trip", "body": "museums and trains", "id": 9})
    store.put(("n",), "2", {"title": "secret", "body": "not searchable by meaning"}, index=False)
    fact = memory.facts(scope="n")
    texts = {f.text for f in fact}
    assert "Berlin trip\nmuseums and trains" in texts
    hits = store.search(("n",), query="Berlin museums")
    assert hits[0].key == "1" and hits[0].score > 0 and hits[1].score is None
    # the items are memories too: recall at the namespace's scope finds them
    assert memory.recall("Berlin museums", scope="n", k=1)[0].record.text.startswith("Berlin trip")


class State(TypedDict):
    user: str
    said: Annotated[list[str], operator.add]


def test_in_a_compiled_state_graph(memory):
    from langgraph.store.base import BaseStore

    def learn(state: State, *, store: BaseStore) -> dict:
        store.put(("users", state["user"]), "fact", {"text": state["said"][-1]})
        return {}

    def answer(state: State, *, store: BaseStore) -> dict:
        found = store.search(("users", state["user"]), query="where do I live")
        return {"said": [f"you told me: {found[0].value['text']}"]}

    graph = StateGraph(State)
    graph.add_node("learn", learn)
    graph.add_node("answer", answer)
    graph.add_edge(START, "learn")
    graph.add_edge("learn", "answer")
    app = graph.compile(store=GraphMemStore(memory, index={"fields": ["text"]}))
    out = app.invoke({"user": "ann", "said": ["I live in Lisbon"]})
    assert out["said"][-1] == "you told me: I live in Lisbon"
    assert memory.facts(scope="users/ann")[0].text == "I live in Lisbon"


async def test_async_store_on_an_async_memory(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        store = GraphMemStore(amem, index={"fields": ["text"]})
        await store.aput(("u",), "k", {"text": "hello"})
        assert (await store.aget(("u",), "k")).value == {"text": "hello"}
        assert [i.key for i in await store.asearch(("u",), query="hello")] == ["k"]
        assert await store.alist_namespaces() == [("u",)]
        await store.adelete(("u",), "k")
        assert [v["reason"] for v in await store.ahistory(("u",), "k")] == ["forgotten"]
        assert await store.aget(("u",), "k") is None
        with pytest.raises(Exception, match="event loop's own thread"):
            store.get(("u",), "k")
        # a sync call from a worker thread (a sync node of an async graph) runs on the loop
        await store.aput(("u",), "k2", {"text": "from the loop"})
        item = await asyncio.to_thread(store.get, ("u",), "k2")
        assert item.value == {"text": "from the loop"}


async def test_async_calls_on_a_sync_memory(store):
    await store.aput(("s",), "k", {"text": "from a thread"})
    assert (await store.aget(("s",), "k")).value == {"text": "from a thread"}


async def test_an_async_graph_on_an_async_memory(neo4j, schema, embedder, tenant):
    from langgraph.store.base import BaseStore

    async def learn(state: State, *, store: BaseStore) -> dict:
        await store.aput(("users", state["user"]), "fact", {"text": state["said"][-1]})
        return {}

    def answer(state: State, *, store: BaseStore) -> dict:  # a sync node: LangGraph runs it in a thread
        found = store.search(("users", state["user"]), query="where do I live")
        return {"said": [f"you told me: {found[0].value['text']}"]}

    graph = StateGraph(State)
    graph.add_node("learn", learn)
    graph.add_node("answer", answer)
    graph.add_edge(START, "learn")
    graph.add_edge("learn", "answer")
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        app = graph.compile(store=GraphMemStore(amem, index={"fields": ["text"]}))
        out = await app.ainvoke({"user": "bo", "said": ["I live in Quito"]})
        assert out["said"][-1] == "you told me: I live in Quito"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
async def test_langmem_tools_on_the_store(memory):
    from langmem import create_manage_memory_tool, create_search_memory_tool

    store = GraphMemStore(memory, index={"fields": ["content"]})
    manage = create_manage_memory_tool(namespace=("memories", "ann"), store=store)
    search = create_search_memory_tool(namespace=("memories", "ann"), store=store)
    created = manage.invoke({"action": "create", "content": "Ann prefers aisle seats"})
    assert "created memory" in created.lower()
    found = search.invoke({"query": "aisle seats"})
    assert "Ann prefers aisle seats" in str(found)
    key = store.search(("memories", "ann"))[0].key
    manage.invoke({"action": "update", "id": key, "content": "Ann prefers window seats"})
    assert store.get(("memories", "ann"), key).value["content"] == "Ann prefers window seats"
    versions = memory.history(subject=store.item_subject(("memories", "ann"), key), scope="memories/ann")
    assert len(versions) == 2 and "aisle" in versions[0].text


def test_concurrent_puts_of_one_key_leave_one_current_value(memory):
    from concurrent.futures import ThreadPoolExecutor

    store = GraphMemStore(memory)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: store.put(("race",), "k", {"n": n}), range(16)))
    current = [f for f in memory.facts(scope="race")]
    assert len(current) == 1 and store.get(("race",), "k").value == {"n": int(current[0].text[6:-1])}
    versions = memory.history(subject=store.item_subject(("race",), "k"), scope="race")
    assert len(versions) == 16
