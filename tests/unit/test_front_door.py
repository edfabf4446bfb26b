"""The front doors hand each call to the service that owns it (``_base/traced.delegate``),
and every public call is traced exactly once, as ``graphmem.<name>``: by the service, or
by the front door for what it still does itself."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from graphmem import AsyncMemory, Memory
from graphmem._base.traced import delegate, front_door

UNTRACED = {"export_records"}  # a generator: its items stream after the call returns


def public_calls(front: type) -> dict[str, object]:
    found = {}
    for name in dir(front):
        raw = inspect.getattr_static(front, name)
        if not name.startswith("_") and inspect.isfunction(raw):
            found[name] = raw
    return found


@pytest.mark.parametrize("front", [Memory, AsyncMemory])
def test_every_public_call_is_traced_once_under_its_own_name(front):
    calls = public_calls(front)
    assert len(calls) > 60
    for name, raw in calls.items():
        if name in UNTRACED:
            assert getattr(raw, "__graphmem_traced__", None) in (None, ""), name
            continue
        if getattr(raw, "__graphmem_delegate__", None) is not None:
            assert raw.__graphmem_traced__ == "", name  # the delegate itself makes no span
            raw = raw.__wrapped__  # the service's method
        assert raw.__graphmem_traced__ == f"graphmem.{name}", name


@pytest.mark.parametrize("front", [Memory, AsyncMemory])
def test_a_delegate_reads_as_the_front_door_s_own_method(front):
    delegated = {n: f for n, f in public_calls(front).items() if getattr(f, "__graphmem_delegate__", None)}
    assert {"graph", "counts", "tenants"} <= set(delegated)
    for name, fn in delegated.items():
        assert fn.__qualname__ == f"{front.__name__}.{name}"
        assert fn.__doc__ and fn.__doc__ == fn.__wrapped__.__doc__
        assert inspect.signature(fn) == inspect.signature(fn.__wrapped__)


class Service:
    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def plain(self, a, *, b=2):
        """A plain method."""
        self.seen.append((a, b))
        return a + b

    async def coroutine(self, a):
        """A coroutine method."""
        return a * 2

    def generator(self, n):
        """A generator."""
        yield from range(n)
        return "done"

    async def stream(self, n):
        """An async generator."""
        for i in range(n):
            yield i


@front_door
class Front:
    def __init__(self) -> None:
        self._service = Service()

    plain = delegate("_service", Service.plain)
    coroutine = delegate("_service", Service.coroutine)
    generator = delegate("_service", Service.generator)
    stream = delegate("_service", Service.stream)


def test_a_delegate_keeps_the_kind_of_what_it_hands_on():
    front = Front()
    assert front.plain(1, b=5) == 6 and front._service.seen == [(1, 5)]
    assert inspect.iscoroutinefunction(Front.coroutine) and asyncio.run(front.coroutine(4)) == 8
    assert inspect.isgeneratorfunction(Front.generator) and list(front.generator(3)) == [0, 1, 2]

    async def collect():
        return [i async for i in front.stream(3)]

    assert inspect.isasyncgenfunction(Front.stream) and asyncio.run(collect()) == [0, 1, 2]


def test_a_delegate_looks_the_service_up_on_each_call():
    front = Front()
    front._service.plain = lambda a, b=2: "replaced"  # a test standing in for the service's method
    assert front.plain(1) == "replaced"
    front._service = Service()
    assert front.plain(1) == 3
