"""Runs named Cypher templates on a Neo4j driver: tracing, transactions, error translation."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction
from neo4j.exceptions import (
    AuthError,
    ConstraintError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from .. import _templates
from .._errors import ConflictError, GraphMemError, Neo4jUnavailableError
from .._records import row

T = TypeVar("T")
Tracer = Callable[[str, dict[str, Any], float], None]


@contextmanager
def translated_errors() -> Iterator[None]:
    """Re-raise driver errors as graphmem errors (the one place this mapping lives)."""
    try:
        yield
    except GraphMemError:
        raise
    except AuthError as exc:
        raise Neo4jUnavailableError(f"Neo4j rejected the credentials: {exc.message}") from exc
    except (ServiceUnavailable, SessionExpired) as exc:
        raise Neo4jUnavailableError(f"Neo4j is unreachable: {exc}") from exc
    except ConstraintError as exc:
        raise ConflictError(f"write conflicts with an existing record: {exc.message}") from exc
    except Neo4jError as exc:
        raise GraphMemError(f"Neo4j error {exc.code}: {exc.message}") from exc
    except (DriverError, OSError) as exc:
        raise Neo4jUnavailableError(f"Neo4j driver error: {exc}") from exc


class AsyncTx:
    """One open transaction; ``run`` executes a template inside it."""

    def __init__(self, tx: AsyncManagedTransaction, tracer: Tracer | None) -> None:
        self._tx = tx
        self._tracer = tracer

    async def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        template = _templates.get(name)
        template.check(params)
        started = time.perf_counter()
        result = await self._tx.run(template.text, params)
        rows = [row(record) async for record in result]
        if self._tracer is not None:
            self._tracer(name, params, time.perf_counter() - started)
        return rows


class AsyncExecutor:
    """Runs templates against one database of one driver."""

    def __init__(self, driver: AsyncDriver, *, database: str | None, tracer: Tracer | None, owns_driver: bool) -> None:
        self.driver = driver
        self.database = database
        self.tracer = tracer
        self._owns_driver = owns_driver

    def _session(self):
        return self.driver.session(
            database=self.database,
            bookmark_manager=self.driver.execute_query_bookmark_manager,
            notifications_min_severity="OFF",
        )

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one template in a read transaction (routable to a cluster's readers)."""
        with translated_errors():
            async with self._session() as session:
                return await session.execute_read(self._one, name, params)

    async def write(self, work: Callable[[AsyncTx], Awaitable[T]]) -> T:
        """Run ``work`` in one write transaction: everything it runs lands, or nothing does."""

        async def unit(tx: AsyncManagedTransaction) -> T:
            return await work(AsyncTx(tx, self.tracer))

        with translated_errors():
            async with self._session() as session:
                return await session.execute_write(unit)

    async def write_one(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with translated_errors():
            async with self._session() as session:
                return await session.execute_write(self._one, name, params)

    async def auto(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a template in an auto-commit transaction (schema statements need one)."""
        template = _templates.get(name)
        template.check(params)
        with translated_errors():
            async with self._session() as session:
                started = time.perf_counter()
                result = await session.run(template.text, params)
                rows = [row(record) async for record in result]
                if self.tracer is not None:
                    self.tracer(name, params, time.perf_counter() - started)
                return rows

    async def _one(self, tx: AsyncManagedTransaction, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return await AsyncTx(tx, self.tracer).run(name, **params)

    async def verify(self) -> None:
        with translated_errors():
            await self.driver.verify_connectivity()

    async def close(self) -> None:
        if self._owns_driver:
            await self.driver.close()
