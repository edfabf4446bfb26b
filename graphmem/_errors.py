"""graphmem's exceptions. Every error graphmem raises derives from ``GraphMemError``::

    GraphMemError
    ├── ConfigurationError        settings or environment are unusable
    │   └── LauncherError         the embedded Neo4j could not be started or stopped
    ├── Neo4jUnavailableError     Neo4j cannot be reached or refused the credentials
    ├── TemplateError             a Cypher template is unknown or called with wrong parameters
    ├── SchemaError               the database schema does not fit (e.g. vector dimension)
    ├── InvalidInputError         caller input is invalid; ``.field`` names the culprit
    ├── ConflictError             a write collided with an existing record (uniqueness)
    ├── NotFoundError             an id names no visible record
    └── ModelError                a chat model failed on every attempt (bounded retries)

Driver and pydantic errors are translated at the boundary and re-raised ``from`` the
original, so the cause is never lost.
"""

from __future__ import annotations


class GraphMemError(Exception):
    """Root of every error raised by graphmem."""


class ConfigurationError(GraphMemError):
    """Settings or the environment are unusable."""


class LauncherError(ConfigurationError):
    """The embedded Neo4j launcher failed (java/mvn missing, port taken, start timeout)."""


class Neo4jUnavailableError(GraphMemError):
    """Neo4j could not be reached, or rejected the credentials."""


class TemplateError(GraphMemError):
    """A Cypher template is unknown, malformed, or called with the wrong parameters."""


class SchemaError(GraphMemError):
    """The database schema conflicts with the configuration (e.g. vector dimension)."""


class InvalidInputError(GraphMemError, ValueError):
    """Caller input was rejected before anything was written.

    ``field`` names the offending argument (``items[3].valid_to`` for batch items).
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        """The argument that was rejected, as the caller named it."""
        self.message = message
        """What is wrong with it."""
        super().__init__(f"{field}: {message}")


class NotFoundError(GraphMemError, LookupError):
    """An id names no record visible to this tenant."""


class ConflictError(GraphMemError):
    """A write collided with an existing record (e.g. an id already used by another kind)."""


class ModelError(GraphMemError):
    """A chat model failed (an exception, malformed or unusable output) on every attempt.

    ``purpose`` names the call (``reflect``, ``induce_procedure``); ``attempts`` lists each
    attempt's error. Nothing the call would have produced was written.
    """

    def __init__(self, purpose: str, attempts: list[str]) -> None:
        self.purpose = purpose
        """The call that failed (``ingest``, ``reflect``, ``induce_procedure``...)."""
        self.attempts = list(attempts)
        """Each attempt's error, in order."""
        last = attempts[-1] if attempts else "no attempt made"
        super().__init__(f"{purpose}: the model failed {len(attempts)} time(s); last error: {last}")
