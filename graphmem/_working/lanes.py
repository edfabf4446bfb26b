"""Landing in the order things happened, while the model calls before it run at once.

An extraction has two halves: the model call (seconds, and safe to run ahead) and the
landing (entity resolution, contradiction checks, the write), which must see the
earlier batches of the same conversation already written, or a correction could land
before what it corrects. A ``Lanes`` object hands out tickets per lane (graphmem's lanes
are scope paths) in call order; a ticket's holder waits for the one before it only at
``turn()``, lands, and ``done()`` lets the next one go. A ticket is done once, whatever
happened (a failure, a cancellation): otherwise its lane would wait for ever.

``AsyncLanes`` works on one event loop, ``Lanes`` across threads. Both are written by hand,
like ``background.py``: the rest of ``graphmem/_sync`` is generated."""

from __future__ import annotations

import asyncio
import threading


class AsyncTicket:
    """A place in one lane, for ``AsyncLanes``."""

    def __init__(self, lanes: AsyncLanes, key: str, before: asyncio.Event | None) -> None:
        self._lanes, self._key, self._before = lanes, key, before
        self._mine = asyncio.Event()

    async def turn(self) -> None:
        """Wait until every ticket handed out before this one in its lane is done."""
        if self._before is not None:
            await self._before.wait()

    def done(self) -> None:
        """Let the next ticket of the lane go (a second call does nothing)."""
        self._mine.set()
        if self._lanes._tails.get(self._key) is self._mine:
            del self._lanes._tails[self._key]


class AsyncLanes:
    """Tickets per lane, in the order they are asked for, on one event loop."""

    def __init__(self) -> None:
        self._tails: dict[str, asyncio.Event] = {}

    def ticket(self, key: str) -> AsyncTicket:
        ticket = AsyncTicket(self, key, self._tails.get(key))
        self._tails[key] = ticket._mine
        return ticket


class Ticket:
    """A place in one lane, for ``Lanes``."""

    def __init__(self, lanes: Lanes, key: str, before: threading.Event | None) -> None:
        self._lanes, self._key, self._before = lanes, key, before
        self._mine = threading.Event()

    def turn(self) -> None:
        """Wait until every ticket handed out before this one in its lane is done."""
        if self._before is not None:
            self._before.wait()

    def done(self) -> None:
        """Let the next ticket of the lane go (a second call does nothing)."""
        self._mine.set()
        with self._lanes._lock:
            if self._lanes._tails.get(self._key) is self._mine:
                del self._lanes._tails[self._key]


class Lanes:
    """Tickets per lane, in the order they are asked for, across threads."""

    def __init__(self) -> None:
        self._tails: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def ticket(self, key: str) -> Ticket:
        with self._lock:
            ticket = Ticket(self, key, self._tails.get(key))
            self._tails[key] = ticket._mine
        return ticket
