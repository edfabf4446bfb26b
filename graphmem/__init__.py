"""graphmem: long-term memory for AI agents as a bitemporal knowledge graph in Neo4j."""

from ._errors import (
    ConfigurationError,
    GraphMemError,
    InvalidInputError,
    LauncherError,
    Neo4jUnavailableError,
    NotFoundError,
    SchemaError,
    TemplateError,
)
from ._settings import Settings
from ._version import __version__

__all__ = [
    "ConfigurationError",
    "GraphMemError",
    "InvalidInputError",
    "LauncherError",
    "Neo4jUnavailableError",
    "NotFoundError",
    "SchemaError",
    "Settings",
    "TemplateError",
    "__version__",
]
