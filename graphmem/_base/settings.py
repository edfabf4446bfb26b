"""Connection settings, read from the environment (or passed explicitly)."""

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class Settings(BaseSettings):
    """Where Neo4j is and how to log in.

    ``NEO4J_URI``       bolt:// or neo4j:// URI (neo4j:// and neo4j+s:// route reads in a cluster or Aura)
    ``NEO4J_USER``      user name (default ``neo4j``)
    ``NEO4J_PASSWORD``  password (kept as a secret: never printed, never in ``repr``)
    ``NEO4J_DATABASE``  database name (default: the server's default database)
    ``NEO4J_CONNECTION_TIMEOUT``  seconds to keep trying while Neo4j cannot be reached
                        (connection refused, no route) before ``Neo4jUnavailableError``; default 5
    ``NEO4J_MAX_RETRY_TIME``  seconds to keep retrying transient errors of a live server
                        (deadlocks, lock timeouts, a leader switch); default 30

    A URI must not carry user info (``bolt://user:secret@host``): the user and password go
    in ``NEO4J_USER``/``NEO4J_PASSWORD`` (or ``auth=``), so no message ever repeats them.
    """

    # hide_input_in_errors: a rejected URI may hold a password; the error must not echo it
    model_config = SettingsConfigDict(env_prefix="NEO4J_", extra="ignore", frozen=True, hide_input_in_errors=True)

    uri: str = Field(default="bolt://127.0.0.1:7687")
    """``NEO4J_URI``: where Neo4j listens (default ``bolt://127.0.0.1:7687``)."""
    user: str = Field(default="neo4j")
    """``NEO4J_USER``: the user to log in as."""
    password: SecretStr = Field(default=SecretStr(""))
    """``NEO4J_PASSWORD``: read with ``get_secret_value()``."""
    database: str | None = Field(default=None)
    """``NEO4J_DATABASE``: ``None`` means the server's default database."""
    connection_timeout: float = Field(default=5.0, gt=0, le=3600)
    """``NEO4J_CONNECTION_TIMEOUT``: seconds to keep trying an unreachable server."""
    max_retry_time: float = Field(default=30.0, ge=0, le=3600)
    """``NEO4J_MAX_RETRY_TIME``: seconds to retry transient errors on a live server."""

    @field_validator("uri")
    @classmethod
    def _check_uri(cls, value: str) -> str:
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in _SCHEMES:
            raise ValueError(f"NEO4J_URI must start with one of {', '.join(s + '://' for s in _SCHEMES)}")
        if "@" in value.split("://", 1)[1].split("/", 1)[0]:
            raise ValueError("NEO4J_URI must not contain a user name or password (user info before '@'); "
                             "set NEO4J_USER and NEO4J_PASSWORD (or pass auth=) instead")
        return value

    @field_validator("database")
    @classmethod
    def _empty_database_is_default(cls, value: str | None) -> str | None:
        return value or None



def server_of(uri: str) -> tuple[str, int] | None:
    """(host, port) of a Neo4j URI, for the spans of the queries sent there (7687 when the
    URI gives no port); None when it cannot be read."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(uri)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    return (host, port or 7687) if host else None
