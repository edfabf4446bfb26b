"""Driver construction and the connectivity check (one clear error when Neo4j is down)."""

from __future__ import annotations

from neo4j import Driver, GraphDatabase

from ._async.executor import translated_errors
from ._settings import Settings


def connect(settings: Settings | None = None, *, verify: bool = True) -> Driver:
    """A neo4j ``Driver`` for ``settings`` (default: from the environment), verified."""
    settings = settings or Settings()
    driver = GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password.get_secret_value()))
    if verify:
        try:
            verify_connectivity(driver)
        except BaseException:
            driver.close()
            raise
    return driver


def verify_connectivity(driver: Driver) -> None:
    """Raise ``Neo4jUnavailableError`` (naming the URI, never the password) if Neo4j does not answer."""
    with translated_errors():
        driver.verify_connectivity()
