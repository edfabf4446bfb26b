"""One rule for sync twins: ``graphmem/_sync`` is generated from ``graphmem/_async``
(tools/unasync.py, test_unasync.py). The few pairs written by hand, because ``_async`` code
imports them from a pure folder, are listed here and held to the same shape: the same
public methods, a coroutine on the async side where the sync side blocks."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

from graphmem._base import public
from tests.unit.package_modules import package_modules

_spec = importlib.util.spec_from_file_location("graphmem_tools_unasync_twins",
                                               Path(__file__).resolve().parents[2] / "tools" / "unasync.py")
unasync = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(unasync)

HAND_WRITTEN = {
    "graphmem._working.ahead": [("AsyncAhead", "Ahead")],
    "graphmem._working.background": [("AsyncTurnHandle", "TurnHandle"), ("AsyncBackground", "Background")],
    "graphmem._working.lanes": [("AsyncTicket", "Ticket"), ("AsyncLanes", "Lanes")],
}
"""Module -> its hand-written (async, sync) pairs: the whole list."""


def async_classes_outside_the_generated_halves() -> set[tuple[str, str]]:
    found = set()
    for module_name, module in package_modules(skip=("graphmem._async", "graphmem._sync")):
        for name, value in vars(module).items():
            if isinstance(value, type) and name.startswith("Async") and \
                    public.WRITTEN_IN.get(value, value.__module__) == module_name:
                found.add((module_name, name))
    return found


def test_every_hand_written_async_class_is_a_listed_pair():
    listed = {(module, pair[0]) for module, pairs in HAND_WRITTEN.items() for pair in pairs}
    assert async_classes_outside_the_generated_halves() == listed


def test_each_listed_pair_has_the_same_methods_blocking_on_one_side():
    for module_name, pairs in HAND_WRITTEN.items():
        module = importlib.import_module(module_name)
        for async_name, sync_name in pairs:
            asynchronous, blocking = getattr(module, async_name), getattr(module, sync_name)
            async_methods = {n: f for n, f in vars(asynchronous).items() if callable(f) and not n.startswith("_")}
            sync_methods = {n: f for n, f in vars(blocking).items() if callable(f) and not n.startswith("_")}
            assert {unasync.rename(n) for n in async_methods} == set(sync_methods), async_name
            for name, fn in async_methods.items():
                twin = sync_methods[unasync.rename(name)]
                if inspect.iscoroutinefunction(fn):
                    assert not inspect.iscoroutinefunction(twin), f"{sync_name}.{name}"
