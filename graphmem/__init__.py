"""graphmem: long-term memory for AI agents as a bitemporal knowledge graph in Neo4j.

Start with ``Memory`` (or ``AsyncMemory``: the same methods, as coroutines): one per tenant,
``setup()`` once, then ``remember``, ``add_episode`` or ``ingest`` to write and ``recall``,
``context``, ``facts`` or ``history`` to read. Records come back as the pydantic models
``Fact``, ``Episode``, ``Entity``, ``Insight`` and ``Procedure``; every error derives from
``GraphMemError``. The concepts (time model, scopes, recall, ingestion, learning) are
explained in the guides under ``docs/`` in the repository.

Constants:

- ``DEFAULT_EMBEDDER``: what ``Memory()`` embeds with unless told otherwise: the offline
  ``WordLlamaEmbedder`` (``embedder=None`` means full-text recall only).
- ``DEFAULT_EXTRACTOR``: what ``Memory()`` finds entities with when there is no chat model:
  ``SpacyExtractor()`` when spaCy and an English pipeline are installed (``graphmem[ner]``),
  else none (``entity_extractor=None`` turns it off).
- ``DEFAULT_SINGLE_VALUED``: the predicates treated as single-valued (one value at a time,
  so a new value supersedes the current one) when a write does not say; names with the
  prefixes ``preferred_``, ``favorite_``, ``favourite_``, ``current_``, ``prefers_`` and the
  suffix ``_preference`` are single-valued too.
- ``MAX_EPISODE_LENGTH``: the longest episode content, in characters (a pasted document).
- ``MAX_TEXT_LENGTH``: the longest text, in characters, that any other record accepts.
- ``__version__``: the version of the installed graphmem.
"""

from typing import Any as _Any

from ._async.memory import AsyncMemory
from ._base.connection import connect, verify_connectivity
from ._base.embeddings import HashingEmbedder, WordLlamaEmbedder
from ._base.errors import (
    ConfigurationError,
    ConflictError,
    EventLoopThreadError,
    ExtractionTimeoutError,
    GraphMemError,
    InvalidInputError,
    LauncherError,
    ModelError,
    Neo4jUnavailableError,
    NotFoundError,
    SchemaError,
    TemplateError,
)
from ._base.events import MemoryEvent
from ._base.layout import SchemaPlan, SchemaStep
from ._base.models import (
    Correction,
    Decision,
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
from ._base.ner import DEFAULT_EXTRACTOR, EntityExtractor, Mention, SpacyExtractor
from ._base.observe import Observability
from ._base.onnx import OnnxEmbedder
from ._base.public import publish as _publish
from ._base.settings import Settings
from ._base.validate import MAX_EPISODE_LENGTH, MAX_TEXT_LENGTH
from ._learning.corrections import CorrectionStats
from ._learning.curation import CurationReport, CurationStats
from ._learning.decisions import DecisionQuality
from ._learning.ingest import IngestResult, SameAsCandidate, Skipped
from ._learning.insights import DroppedInsight, MaintenanceReport, ReflectionReport
from ._learning.procedures import SuggestedProcedure, ToolCall
from ._learning.profile import Profile
from ._learning.settings import LearningSettings
from ._learning.usage import TokenUsage
from ._memory.core import DEFAULT_EMBEDDER
from ._memory.erase import EraseReport
from ._memory.facts import DEFAULT_SINGLE_VALUED
from ._memory.graph import from_json as graph_from_json
from ._memory.graph import to_graphml as graph_to_graphml
from ._memory.graph import to_json as graph_to_json
from ._memory.reembed import ReembedProgress, ReembedReport
from ._recall.context import estimate_tokens
from ._recall.fusion import ScoredMemory, ScoreParts
from ._recall.settings import RecallSettings, RecallWeights
from ._sync.memory import Memory
from ._version import __version__
from ._working.background import AsyncTurnHandle, TurnHandle
from ._working.notes import NoteEdit
from ._working.turn import TurnResult


def setup(uri: str | None = None, auth: tuple[str, str] | None = None, *, embedder: _Any = DEFAULT_EMBEDDER,
          **kwargs: _Any) -> None:
    """Apply graphmem's schema (constraints, indexes) to the configured Neo4j and wait for it."""
    with Memory(uri, auth, embedder=embedder, **kwargs) as memory:
        memory.setup()


__all__ = [
    "DEFAULT_EMBEDDER",
    "DEFAULT_EXTRACTOR",
    "DEFAULT_SINGLE_VALUED",
    "MAX_EPISODE_LENGTH",
    "MAX_TEXT_LENGTH",
    "AsyncMemory",
    "AsyncTurnHandle",
    "ConfigurationError",
    "ConflictError",
    "Correction",
    "CorrectionStats",
    "CurationReport",
    "CurationStats",
    "Decision",
    "DecisionQuality",
    "DroppedInsight",
    "Entity",
    "EntityExtractor",
    "Episode",
    "EraseReport",
    "EventLoopThreadError",
    "ExtractionTimeoutError",
    "Fact",
    "GraphMemError",
    "HashingEmbedder",
    "IngestResult",
    "Insight",
    "InvalidInputError",
    "LauncherError",
    "LearningSettings",
    "MaintenanceReport",
    "Memory",
    "MemoryEvent",
    "MemoryRecord",
    "Mention",
    "ModelError",
    "Neo4jUnavailableError",
    "NotFoundError",
    "Note",
    "NoteEdit",
    "Observability",
    "OnnxEmbedder",
    "Procedure",
    "Profile",
    "Provenance",
    "RecallSettings",
    "RecallWeights",
    "ReembedProgress",
    "ReembedReport",
    "ReflectionReport",
    "SameAsCandidate",
    "SchemaError",
    "SchemaPlan",
    "SchemaStep",
    "Scope",
    "ScoreParts",
    "ScoredMemory",
    "Sensitivity",
    "Settings",
    "Skipped",
    "SpacyExtractor",
    "Status",
    "SuggestedProcedure",
    "Summary",
    "Supersession",
    "TemplateError",
    "TokenUsage",
    "ToolCall",
    "TurnHandle",
    "TurnResult",
    "WordLlamaEmbedder",
    "__version__",
    "connect",
    "estimate_tokens",
    "graph_from_json",
    "graph_to_graphml",
    "graph_to_json",
    "setup",
    "verify_connectivity",
]

_publish(__name__, globals())
