"""Driver construction and the connectivity check (one clear error when Neo4j is down)."""

from __future__ import annotations

from neo4j import Driver, GraphDatabase

from .errors import ConfigurationError, translated_errors
from .settings import Settings


def connect(settings: Settings | None = None, *, verify: bool = True) -> Driver:
    """A neo4j ``Driver`` for ``settings`` (default: from the environment), verified."""
    if settings is None:
        try:
            settings = Settings()
        except ValueError as exc:  # pydantic hides the input: a rejected URI's password stays out
            raise ConfigurationError(f"invalid Neo4j settings: {exc}") from exc
    with translated_errors(user=settings.user):
        driver = GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password.get_secret_value()),
                                      connection_timeout=settings.connection_timeout)
    if verify:
        try:
            verify_connectivity(driver, user=settings.user)
        except BaseException:
            driver.close()
            raise
    return driver


def verify_connectivity(driver: Driver, *, user: str | None = None) -> None:
    """Raise ``Neo4jUnavailableError`` (naming the URI, never the password) if Neo4j does not answer."""
    with translated_errors(user=user):
        driver.verify_connectivity()
