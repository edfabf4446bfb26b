# Generated from graphmem/_async/executor.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Runs named Cypher templates on a Neo4j driver: tracing, transactions, error translation."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from neo4j import Driver, ManagedTransaction
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


class Tx:
    """One open transaction; ``run`` executes a template inside it."""

    def __init__(self, tx: ManagedTransaction, tracer: Tracer | None) -> None:
        self._tx = tx
        self._tracer = tracer

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        template = _templates.get(name)
        template.check(params)
        started = time.perf_counter()
        result = self._tx.run(template.text, params)
        rows = [row(record) for record in result]
        if self._tracer is not None:
            self._tracer(name, params, time.perf_counter() - started)
        return rows


class Executor:
    """Runs templates against one database of one driver."""

    def __init__(self, driver: Driver, *, database: str | None, tracer: Tracer | None, owns_driver: bool) -> None:
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

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one template in a read transaction (routable to a cluster's readers)."""
        with translated_errors():
            with self._session() as session:
                return session.execute_read(self._one, name, params)

    def write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one write transaction: everything it runs lands, or nothing does."""

        def unit(tx: ManagedTransaction) -> T:
            return work(Tx(tx, self.tracer))

        with translated_errors():
            with self._session() as session:
                return session.execute_write(unit)

    def write_one(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with translated_errors():
            with self._session() as session:
                return session.execute_write(self._one, name, params)

    def auto(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a template in an auto-commit transaction (schema statements need one)."""
        template = _templates.get(name)
        template.check(params)
        with translated_errors():
            with self._session() as session:
                started = time.perf_counter()
                result = session.run(template.text, params)
                rows = [row(record) for record in result]
                if self.tracer is not None:
                    self.tracer(name, params, time.perf_counter() - started)
                return rows

    def _one(self, tx: ManagedTransaction, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return Tx(tx, self.tracer).run(name, **params)

    def verify(self) -> None:
        with translated_errors():
            self.driver.verify_connectivity()

    def close(self) -> None:
        if self._owns_driver:
            self.driver.close()
