"""Concurrent ``abatch`` calls of one ``GraphMemStore`` merged into shared transactions.

Thousands of concurrent ``aput``/``aget`` calls would each hold a pooled connection and a
transaction of their own, and exhaust the driver's pool; as LangGraph's
``AsyncBatchedBaseStore`` does, the calls waiting while a batch runs are merged into the
next one (identical reads asked once; puts of one key: the last wins). Unlike it, a merged
batch that fails is run again call by call, so that a bad value only fails its own call.
The batcher is bound to the event loop it is used from and keeps no task running while
nothing waits."""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.store.base import GetOp, ListNamespacesOp, Op, Result, SearchOp

MAX_MERGED_OPS = 1000
"""The most operations one merged batch takes (a single call is never split)."""

Run = Callable[[list[Op]], Awaitable[list[Result]]]


class Batcher:
    """Runs ``run(ops)`` for the calls of ``submit``, merging the calls that wait."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: deque[tuple[asyncio.Future[list[Result]], list[Op]]] = deque()
        self._task: asyncio.Task[None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the batcher was last used from."""
        return self._loop

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self._loop:
            self._loop, self._waiting, self._task = loop, deque(), None

    async def submit(self, ops: list[Op]) -> list[Result]:
        loop = asyncio.get_running_loop()
        self.bind(loop)
        future: asyncio.Future[list[Result]] = loop.create_future()
        self._waiting.append((future, ops))
        if self._task is None or self._task.done():
            # a context of its own: the batches it runs belong to several callers' traces, not the first's
            self._task = contextvars.Context().run(loop.create_task, self._drain())
        return await future

    async def _drain(self) -> None:
        while self._waiting:
            calls = [self._waiting.popleft()]
            size = len(calls[0][1])
            while self._waiting and size + len(self._waiting[0][1]) <= MAX_MERGED_OPS:
                calls.append(self._waiting.popleft())
                size += len(calls[-1][1])
            calls = [(f, ops) for f, ops in calls if not f.done()]  # a cancelled caller is left out
            try:
                await self._settle(calls)
            except BaseException:  # the drain itself was cancelled: no caller waits for ever
                for future, _ in calls:
                    future.cancel()
                raise

    async def _settle(self, calls: list[tuple[asyncio.Future[list[Result]], list[Op]]]) -> None:
        if not calls:
            return
        if len(calls) > 1:
            merged, where = _merge([ops for _, ops in calls])
            try:
                results = await self._run(merged)
            except Exception:  # each call again on its own: its error is its own
                pass
            else:
                for (future, _), places in zip(calls, where):
                    if not future.done():
                        future.set_result([results[i] for i in places])
                return
        for future, ops in calls:
            try:
                result = await self._run(ops)
            except Exception as exc:  # handed to the caller
                if not future.done():
                    future.set_exception(exc)
            else:
                if not future.done():
                    future.set_result(result)


def _merge(calls: list[list[Op]]) -> tuple[list[Op], list[list[int]]]:
    """The calls' operations as one list (an identical read once) and, per call, where
    each of its operations' results is in it."""
    merged: list[Op] = []
    seen: dict[Any, int] = {}
    where: list[list[int]] = []
    for ops in calls:
        places = []
        for op in ops:
            known = len(merged)
            if isinstance(op, (GetOp, SearchOp, ListNamespacesOp)):
                try:
                    known = seen.setdefault(op, known)
                except TypeError:  # a filter dict makes the op unhashable: asked as it is
                    pass
            if known == len(merged):
                merged.append(op)
            places.append(known)
        where.append(places)
    return merged, where
