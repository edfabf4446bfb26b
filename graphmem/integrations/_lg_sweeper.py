"""The TTL sweeper of a ``GraphMemStore``: every so many minutes, the store's expired items
are deleted for good (``sweep_ttl``), as LangGraph's Postgres and SQLite stores delete
expired rows. Over a ``Memory`` it is a daemon thread and ``start`` returns a
``concurrent.futures.Future``; over an ``AsyncMemory`` it is a task on the running event
loop, and ``start``/``stop`` are coroutines, as on LangGraph's async stores. A sweep that
fails is logged and the sweeper goes on; cancelling the future or the task stops it too."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from .._base.errors import InvalidInputError

logger = logging.getLogger("graphmem")

DEFAULT_INTERVAL = 5.0
"""Minutes between sweeps when neither the call nor the store's ``ttl`` config says (LangGraph's default)."""


def interval(minutes: Any, config: dict[str, Any] | None) -> float:
    """The sweep interval in minutes: ``minutes``, else the ``ttl`` config's
    ``sweep_interval_minutes``, else ``DEFAULT_INTERVAL``; a positive, finite number."""
    field = "sweep_interval_minutes"
    if minutes is None:
        minutes = (config or {}).get(field)
    if minutes is None:
        return DEFAULT_INTERVAL
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not math.isfinite(minutes) \
            or minutes <= 0:
        raise InvalidInputError(field, f"must be a positive number of minutes, got {minutes!r}")
    return float(minutes)


def _swept(count: int) -> None:
    if count:
        logger.info("graphmem: the TTL sweeper deleted %d expired store items", count)


class ThreadSweeper:
    """Sweeps in a daemon thread (a store over a ``Memory``)."""

    def __init__(self, sweep: Callable[[], int]) -> None:
        self._sweep = sweep
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._future: concurrent.futures.Future[None] | None = None

    def start(self, minutes: float) -> concurrent.futures.Future[None]:
        """Start sweeping every ``minutes`` (the running sweeper's future if one runs)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive() and self._future is not None:
                return self._future
            stop = self._stop = threading.Event()  # each run its own: a thread still stopping keeps its own
            future: concurrent.futures.Future[None] = concurrent.futures.Future()
            future.add_done_callback(lambda f: stop.set() if f.cancelled() else None)
            thread = threading.Thread(target=self._run, args=(stop, future, minutes * 60.0),
                                      name="graphmem-ttl-sweeper", daemon=True)
            self._thread, self._future = thread, future
            thread.start()
            return future

    def _run(self, stop: threading.Event, future: concurrent.futures.Future[None], seconds: float) -> None:
        while not stop.wait(seconds):
            try:
                _swept(self._sweep())
            except Exception:  # the next sweep tries again
                logger.exception("graphmem: a TTL sweep failed (the sweeper goes on)")
        if not future.done():
            try:
                future.set_result(None)
            except concurrent.futures.InvalidStateError:  # cancelled meanwhile
                pass

    def stop(self, timeout: float | None = None) -> bool:
        """Stop sweeping; True once the thread has ended (or none ran), False if it was still
        running (finishing a sweep) after ``timeout`` seconds."""
        with self._lock:
            thread = self._thread
            if thread is None or not thread.is_alive():
                return True
            self._stop.set()
        thread.join(timeout)
        if thread.is_alive():
            return False
        with self._lock:
            if self._thread is thread:
                self._thread = None
        return True


class TaskSweeper:
    """Sweeps in a task on the running event loop (a store over an ``AsyncMemory``)."""

    def __init__(self, sweep: Callable[[], Awaitable[int]]) -> None:
        self._sweep = sweep
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

    async def start(self, minutes: float) -> asyncio.Task[None]:
        """Start sweeping every ``minutes`` (the running sweeper's task if one runs)."""
        if self._task is not None and not self._task.done():
            return self._task
        stop = self._stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        # a context of its own: its sweeps are nobody's call (no caller's trace)
        self._task = contextvars.Context().run(loop.create_task, self._run(stop, minutes * 60.0))
        self._task.set_name("graphmem-ttl-sweeper")
        return self._task

    async def _run(self, stop: asyncio.Event, seconds: float) -> None:
        while True:
            try:
                await asyncio.wait_for(stop.wait(), timeout=seconds)
                return
            except asyncio.TimeoutError:
                pass
            try:
                _swept(await self._sweep())
            except Exception:  # the next sweep tries again
                logger.exception("graphmem: a TTL sweep failed (the sweeper goes on)")

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop sweeping; True once the task has ended (or none ran), False if it was still
        running (finishing a sweep) after ``timeout`` seconds."""
        task = self._task
        if task is None or task.done():
            return True
        assert self._stop is not None
        self._stop.set()
        done, _ = await asyncio.wait({task}, timeout=timeout)  # a timeout leaves the task running
        if task not in done:
            return False
        if self._task is task:
            self._task = None
        return True
