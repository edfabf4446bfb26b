"""The integration modules without a database: import weight, namespaces, filters."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_importing_graphmem_loads_no_framework():
    code = ("import sys, graphmem, graphmem.integrations\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_tests', 'langmem', 'google',"
            " 'agent_framework', 'agents', 'pydantic_ai', 'llama_index')]\n"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_namespaces_map_onto_scopes_and_back():
    from langgraph.store.base import InvalidNamespaceError

    from graphmem.integrations.langgraph import GraphMemStore

    store = GraphMemStore.__new__(GraphMemStore)
    store.root = "app"
    assert store.scope_of(("users", "42")) == "app/users/42"
    assert store.namespace_of("app/users/42") == ("users", "42")
    store.root = None
    assert store.scope_of(("users",)) == "users" and store.namespace_of("users") == ("users",)
    for bad in [("",), ("..",), ("a.b",), (7,)]:
        with pytest.raises(InvalidNamespaceError):
            store.scope_of(bad)
    # any other label is escaped into a segment, and back
    for odd, scope in [(("a/b",), "a%2Fb"), (("a\x01",), "a%01"), ((" x",), "%20x"), (("%2F",), "%252F")]:
        assert store.scope_of(odd) == scope and store.namespace_of(scope) == odd
    with pytest.raises(InvalidNamespaceError):  # escaped, it is longer than a scope path may be
        store.scope_of(("\n" * 200,))


def test_filters_follow_langgraph_semantics():
    from graphmem.integrations._lg_filters import check, matches

    assert matches({"k": "db"}, {"k": "db"}) and not matches({"k": "db"}, {"k": "web"})
    assert matches({"k": 5}, {"k": {"$gt": 4, "$lte": 5}}) and not matches({}, {"k": {"$gt": 4}})
    assert matches({"k": 3}, {"k": {"$ne": 5}}) and matches({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}})
    assert not matches({"k": "x"}, check({"k": {"$gt": 4}}))  # incomparable values never match
    assert matches({}, {"k": {"$ne": 5}}) and matches({"k": None}, {"k": None})  # missing is None
    from graphmem import InvalidInputError

    for bad in [{"k": {"$regex": "x"}}, {"k": {"$gt": 1, "plain": 2}}, {"k": {"inner": {"$in": [1]}}}]:
        with pytest.raises(InvalidInputError) as info:
            check(bad)
        assert info.value.field == "filter" and "'k'" in str(info.value)


PLAIN_KEYS = ["access", "access-level", "123abc", "user.access-level", "user.123abc", "a_b.c-d.9",
              "first name", "名前", "यह.रूसी", "x" * 1024]
NOT_PLAIN = ["access') = 'public' OR '1'='1' OR json_extract(value, '$.", "", ".a", "a.", "a..b", " a", "a .b",
             "$eq", "a[0]", "a/b", "a'b", 'a"b', "a\nb", "a\x00", "a:b", "x" * 1025, 7, None, ("a",)]


@pytest.mark.parametrize("key", PLAIN_KEYS)
def test_a_plain_path_is_a_filter_key(key):
    from graphmem.integrations._lg_filters import check, plain_path

    assert plain_path(key) and check({key: 1}) == {key: 1}


@pytest.mark.parametrize("key", NOT_PLAIN, ids=repr)
def test_any_other_filter_key_is_refused_as_a_value_error_naming_it(key):
    from graphmem import InvalidInputError
    from graphmem.integrations._lg_filters import check

    with pytest.raises(ValueError, match="Invalid filter key") as info:
        check({key: 1})
    assert isinstance(info.value, InvalidInputError) and info.value.field == "filter"
    assert repr(key) in str(info.value)


def test_a_dotted_key_is_the_key_the_value_holds_else_a_path_into_nested_dicts():
    from graphmem.integrations._lg_filters import lookup, matches

    value = {"access-level": "public", "user": {"access-level": "nested", "123abc": {"x": 1}}, "a.b": "literal",
             "a": {"b": "path"}, "list": [{"k": 1}]}
    assert lookup(value, "user.access-level") == "nested" and lookup(value, "user.123abc.x") == 1
    assert lookup(value, "a.b") == "literal"  # the value's own key wins over the path
    assert lookup(value, "a") == {"b": "path"} and lookup(value, "user.missing") is None
    assert lookup(value, "access-level.deeper") is None and lookup(value, "list.0.k") is None  # no list indexes
    assert matches(value, {"user.access-level": "nested", "access-level": {"$ne": "private"}})
    assert not matches(value, {"user.access-level": "public"})
    assert matches(value, {"user.123abc.x": {"$gte": 1}}) and matches(value, {"user": {"access-level": "nested"}})


def test_item_subject_is_stable_and_scoped():
    from graphmem._memory.store import item_subject

    assert item_subject("a/b", "k") == item_subject("a/b", "k")
    assert item_subject("a/b", "k") != item_subject("a", "k") != item_subject("a/b", "k2")


def test_adapters_reach_no_private_member_of_the_core_and_the_core_imports_no_framework():
    import ast
    from pathlib import Path

    import graphmem

    root = Path(graphmem.__file__).parent
    reached = []
    for path in sorted((root / "integrations").glob("*.py")):
        tree = ast.parse(path.read_text())
        own = {"self", "cls", *(node.name for node in tree.body if isinstance(node, ast.ClassDef))}
        for node in ast.walk(tree):
            private = isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
            if private and not (isinstance(node.value, ast.Name) and node.value.id in own):
                reached.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert reached == []  # e.g. memory._store_batch: the core's item surface is ItemStore/AsyncItemStore
    for name in ("_memory/store.py", "_async/store.py", "_sync/store.py"):
        tree = ast.parse((root / name).read_text())
        imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert imported and not [m for m in imported if m.split(".")[0] in ("langgraph", "langchain_core")], name


def test_an_unreachable_neo4j_is_the_applications_error_not_the_models():
    from neo4j import GraphDatabase

    from graphmem import HashingEmbedder, Memory, Neo4jUnavailableError
    from graphmem.integrations.langchain import memory_tools

    driver = GraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "pw"), max_transaction_retry_time=0)
    with driver, Memory.from_driver(driver, embedder=HashingEmbedder(16)) as memory:
        recall = {t.name: t for t in memory_tools(memory, scope="a/b")}["recall"]
        with pytest.raises(Neo4jUnavailableError):
            recall.invoke({"query": "anything"})
        assert recall.invoke({"query": "   "}).startswith("query:")  # bad input: told to the model
