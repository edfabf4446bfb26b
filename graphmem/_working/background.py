"""The background work of ``after_turn``: the turn's messages are stored before the call
returns, and its extraction runs behind the caller. Turns run at once (their model calls
bounded by the memory's ``max_concurrent_model_calls``); what each extracted lands in the
order the turns were given, so a later turn's extraction sees what an earlier one wrote:
``after_turn`` takes the turn's ticket in its scope's lane (``lanes.py``) and the work
waits for it before landing. Results are handed back in turn order.

``AsyncBackground`` runs the work as tasks on the caller's event loop; ``Background``, its
twin for the synchronous ``Memory``, on one worker thread. Each returns a handle to wait
on; the work itself never raises (it reports its failures in its result and through
events), so a handle's ``result`` is the turn's ``TurnResult`` or an
``ExtractionTimeoutError`` when the wait timed out. Both are written by hand: the rest of
``graphmem/_sync`` is generated, but a task and a thread have no mechanical translation."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

from .._base.errors import ExtractionTimeoutError
from .._base.models import Episode

_KEPT = 1_000  # finished turns kept for the next wait; older ones are left to their handles


def _late(timeout: float | None, running: int) -> ExtractionTimeoutError:
    return ExtractionTimeoutError(f"{running} turn extraction(s) still running after {timeout:g} s; "
                                  "they go on in the background")


class AsyncTurnHandle:
    """A turn handed to ``after_turn``: its ``episodes`` are stored; ``result()`` waits for
    its extraction and returns the ``TurnResult``."""

    def __init__(self, episodes: tuple[Episode, ...], task: asyncio.Task[Any] | None, done: Any = None) -> None:
        self.episodes = episodes
        self._task = task
        self._done = done

    def done(self) -> bool:
        """True once the turn's extraction has finished (at once when there was nothing to learn)."""
        return self._task is None or self._task.done()

    async def result(self, timeout: float | None = None) -> Any:
        """The turn's ``TurnResult``, waiting for it at most ``timeout`` seconds
        (``ExtractionTimeoutError`` then; the work goes on)."""
        if self._task is None:
            return self._done
        finished, _ = await asyncio.wait([self._task], timeout=timeout)
        if not finished:
            raise _late(timeout, 1)
        return self._task.result()


class AsyncBackground:
    """Runs turn extractions as tasks on the caller's loop (``workers`` is the sync twin's
    thread count; here the model-call bound alone limits them)."""

    def __init__(self, workers: int = 1) -> None:
        self._tasks: list[asyncio.Task[Any]] = []  # started since the last wait, in turn order

    def start(self, episodes: tuple[Episode, ...], work: Callable[[], Coroutine[Any, Any, Any]]) -> AsyncTurnHandle:
        while len(self._tasks) >= _KEPT and self._tasks[0].done():
            self._tasks.pop(0)
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(work())  # with a copy of the context
        self._tasks.append(task)
        return AsyncTurnHandle(episodes, task)

    def finished(self, episodes: tuple[Episode, ...], result: Any) -> AsyncTurnHandle:
        return AsyncTurnHandle(episodes, None, result)

    async def wait(self, timeout: float | None = None) -> list[Any]:
        """The results of the turns started since the last wait, in turn order, once all
        have finished."""
        tasks = list(self._tasks)
        if not tasks:
            return []
        _, running = await asyncio.wait(tasks, timeout=timeout)
        if running:
            raise _late(timeout, len(running))
        # by identity, not position: start() may have dropped old finished ones meanwhile
        handed = set(tasks)
        self._tasks = [t for t in self._tasks if t not in handed]
        return [t.result() for t in tasks]

    async def close(self) -> None:
        """Let every started extraction finish (nothing is dropped on close)."""
        while any(not t.done() for t in self._tasks):
            await asyncio.wait([t for t in self._tasks if not t.done()])


class TurnHandle:
    """A turn handed to ``after_turn``: its ``episodes`` are stored; ``result()`` waits for
    its extraction and returns the ``TurnResult``."""

    def __init__(self, episodes: tuple[Episode, ...], future: Future[Any] | None, done: Any = None) -> None:
        self.episodes = episodes
        self._future = future
        self._done = done

    def done(self) -> bool:
        """True once the turn's extraction has finished (at once when there was nothing to learn)."""
        return self._future is None or self._future.done()

    def result(self, timeout: float | None = None) -> Any:
        """The turn's ``TurnResult``, waiting for it at most ``timeout`` seconds
        (``ExtractionTimeoutError`` then; the work goes on)."""
        if self._future is None:
            return self._done
        finished, _ = wait_futures([self._future], timeout=timeout)
        if not finished:
            raise _late(timeout, 1)
        return self._future.result()


class Background:
    """Runs turn extractions on up to ``workers`` threads (started in turn order, so a turn
    waiting for the one before it never waits for one not yet started)."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._futures: list[Future[Any]] = []  # started since the last wait, in turn order
        self._lock = threading.Lock()

    def start(self, episodes: tuple[Episode, ...], work: Callable[[], Any]) -> TurnHandle:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="graphmem-after-turn")
            while len(self._futures) >= _KEPT and self._futures[0].done():
                self._futures.pop(0)
            future = self._pool.submit(contextvars.copy_context().run, work)  # the turn's trace goes along
            self._futures.append(future)
        return TurnHandle(episodes, future)

    def finished(self, episodes: tuple[Episode, ...], result: Any) -> TurnHandle:
        return TurnHandle(episodes, None, result)

    def wait(self, timeout: float | None = None) -> list[Any]:
        """The results of the turns started since the last wait, in turn order, once all
        have finished."""
        with self._lock:
            futures = list(self._futures)
        if not futures:
            return []
        _, running = wait_futures(futures, timeout=timeout)
        if running:
            raise _late(timeout, len(running))
        handed = set(futures)
        with self._lock:  # by identity, not position: start() may have dropped old finished ones meanwhile
            self._futures = [f for f in self._futures if f not in handed]
        return [f.result() for f in futures]

    def close(self) -> None:
        """Let every started extraction finish (nothing is dropped on close), then stop the worker."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
