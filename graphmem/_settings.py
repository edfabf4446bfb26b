"""Connection settings, read from the environment (or passed explicitly)."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class Settings(BaseSettings):
    """Where Neo4j is and how to log in.

    ``NEO4J_URI``       bolt:// or neo4j:// URI (neo4j:// and neo4j+s:// route reads in a cluster or Aura)
    ``NEO4J_USER``      user name (default ``neo4j``)
    ``NEO4J_PASSWORD``  password (kept as a secret: never printed, never in ``repr``)
    ``NEO4J_DATABASE``  database name (default: the server's default database)
    """

    model_config = SettingsConfigDict(env_prefix="NEO4J_", extra="ignore", frozen=True)

    uri: str = Field(default="bolt://127.0.0.1:7687")
    """``NEO4J_URI``: where Neo4j listens (default ``bolt://127.0.0.1:7687``)."""
    user: str = Field(default="neo4j")
    """``NEO4J_USER``: the user to log in as."""
    password: SecretStr = Field(default=SecretStr(""))
    """``NEO4J_PASSWORD``: read with ``get_secret_value()``."""
    database: str | None = Field(default=None)
    """``NEO4J_DATABASE``: ``None`` means the server's default database."""

    @field_validator("uri")
    @classmethod
    def _check_uri(cls, value: str) -> str:
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in _SCHEMES:
            raise ValueError(f"NEO4J_URI must start with one of {', '.join(s + '://' for s in _SCHEMES)}")
        return value

    @field_validator("database")
    @classmethod
    def _empty_database_is_default(cls, value: str | None) -> str | None:
        return value or None
