"""Calling a ``Memory`` or an ``AsyncMemory`` from framework code that may be sync or async."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar, cast

from .._async.memory import AsyncMemory
from .._async.store import AsyncItemStore
from .._base.errors import ConfigurationError
from .._memory.store import ItemRead, ItemResults, ItemWrite
from .._sync.memory import Memory
from .._sync.store import ItemStore

T = TypeVar("T")


def check_memory(memory: Any) -> Any:
    if not isinstance(memory, (Memory, AsyncMemory)):
        raise ConfigurationError(f"memory must be a graphmem Memory or AsyncMemory, got {type(memory).__name__}")
    return memory


def call(memory: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """Run ``method`` from synchronous code: needs a ``Memory`` (an ``AsyncMemory``'s driver
    belongs to its event loop)."""
    if isinstance(memory, AsyncMemory):
        raise ConfigurationError(
            f"{method}() was called synchronously on an AsyncMemory; use the async method "
            "(ainvoke, aget_messages, abatch, ...) or give a Memory"
        )
    return getattr(memory, method)(*args, **kwargs)


async def acall(memory: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """Run ``method`` from async code: awaited on an ``AsyncMemory``; on a ``Memory`` in a
    worker thread, so the event loop is never blocked."""
    if isinstance(memory, AsyncMemory):
        return await getattr(memory, method)(*args, **kwargs)
    return await asyncio.to_thread(functools.partial(getattr(memory, method), *args, **kwargs))


def item_store(memory: Any) -> AsyncItemStore | ItemStore:
    """The key-value items of ``memory`` (the core surface key-value adapters call)."""
    return AsyncItemStore(memory) if isinstance(memory, AsyncMemory) else ItemStore(memory)


async def item_batch(items: AsyncItemStore | ItemStore, reads: Sequence[ItemRead] = (),
                     writes: Sequence[ItemWrite] = ()) -> ItemResults:
    """``items.batch`` from async code (reads, then writes, in one transaction): awaited on an
    ``AsyncItemStore``, in a worker thread on an ``ItemStore``."""
    if isinstance(items, AsyncItemStore):
        return await items.batch(reads, writes)
    return await asyncio.to_thread(items.batch, reads, writes)


Caller = Callable[..., Awaitable[Any]]
"""``await caller(method, *args, **kwargs)``: a memory method's result, however the memory is called."""


def twins(memory: Any, body: Callable[..., Coroutine[Any, Any, T]]) -> tuple[Callable[..., T], Callable[..., Awaitable[T]]]:
    """A function and a coroutine function from one async ``body(caller, **kwargs)``, written
    once (graphmem's rule: async code is written once, its sync twin derived): the coroutine
    function passes a caller that awaits ``acall``; the function passes one that runs ``call``
    and never suspends, so the same body finishes on its first step, without an event loop."""

    async def synchronously(method: str, *args: Any, **kwargs: Any) -> Any:
        return call(memory, method, *args, **kwargs)

    def function(**kwargs: Any) -> T:
        steps = body(synchronously, **kwargs)
        try:
            steps.send(None)
        except StopIteration as done:
            return cast(T, done.value)
        steps.close()
        raise RuntimeError(f"{getattr(body, '__name__', body)!r} awaited something other than its caller")

    async def coroutine(**kwargs: Any) -> T:
        return await body(functools.partial(acall, memory), **kwargs)

    return function, coroutine
