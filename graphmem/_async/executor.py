"""Runs named Cypher templates on a Neo4j driver: tracing, transactions, retries, error translation.

Retries are graphmem's, not the driver's (the driver's own loop is switched off per
session), so that each kind of failure gets the patience it deserves:

- Neo4j cannot be reached (refused, reset, no route): retried for ``connection_timeout``
  seconds (5 by default), then ``Neo4jUnavailableError`` saying how to start one;
- a transient error of a live server (deadlock, lock timeout, leader switch): retried for
  ``max_retry_time`` seconds (30 by default), the driver's own rule;
- a write that trips a uniqueness constraint: retried ``conflict_retries`` times (2), since
  every write unit reads the records it would create first, the loser of a race between
  two idempotent writes (same entity name, same explicit id) finds the winner's record
  on its retry and returns it; a conflict that persists is a ``ConflictError``;
- no connection within the driver's acquisition timeout (60 s: a new connection whose
  handshake the server did not answer, seen once in CI on a loaded machine): tried once
  more on a fresh connection, then ``Neo4jUnavailableError``.

A statement the server fails inside a transaction function is kept from the driver (see
``_in_transaction``): the driver's own clean-up of it touches a connection it has already
handed to another thread.

Every template runs in the version for the slot the store's vectors are in (``_base/layout.py``),
read from the store's node once per driver and database and again after
``layout.KEPT_SECONDS``; a store written by a newer graphmem is refused before anything runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import READ_ACCESS, WRITE_ACCESS, AsyncDriver, AsyncManagedTransaction, AsyncSession
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    DriverError,
    Neo4jError,
    ResultFailedError,
    ServiceUnavailable,
    SessionExpired,
    TransactionError,
)

from .._base import layout as _layout
from .._base import templates
from .._base.errors import SchemaError, TemplateError, translated_errors
from .._base.events import Emitter, Pending, pending
from .._base.observe import OFF, Observability, note
from .._base.props import CREATES, created_by
from .._base.records import Row, W, checked, row, typed
from .._base.retry import async_pause
from .._memory.known import SHARED, DriverKnown, Shared
from .guard import SlotMoved, guard

T = TypeVar("T")
Tracer = Callable[[str, dict[str, Any], float], None]

_FIRST_DELAY = 0.05
_MAX_DELAY = 1.0
_log = logging.getLogger("graphmem")


async def _in_transaction(execute: Callable[..., Awaitable[Any]], fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``execute(fn, *args)`` (a session's ``execute_read`` or ``execute_write``), so that a
    statement the server fails never reaches the driver as an exception.

    Why: when a statement fails, the driver hands the connection back to the pool at
    once, but if the transaction function then raises, the driver rolls the
    transaction back through that same connection: it probes the socket (switching its
    timeout off and on) and may send ROLLBACK, although another thread may own the
    connection by now. Seen as a thread blocked for good in ``recv()`` (issue 23.3), a
    ``ResultFailedError`` in place of the server's error, and a "defunct connection"
    after minutes. So the failure is kept here and ``fn`` returns normally: the
    driver's commit then sees the failed transaction and raises without any I/O, and
    the server's own error is raised in its place."""
    failed: list[Exception] = []  # what fn raised after a statement failed (at most one)

    async def guarded(tx: AsyncManagedTransaction, *a: Any) -> Any:
        try:
            return await fn(tx, *a)
        except Exception as exc:
            if getattr(tx, "_last_error", None) is None:
                raise  # no statement failed: the driver rolls the transaction back as usual
            failed.append(exc)
            return None

    try:
        out: T = await execute(guarded, *args)
        if not failed:
            return out
        error: Exception = failed[0]  # the driver did not raise on the failed commit: still a failure
    except (TransactionError, ResultFailedError) as exc:
        error = failed[0] if failed else exc
    if isinstance(error, (TransactionError, ResultFailedError)) and isinstance(error.__cause__, Neo4jError):
        raise error.__cause__ from None  # the server's error, which the retry table knows
    raise error


def _builder(name: str, template: templates.Template, row_type: type[Row] | None) -> Callable[[Any], Any]:
    if row_type is None:  # a statement that returns nothing
        if template.columns:
            raise TemplateError(f"template {name!r} returns rows: run it with its row type (run_as, read_as)")
        return row
    built = checked(row_type, name, template.columns)
    return lambda record: typed(built, record)


def _remembered(created: dict[str, list[str]]) -> list[Pending]:
    """The ``remembered`` event of a transaction that created ``created`` (none if nothing)."""
    ids = [i for kind in created.values() for i in kind]
    if not ids:
        return []
    return [{"kind": "remembered", "ids": tuple(dict.fromkeys(ids)),
             "detail": {"kinds": {kind: len(made) for kind, made in created.items() if made}}}]


class AsyncTx:
    """One open transaction; ``run`` executes a template inside it, ``emit`` notes an
    event to publish if (and once) it commits."""

    def __init__(self, tx: AsyncManagedTransaction, tracer: Tracer | None, observe: Observability = OFF,
                 where: tuple[str | None, tuple[str, int] | None] = (None, None), slot: str = _layout.SLOT_A) -> None:
        self._tx = tx
        self.slot = slot
        self._tracer = tracer
        self._observe = observe
        self._where = where
        self.events: list[Pending] = []
        self.created: dict[str, list[str]] = {}
        """The memories this transaction created, by kind (one ``remembered`` event at commit)."""

    def emit(self, kind: str, ids: Any = (), **fields: Any) -> None:
        event = pending(kind, ids, **fields)
        if event is not None:
            self.events.append(event)

    async def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._run(name, params, None)

    async def run_as(self, row_type: type[W], name: str, **params: Any) -> list[W]:
        """``run``, each row a ``row_type`` (checked against the template's columns first)."""
        return await self._run(name, params, row_type)

    async def _run(self, name: str, params: dict[str, Any], row_type: type[Row] | None) -> list[Any]:
        template = templates.get(templates.in_slot(name, self.slot))
        template.check(params)
        build = _builder(name, template, row_type)
        with self._observe.query(name, *self._where) as span:
            started = time.perf_counter()
            result = await self._tx.run(template.text, params)
            rows = [build(record) async for record in result]
            if self._tracer is not None:
                self._tracer(name, params, time.perf_counter() - started)
            if span is not None:
                span.set_attribute("db.response.returned_rows", len(rows))
        if name in CREATES:
            for kind, rid in created_by(name, params):
                self.created.setdefault(kind, []).append(rid)
        return rows


class AsyncExecutor:
    """Runs templates against one database of one driver."""

    def __init__(
        self,
        driver: AsyncDriver,
        *,
        database: str | None,
        tracer: Tracer | None,
        owns_driver: bool,
        user: str | None = None,
        connection_timeout: float = 5.0,
        max_retry_time: float = 30.0,
        conflict_retries: int = 2,
        observe: Observability = OFF,
        server: tuple[str, int] | None = None,
        shared: Shared = SHARED,
    ) -> None:
        self.driver = driver
        self.known: DriverKnown = shared.driver(driver, database)
        """What the memory objects of this driver and database know of its store (``_memory/known.py``)."""
        self.observe = observe
        self.where = (database, server)
        self.database = database
        self.tracer = tracer
        self.user = user
        self.connection_timeout = connection_timeout
        self.max_retry_time = max_retry_time
        self.conflict_retries = conflict_retries
        self.events: Emitter | None = None
        self.slot_moved: Callable[[_layout.Layout], Awaitable[None]] | None = None
        """Called when a write finds the store's vectors moved to the other slot (a
        re-embedding switched): raises when this memory object's embedder may not write there."""
        self._owns_driver = owns_driver

    def _session(self, *, reading: bool = False) -> AsyncSession:
        return self.driver.session(
            database=self.database,
            bookmark_manager=self.driver.execute_query_bookmark_manager,
            notifications_min_severity="OFF",
            # one attempt per call: _retrying below decides what is tried again
            max_transaction_retry_time=-1.0,
            default_access_mode=READ_ACCESS if reading else WRITE_ACCESS,
        )

    async def _retrying(self, attempt: Callable[[], Awaitable[T]], *, write: bool) -> T:
        """Call ``attempt`` until it succeeds or its failure's retry budget is spent."""
        started = time.monotonic()
        delay = _FIRST_DELAY
        conflicts = 0
        starved = False
        with translated_errors(user=self.user):
            while True:
                try:
                    return await attempt()
                except ConstraintError:
                    if not write or conflicts >= self.conflict_retries:
                        raise
                    conflicts += 1
                    note("graphmem.retry", **{"error.type": "ConstraintError"})
                    continue  # at once: the winner has committed, its record is there to read
                except ConnectionAcquisitionTimeoutError:
                    if starved:
                        raise
                    starved = True
                    note("graphmem.retry", **{"error.type": "ConnectionAcquisitionTimeoutError"})
                    continue  # its whole budget went on the wait: one fresh try, at once
                except (ServiceUnavailable, SessionExpired) as exc:
                    failure: Exception = exc
                    budget = self.connection_timeout
                except (Neo4jError, DriverError) as exc:
                    if not exc.is_retryable():
                        raise
                    failure, budget = exc, self.max_retry_time
                if time.monotonic() - started + delay > budget:
                    raise failure
                note("graphmem.retry", **{"error.type": type(failure).__name__, "graphmem.delay": delay})
                await async_pause(delay)
                delay = min(delay * 2, _MAX_DELAY)

    async def layout(self, *, fresh: bool = False) -> _layout.Layout:
        """What the store's node says (schema version, vector slot, a re-embedding under way),
        read once per driver and database and again when older than ``layout.KEPT_SECONDS``
        or ``fresh``. A store of a newer schema version than this graphmem's is a
        ``SchemaError``; an older one is said once on the ``graphmem`` logger."""
        found = None if fresh else self.known.fresh_layout()
        if found is None:
            found = await self.read_layout()
            if found.version > _layout.VERSION:
                self.known.forget_layout()
                raise SchemaError(
                    f"this store's data follows schema version {found.version}, written by a newer graphmem; "
                    f"this graphmem reads up to version {_layout.VERSION}: upgrade graphmem (pip install -U graphmem)")
            if _layout.EMPTY < found.version < _layout.VERSION and not self.known.told_older:
                self.known.told_older = True
                _log.warning("this store's data follows schema version %d, this graphmem writes version %d: run "
                             "setup() (or graphmem setup) to upgrade it; graphmem setup --check lists the steps",
                             found.version, _layout.VERSION)
            self.known.layout = found
        return found

    async def read_layout(self) -> _layout.Layout:
        """What the store's node says, read now (neither kept nor checked against this
        graphmem's version); when the node is gone from a store in use (deleted by hand), the
        vector indexes say which slot its vectors are in."""
        rows = await self._auto("store_layout", {}, reading=True, slot=_layout.SLOT_A, row_type=_layout.StoreLayoutRow)
        row: _layout.StoreLayoutRow | None = rows[0] if rows else None
        indexes: list[str] = []
        if row is not None and not row.recorded and row.used:
            indexes = [r.name for r in await self._auto("schema_vector_info", {}, reading=True, slot=_layout.SLOT_A,
                                                        row_type=_layout.VectorIndexRow)]
        return _layout.from_row(row, indexes)

    def forget_layout(self) -> None:
        """Read the store's node again on the next call (it changed: a re-embedding switched
        slots, or a vector index was found missing)."""
        self.known.forget_layout()

    async def read_as(self, row_type: type[W], name: str, **params: Any) -> list[W]:
        """Run one template as an auto-commit read (routable to a cluster's readers), each row
        a ``row_type`` (checked against the template's columns first): one round trip where a
        transaction function takes three (BEGIN, RUN, COMMIT); a read runs one statement, so
        the transaction adds nothing (docs/design-notes.md#reads-auto-commit)."""
        return await self._auto(name, params, reading=True, slot=(await self.layout()).slot, row_type=row_type)

    async def read_in_as(self, row_type: type[W], slot: str, name: str, **params: Any) -> list[W]:
        """``read_as`` with the template's version for ``slot``, whichever the store uses, and
        without reading the store's node first (``graphmem setup --check`` reads a store
        that ``layout`` would refuse)."""
        return await self._auto(name, params, reading=True, slot=slot, row_type=row_type)

    async def write(self, work: Callable[[AsyncTx], Awaitable[T]], *, slot: str | None = None) -> T:
        """Run ``work`` in one write transaction: everything it runs lands, or nothing does.

        ``work`` may run more than once (see the module docstring): it must read before
        it creates, and keep no state of its own between attempts. The transaction begins
        with ``write_guard``: when a re-embedding has moved the store's vectors to the other
        slot since this process read it, it is rolled back, ``slot_moved`` (when set) says
        whether this memory object may write there, and it runs again in the new slot. With
        ``slot`` its templates run in that slot's version, unguarded (a re-embedding writes
        the slot it fills)."""

        last: AsyncTx | None = None  # the transaction of the latest attempt
        guarded = slot is None
        chosen = (await self.layout()).slot if slot is None else slot

        async def unit(tx: AsyncManagedTransaction) -> T:
            nonlocal last
            last = AsyncTx(tx, self.tracer, self.observe, self.where, chosen)
            if guarded:
                await guard(last)
            return await work(last)

        async def attempt() -> T:
            async with self._session() as session:
                out = await _in_transaction(session.execute_write, unit)
            if self.events is not None and last is not None:  # committed: its events happened
                events = [*_remembered(last.created), *last.events]
                if events:
                    self.events.publish(events)
            return out

        while True:
            try:
                return await self._retrying(attempt, write=True)
            except SlotMoved as moved:
                chosen = (await self._moved(moved)).slot

    async def write_one(self, name: str, *, slot: str | None = None, **params: Any) -> list[dict[str, Any]]:
        """Run one template in a write transaction of its own (not one that creates memories:
        its ``remembered`` event is published by ``write`` only), as ``write`` runs it."""
        return await self._write_one(name, None, slot, params)

    async def write_one_as(self, row_type: type[W], name: str, *, slot: str | None = None, **params: Any) -> list[W]:
        """``write_one``, each row a ``row_type``."""
        return await self._write_one(name, row_type, slot, params)

    async def _write_one(self, name: str, row_type: type[Row] | None, slot: str | None,
                         params: dict[str, Any]) -> list[Any]:
        if name in CREATES:
            raise ValueError(f"{name} creates memories: run it through write()")
        return await self.write(lambda tx: tx.run(name, **params) if row_type is None
                                else tx.run_as(row_type, name, **params), slot=slot)

    async def _moved(self, moved: SlotMoved) -> _layout.Layout:
        """The store's layout read again after a write found its slot moved, once this memory
        object has been cleared to write there (``slot_moved``). A slot that moves back and
        forth under one write (re-embeddings one after another) ends it with a ``SchemaError``."""
        found = await self.layout(fresh=True)
        if found.slot != moved.slot:
            raise SchemaError("the store's vectors moved between slots twice during one write (re-embeddings "
                              "running one after another): write again once the re-embedding is over")
        if self.slot_moved is not None:
            await self.slot_moved(found)
        return found

    async def auto(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a template in an auto-commit transaction (schema statements need one)."""
        return await self._auto(name, params, reading=False, slot=(await self.layout()).slot)

    async def auto_in(self, slot: str, name: str, **params: Any) -> list[dict[str, Any]]:
        """``auto`` with the template's version for ``slot``, whichever the store uses (a
        re-embedding makes the other slot's index, and drops the old one)."""
        return await self._auto(name, params, reading=False, slot=slot)

    async def _auto(self, name: str, params: dict[str, Any], *, reading: bool, slot: str,
                    row_type: type[Row] | None = None) -> list[Any]:
        template = templates.get(templates.in_slot(name, slot))
        template.check(params)
        build = _builder(name, template, row_type)

        async def attempt() -> list[Any]:
            async with self._session(reading=reading) as session:
                with self.observe.query(name, *self.where) as span:
                    started = time.perf_counter()
                    result = await session.run(template.text, params)
                    rows = [build(record) async for record in result]
                    if self.tracer is not None:
                        self.tracer(name, params, time.perf_counter() - started)
                    if span is not None:
                        span.set_attribute("db.response.returned_rows", len(rows))
                return rows

        return await self._retrying(attempt, write=False)

    async def verify(self) -> None:
        async def attempt() -> None:
            await self.driver.verify_connectivity()

        await self._retrying(attempt, write=False)

    async def close(self) -> None:
        if self._owns_driver:
            await self.driver.close()
