"""Calling a ``Memory`` or an ``AsyncMemory`` from framework code that may be sync or async."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from .._async.memory import AsyncMemory
from .._errors import ConfigurationError
from .._sync.memory import Memory


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
