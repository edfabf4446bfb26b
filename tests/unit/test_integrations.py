"""The integration modules without a database: import weight, namespaces, filters."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_importing_graphmem_loads_no_framework():
    code = ("import sys, graphmem, graphmem.integrations\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_tests', 'langmem')]\n"
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
    from graphmem.integrations.langgraph import _matches

    assert _matches("db", "db") and not _matches("db", "web")
    assert _matches(5, {"$gt": 4, "$lte": 5}) and not _matches(None, {"$gt": 4})
    assert _matches(3, {"$ne": 5}) and _matches({"a": {"b": 1}}, {"a": {"b": 1}})
    assert not _matches("x", {"$gt": 4})  # incomparable values never match
    from graphmem import InvalidInputError

    with pytest.raises(InvalidInputError):
        _matches(1, {"$regex": "x"})


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
