"""graphmem: long-term memory for AI agents as a bitemporal knowledge graph in Neo4j."""

from typing import Any as _Any

from ._async.memory import AsyncMemory
from ._connection import connect, verify_connectivity
from ._context import estimate_tokens
from ._core import DEFAULT_EMBEDDER
from ._embeddings import HashingEmbedder, WordLlamaEmbedder
from ._errors import (
    ConfigurationError,
    ConflictError,
    GraphMemError,
    InvalidInputError,
    LauncherError,
    ModelError,
    Neo4jUnavailableError,
    NotFoundError,
    SchemaError,
    TemplateError,
)
from ._facts import DEFAULT_SINGLE_VALUED
from ._fusion import ScoredMemory, ScoreParts
from ._ingest import IngestResult, SameAsCandidate, Skipped
from ._insights import DroppedInsight, MaintenanceReport, ReflectionReport
from ._learning import LearningSettings
from ._procedures import SuggestedProcedure, ToolCall
from ._notes import NoteEdit
from ._profile import Profile
from ._recall import RecallSettings, RecallWeights
from ._models import (
    Entity,
    Episode,
    Fact,
    Insight,
    MemoryRecord,
    Note,
    Procedure,
    Provenance,
    Scope,
    Sensitivity,
    Status,
    Summary,
    Supersession,
)
from ._settings import Settings
from ._sync.memory import Memory
from ._validate import MAX_EPISODE_LENGTH, MAX_TEXT_LENGTH
from ._version import __version__


def setup(uri: str | None = None, auth: tuple[str, str] | None = None, *, embedder: _Any = DEFAULT_EMBEDDER,
          **kwargs: _Any) -> None:
    """Apply graphmem's schema (constraints, indexes) to the configured Neo4j and wait for it."""
    with Memory(uri, auth, embedder=embedder, **kwargs) as memory:
        memory.setup()


__all__ = [
    "DEFAULT_EMBEDDER",
    "DEFAULT_SINGLE_VALUED",
    "MAX_EPISODE_LENGTH",
    "MAX_TEXT_LENGTH",
    "AsyncMemory",
    "ConfigurationError",
    "ConflictError",
    "DroppedInsight",
    "Entity",
    "Episode",
    "Fact",
    "GraphMemError",
    "HashingEmbedder",
    "Insight",
    "IngestResult",
    "InvalidInputError",
    "LauncherError",
    "LearningSettings",
    "MaintenanceReport",
    "Memory",
    "MemoryRecord",
    "Note",
    "NoteEdit",
    "ModelError",
    "Neo4jUnavailableError",
    "NotFoundError",
    "Procedure",
    "Profile",
    "RecallSettings",
    "RecallWeights",
    "SameAsCandidate",
    "ReflectionReport",
    "ScoreParts",
    "ScoredMemory",
    "Provenance",
    "SchemaError",
    "Scope",
    "Sensitivity",
    "Settings",
    "Skipped",
    "Status",
    "SuggestedProcedure",
    "Summary",
    "Supersession",
    "TemplateError",
    "ToolCall",
    "WordLlamaEmbedder",
    "__version__",
    "connect",
    "estimate_tokens",
    "setup",
    "verify_connectivity",
]
