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
    for bad in [("a/b",), ("",), ("..",), ("a.b",), ("a\x01",)]:
        with pytest.raises(InvalidNamespaceError):
            store.scope_of(bad)


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
    from graphmem._store import item_subject

    assert item_subject("a/b", "k") == item_subject("a/b", "k")
    assert item_subject("a/b", "k") != item_subject("a", "k") != item_subject("a/b", "k2")
