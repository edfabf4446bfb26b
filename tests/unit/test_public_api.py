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
