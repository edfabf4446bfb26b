"""Unit tests for the public surface (graphmem/__init__.py) and generated sync code (tools/unasync.py)."""

from __future__ import annotations

import importlib.util
import inspect
import types
from pathlib import Path

import graphmem
from graphmem import GraphMemError

ROOT = Path(__file__).resolve().parents[2]


def test_all_lists_exactly_the_public_names():
    exported = {
        name for name in dir(graphmem)
        if not name.startswith("_") and not isinstance(getattr(graphmem, name), types.ModuleType)
    }
    listed = {name for name in graphmem.__all__ if not name.startswith("_")}
    assert listed == exported
    assert len(graphmem.__all__) == len(set(graphmem.__all__))
    for name in graphmem.__all__:
        assert hasattr(graphmem, name), name


def test_every_exported_exception_derives_from_graphmem_error():
    exceptions = [getattr(graphmem, n) for n in graphmem.__all__
                  if inspect.isclass(getattr(graphmem, n)) and issubclass(getattr(graphmem, n), BaseException)]
    assert GraphMemError in exceptions and len(exceptions) >= 9
    for exc in exceptions:
        assert issubclass(exc, GraphMemError), exc


def test_invalid_input_error_carries_field_and_is_a_value_error():
    error = graphmem.InvalidInputError("items[0].text", "must not be empty")
    assert isinstance(error, ValueError)
    assert error.field == "items[0].text"
    assert str(error) == "items[0].text: must not be empty"


def test_generated_sync_code_is_not_stale():
    spec = importlib.util.spec_from_file_location("graphmem_tools_unasync", ROOT / "tools" / "unasync.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0


def test_settings_come_from_the_environment(monkeypatch):
    import pytest

    from graphmem import Settings

    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    monkeypatch.setenv("NEO4J_USER", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "hunter2-secret")
    monkeypatch.setenv("NEO4J_DATABASE", "memories")
    s = Settings()
    assert (s.uri, s.user, s.database) == ("neo4j+s://example.databases.neo4j.io", "reader", "memories")
    assert s.password.get_secret_value() == "hunter2-secret" and "hunter2" not in repr(s)
    monkeypatch.setenv("NEO4J_URI", "http://localhost:7474")
    with pytest.raises(ValueError, match="NEO4J_URI"):
        Settings()


FRONT_DOORS = ("graphmem", "graphmem.integrations.langchain", "graphmem.integrations.langgraph",
               "graphmem.integrations.mcp")


def public_classes():
    import importlib

    for module_name in FRONT_DOORS:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value):
                yield module_name, name, value


def test_every_public_class_says_it_lives_where_users_import_it():
    found = list(public_classes())
    assert len(found) > 55 and {m for m, _, _ in found} == set(FRONT_DOORS)
    assert [(m, n, c.__module__) for m, n, c in found if c.__module__ != m or c.__qualname__ != n] == []
    assert repr(graphmem.InvalidInputError) == "<class 'graphmem.InvalidInputError'>"


def test_every_public_class_has_type_hints_that_resolve_in_its_public_module():
    # typing.get_type_hints looks string annotations up in the class's __module__, which is now
    # the public one: a published class's module must not use `from __future__ import annotations`
    import typing

    unresolved = []
    for _, name, cls in public_classes():
        try:
            typing.get_type_hints(cls)
        except NameError as exc:
            unresolved.append(f"{name}: {exc}")
    assert unresolved == []


def test_errors_and_records_survive_a_pickle_round_trip():
    import pickle
    from datetime import datetime, timezone

    error = graphmem.InvalidInputError("items[3].valid_to", "must be after valid_from")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is graphmem.InvalidInputError
    assert (back.field, back.message, str(back)) == (error.field, error.message, str(error))
    failed = pickle.loads(pickle.dumps(graphmem.ModelError("reflect", ["timeout", "bad JSON"])))
    assert (failed.purpose, failed.attempts, str(failed)) == (
        "reflect", ["timeout", "bad JSON"], "reflect: the model failed 2 time(s); last error: bad JSON")
    at = datetime(2024, 5, 1, tzinfo=timezone.utc)
    fact = graphmem.Fact(id="f1", tenant="t", scope="acme", text="Alice lives in Paris", created_at=at,
                         subject="alice", predicate="lives_in", object="Paris", valid_from=at,
                         provenance=graphmem.Provenance.USER,
                         superseded_by=(graphmem.Supersession(by="f2", reason="changed", at=at),))
    copy = pickle.loads(pickle.dumps(fact))
    assert type(copy) is graphmem.Fact and copy == fact and copy.superseded_by[0].by == "f2"


def test_the_error_tree_in_the_errors_docstring_names_every_public_error():
    from graphmem._base import errors

    tree = errors.__doc__.split("::", 1)[1].split("\n\n")[1]
    drawn = {line.replace("│", " ").replace("├──", " ").replace("└──", " ").split()[0]
             for line in tree.splitlines() if line.strip()}
    exported = {n for n in graphmem.__all__
                if inspect.isclass(getattr(graphmem, n)) and issubclass(getattr(graphmem, n), BaseException)}
    assert drawn == exported
