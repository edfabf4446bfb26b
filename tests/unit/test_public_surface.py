"""The public surface of ``Memory`` and ``AsyncMemory``, held to a committed snapshot
(``public_surface.json``): every public name, what kind of member it is, its signature and a
digest of its docstring. Moving code between modules (issue 50: services in place of the
mixins) must leave all of it as it was; a deliberate change to the API rewrites the
snapshot with ``GRAPHMEM_UPDATE_SURFACE=1 pytest tests/unit/test_public_surface.py`` and
shows up in review as a diff of that file."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from pathlib import Path
from typing import Any

import graphmem

SNAPSHOT = Path(__file__).with_name("public_surface.json")
_QUALIFIER = re.compile(r"\b[A-Za-z_]\w*\.(?=[A-Za-z_])")


def _kind(cls: type, name: str) -> str:
    static = inspect.getattr_static(cls, name)
    if isinstance(static, property):
        return "property"
    if isinstance(static, classmethod):
        return "classmethod"
    if isinstance(static, staticmethod):
        return "staticmethod"
    member = getattr(cls, name)
    if inspect.iscoroutinefunction(member):
        return "coroutine"
    if inspect.isasyncgenfunction(member):
        return "async generator"
    if inspect.isgeneratorfunction(member):
        return "generator"
    return "function" if callable(member) else "attribute"


def _signature(member: Any) -> str | None:
    """The signature with its annotations' module qualifiers dropped (``fusion.ScoredMemory``
    reads ``ScoredMemory``): which module a type is imported through is not the API."""
    try:
        return _QUALIFIER.sub("", str(inspect.signature(member)))
    except (TypeError, ValueError):
        return None


def surface(cls: type) -> dict[str, dict[str, str | None]]:
    out: dict[str, dict[str, str | None]] = {}
    for name in ["__init__", *sorted(n for n in dir(cls) if not n.startswith("_"))]:
        kind = _kind(cls, name)
        member = getattr(cls, name)
        doc = inspect.getdoc(member) or ""
        out[name] = {
            "kind": kind,
            "signature": None if kind in ("property", "attribute") else _signature(member),
            "doc": hashlib.sha256(doc.encode()).hexdigest()[:16] if doc else None,
        }
    return out


def current() -> dict[str, dict[str, dict[str, str | None]]]:
    return {cls.__name__: surface(cls) for cls in (graphmem.Memory, graphmem.AsyncMemory)}


def test_memory_and_async_memory_keep_their_public_surface():
    now = current()
    if os.environ.get("GRAPHMEM_UPDATE_SURFACE"):
        SNAPSHOT.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    kept = json.loads(SNAPSHOT.read_text())
    for cls in kept:
        assert sorted(now[cls]) == sorted(kept[cls]), f"{cls}'s public names changed"
        changed = {name: (kept[cls][name], now[cls][name]) for name in kept[cls] if kept[cls][name] != now[cls][name]}
        assert not changed, f"{cls}: {json.dumps(changed, indent=1)}"


def test_the_two_front_doors_offer_the_same_names_with_the_same_parameters():
    sync, asynchronous = surface(graphmem.Memory), surface(graphmem.AsyncMemory)
    assert sorted(sync) == sorted(asynchronous)
    differ = [name for name, entry in sync.items()
              if entry["signature"] != _unasynced(asynchronous[name]["signature"])]
    assert not differ, f"signatures that differ beyond Async* -> *: {differ}"


_ASYNC = re.compile(r"\bAsync(?=[A-Z])")


def _unasynced(signature: str | None) -> str | None:
    """``signature`` as the generated sync code writes it (AsyncDriver, AsyncTurnHandle: Driver, TurnHandle)."""
    return None if signature is None else _ASYNC.sub("", signature)
