"""Jobs started together, their results taken one by one in order: the model calls of an
ingest's batches run at once (the caller's concurrency bound applies inside each job),
and each batch lands as soon as its own call and those before it are done.

``AsyncAhead`` runs the jobs as tasks on the running loop, ``Ahead`` on threads (one per
job, at most ``MAX_THREADS``; a single job runs in the caller's thread when taken). Both
are written by hand, like ``background.py``: the rest of ``graphmem/_sync`` is generated."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")
MAX_THREADS = 16


class AsyncAhead(Generic[T]):
    """Start every job now; ``take(i)`` returns the i-th job's result or raises its error."""

    def __init__(self, jobs: Sequence[Callable[[], Awaitable[T]]]) -> None:
        self._tasks: list[asyncio.Future[T]] = [asyncio.ensure_future(job()) for job in jobs]

    async def take(self, i: int) -> T:
        return await self._tasks[i]

    async def close(self) -> None:
        """Cancel what was not taken (after a failure) and wait for it to stop."""
        waiting = [t for t in self._tasks if not t.done()]
        for task in waiting:
            task.cancel()
        if waiting:
            await asyncio.wait(waiting)
        for task in self._tasks:  # retrieve errors of jobs never taken, so none is reported as lost
            if task.done() and not task.cancelled():
                task.exception()


class Ahead(Generic[T]):
    """Start every job now; ``take(i)`` returns the i-th job's result or raises its error."""

    def __init__(self, jobs: Sequence[Callable[[], T]]) -> None:
        self._jobs = list(jobs)
        self._pool: ThreadPoolExecutor | None = None
        self._futures: list[Future[Any]] = []
        if len(self._jobs) > 1:
            self._pool = ThreadPoolExecutor(max_workers=min(MAX_THREADS, len(self._jobs)),
                                            thread_name_prefix="graphmem-extract")
            # each job in a copy of the caller's context: its spans belong to the caller's trace
            self._futures = [self._pool.submit(contextvars.copy_context().run, job) for job in self._jobs]

    def take(self, i: int) -> T:
        if self._pool is None:
            return self._jobs[i]()
        result: T = self._futures[i].result()
        return result

    def close(self) -> None:
        """Cancel what has not started and wait for what has."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
