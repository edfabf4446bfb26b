"""LangGraph search filters (``GraphMemStore``): checked before a search runs, then matched
in Python against the values of the items under the search's prefix.

A filter maps keys to what their values must be: a value (equal to it), a dict without
operators (matched key by key, as nested values), or operators (``$eq``, ``$ne``, ``$gt``,
``$gte``, ``$lt``, ``$lte``). A key is a plain path: names joined by dots, each name made of
letters, digits (any script), ``_``, ``-`` and spaces, neither starting nor ending with a
space (``"access-level"``, ``"user.123abc"``, ``"first name"``). A key the value holds as it
is (``"a.b"`` in ``{"a.b": 1}``) is that key; any other dotted key is a path through nested
dicts (``"user.access-level"`` in ``{"user": {"access-level": ...}}``). Anything else (quotes,
brackets, ``$``, an empty name) is refused naming the key, before anything is read: nothing
here builds a query, but a key that is not a path is a mistake, and LangGraph's SQLite
store refuses such keys too."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from .._base.errors import InvalidInputError

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
MAX_KEY_LENGTH = 1024
"""The longest filter key, in characters (an item key's limit)."""


def _name_char(ch: str) -> bool:
    return ch in "_- " or unicodedata.category(ch)[0] in "LMN"


def plain_path(key: Any) -> bool:
    """Whether ``key`` is a plain path (see the module's docstring)."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        return False
    for name in key.split("."):
        if not name or name[0] == " " or name[-1] == " " or not all(_name_char(ch) for ch in name):
            return False
    return True


def check(filter: Any) -> dict[str, Any]:
    """``filter`` checked (None or empty: no filter): every key a plain path, every operator
    known. Raises ``InvalidInputError`` on ``filter`` (also a ``ValueError``) naming the key."""
    if filter is None:
        return {}
    if not isinstance(filter, Mapping):
        raise InvalidInputError("filter", f"must be a dict of keys to values, got {type(filter).__name__}")
    for key, wanted in filter.items():
        if not plain_path(key):
            raise InvalidInputError("filter", f"Invalid filter key {key!r}: a key is a path of names joined by "
                                              "dots, each of letters, digits, '_', '-' and inner spaces")
        _check_operators(key, wanted)
    return dict(filter)


def _check_operators(key: str, wanted: Any) -> None:
    if not isinstance(wanted, Mapping):
        return
    if any(isinstance(k, str) and k.startswith("$") for k in wanted):
        for op in wanted:
            if op not in OPERATORS:
                raise InvalidInputError("filter", f"{op!r} (for key {key!r}) is not one of {', '.join(OPERATORS)}")
        return
    for inner in wanted.values():
        _check_operators(key, inner)


def lookup(value: Mapping[str, Any], key: str) -> Any:
    """What ``key`` names in ``value``: the key itself if the value holds it, else the dotted
    path through nested dicts; None when it names nothing."""
    if key in value:
        return value[key]
    node: Any = value
    for name in key.split("."):
        if not isinstance(node, Mapping) or name not in node:
            return None
        node = node[name]
    return node


def matches(value: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Whether an item's ``value`` passes a checked ``filter``."""
    return all(_matches(lookup(value, key), wanted) for key, wanted in filter.items())


def _matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: equality, nested dicts, and comparison operators."""
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(_matches(value.get(k), v) for k, v in wanted.items())
    return bool(value == wanted)


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    try:
        if op == "$gt":
            return bool(value > operand)
        if op == "$gte":
            return bool(value >= operand)
        if op == "$lt":
            return bool(value < operand)
        return bool(value <= operand)  # $lte: check() let no other operator through
    except TypeError:
        return False
