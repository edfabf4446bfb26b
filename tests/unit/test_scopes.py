"""Unit tests for scope paths (graphmem/_base/scopes.py)."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError
from graphmem._base import scopes


@pytest.mark.parametrize("path", ["acme", "acme/support/alice", "a-b_c.d/e f", "ünï/cødé"])
def test_check_path_accepts_well_formed_paths(path):
    assert scopes.check_path(path) == path


@pytest.mark.parametrize("path, reason", [
    ("", "empty"),
    ("/a", "start or end"),
    ("a/", "start or end"),
    ("/", "start or end"),
    ("a//b", "empty segment"),
    (".", "'.' segment"),
    ("a/./b", "'.' segment"),
    ("..", "'..' segment"),
    ("a/../b", "'..' segment"),
    ("a/ b", "leading or trailing spaces"),
    ("a\x00b", "control character"),
    ("a/b\nc", "control character"),
    ("a\tb", "control character"),
])
def test_check_path_rejects_malformed_paths(path, reason):
    with pytest.raises(InvalidInputError) as info:
        scopes.check_path(path, "where")
    assert info.value.field == "where"
    assert reason in info.value.message


@pytest.mark.parametrize("value", [None, 3, b"a/b", ["a", "b"]])
def test_check_path_rejects_non_strings(value):
    with pytest.raises(InvalidInputError) as info:
        scopes.check_path(value)
    assert info.value.field == "scope"
    assert "must be a string" in info.value.message


def test_check_path_length_limit():
    assert scopes.check_path("a" * scopes.MAX_PATH_LENGTH)
    with pytest.raises(InvalidInputError, match="longer than"):
        scopes.check_path("a" * (scopes.MAX_PATH_LENGTH + 1))


def test_check_path_depth_limit():
    assert scopes.check_path("/".join(["a"] * scopes.MAX_DEPTH))
    with pytest.raises(InvalidInputError, match="deeper than"):
        scopes.check_path("/".join(["a"] * (scopes.MAX_DEPTH + 1)))


def test_chain():
    assert scopes.chain("a/b/c") == ["a", "a/b", "a/b/c"]
    assert scopes.chain("root") == ["root"]


def test_parents_root_first_without_repeats():
    rows = scopes.parents(["a/b/c", "a/b/d", "a", "x/y", "a/b/c"])
    assert [r["path"] for r in rows] == ["a", "a/b", "a/b/c", "a/b/d", "x", "x/y"]
    by_path = {r["path"]: r for r in rows}
    assert by_path["a"]["parent"] is None
    assert by_path["a/b"]["parent"] == "a"
    assert by_path["a/b/d"]["parent"] == "a/b"
    assert by_path["x/y"] == {"path": "x/y", "parent": "x", "name": "y", "n": 1}
    # n counts the new memories stored directly in each scope
    assert [by_path[p]["n"] for p in ("a", "a/b", "a/b/c", "a/b/d", "x")] == [1, 0, 2, 1, 0]
    # every parent is listed before its child
    index = {r["path"]: i for i, r in enumerate(rows)}
    for r in rows:
        if r["parent"] is not None:
            assert index[r["parent"]] < index[r["path"]]


def test_parents_of_nothing():
    assert scopes.parents([]) == []
