"""graphmem's exceptions. Every error graphmem raises derives from ``GraphMemError``::

    GraphMemError
    ├── ConfigurationError        settings or environment are unusable
    │   ├── LauncherError         the embedded Neo4j could not be started or stopped
    │   └── EventLoopThreadError  a blocking call on the event loop's own thread (an asyncio.InvalidStateError too)
    ├── Neo4jUnavailableError     Neo4j cannot be reached or refused the credentials
    ├── TemplateError             a Cypher template is unknown or called with wrong parameters
    ├── SchemaError               the database schema does not fit (e.g. vector dimension)
    ├── InvalidInputError         caller input is invalid; ``.field`` names the culprit
    ├── ConflictError             a write collided with an existing record (uniqueness)
    ├── NotFoundError             an id names no visible record
    ├── ModelError                a chat model failed on every attempt (bounded retries)
    └── ExtractionTimeoutError    a wait for background extraction (``after_turn``) timed out

Driver errors are translated here, in ``translated_errors()``, and re-raised ``from``
the original, so the cause is never lost. Messages never carry a password: user info in
a URI is redacted (``redact()``) before it reaches a message.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)
from neo4j.exceptions import ConfigurationError as DriverConfigurationError


class GraphMemError(Exception):
    """Root of every error raised by graphmem."""


class ConfigurationError(GraphMemError):
    """Settings or the environment are unusable."""


class LauncherError(ConfigurationError):
    """The embedded Neo4j launcher failed (java/mvn missing, port taken, start timeout)."""


class EventLoopThreadError(ConfigurationError, asyncio.InvalidStateError):
    """A blocking call was made on the thread of the event loop it has to wait for (a sync
    ``GraphMemStore`` call over an ``AsyncMemory`` from async code), so it would block that
    loop for ever: the message names the async method to use. It is also an
    ``asyncio.InvalidStateError``, what LangGraph's async stores raise there."""


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

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as its two arguments (the default would pass the joined text as one)
        return type(self), (self.field, self.message), self.__dict__


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

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.purpose, self.attempts), self.__dict__


class ExtractionTimeoutError(GraphMemError, TimeoutError):
    """Background extraction (``after_turn``) was still running when a wait for it timed
    out; it goes on running, and a later wait picks it up."""


_NO_FULLTEXT = re.compile(r"no such fulltext schema index: ([A-Za-z0-9_]+)", re.IGNORECASE)
_USER_INFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s'\"]*@", re.IGNORECASE)

NEO4J_HOW_TO = (
    "start one with `eval \"$(graphmem neo4j start)\" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD` "
    "(in a clone of graphmem, `source .venv/bin/activate` first puts graphmem on PATH; or call "
    ".venv/bin/graphmem), or set NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD to a running server, "
    "or run `docker compose -f docker/compose.yml up`"
)
"""What to do when Neo4j does not answer (appended to every "unreachable" message)."""

POOL_EXHAUSTED = (
    "no connection of the driver's pool became free in time: the pool (max_connection_pool_size, 100 by "
    "default) is held by this process's concurrent transactions, or the server did not answer a new "
    "connection's handshake; run fewer calls at once (GraphMemStore merges concurrent async calls), or "
    "pass a driver with a larger pool (Memory.from_driver)"
)
"""What an exhausted connection pool is reported as (not as an unreachable server)."""


def redact(text: str) -> str:
    """``text`` with the user info of every URI in it (``bolt://user:secret@host``) masked."""
    return _USER_INFO.sub(r"\g<scheme>***@", text)


@contextmanager
def translated_errors(*, user: str | None = None) -> Iterator[None]:
    """Re-raise driver errors as graphmem errors (the one place this mapping lives).

    ``user`` names the login in an authentication failure; the password never appears.
    """
    try:
        yield
    except GraphMemError:
        raise
    except AuthError as exc:
        who = f"user {user!r}" if user else "the configured user"
        raise Neo4jUnavailableError(
            f"authentication failed for {who}: check NEO4J_USER and NEO4J_PASSWORD (or auth=)") from exc
    except ConnectionAcquisitionTimeoutError as exc:
        raise Neo4jUnavailableError(f"{POOL_EXHAUSTED} ({redact(str(exc))})") from exc
    except (ServiceUnavailable, SessionExpired) as exc:
        raise Neo4jUnavailableError(f"Neo4j is unreachable ({redact(str(exc))}); {NEO4J_HOW_TO}") from exc
    except ConstraintError as exc:
        raise ConflictError(f"write conflicts with an existing record: {redact(exc.message or '')}") from exc
    except Neo4jError as exc:
        if missing := _NO_FULLTEXT.search(exc.message or ""):
            raise SchemaError(
                f"the full-text index {missing.group(1)} is missing (dropped by hand, or setup() never ran on "
                "this database): run setup() (graphmem setup) to make it again; graphmem setup --check lists "
                "what is missing") from exc
        raise GraphMemError(f"Neo4j error {exc.code}: {redact(exc.message or '')}") from exc
    except DriverConfigurationError as exc:
        raise ConfigurationError(f"the Neo4j driver refused its configuration: {redact(str(exc))}") from exc
    except (DriverError, OSError) as exc:
        raise Neo4jUnavailableError(f"Neo4j driver error: {redact(str(exc))}; {NEO4J_HOW_TO}") from exc

