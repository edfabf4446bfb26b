"""What the ``AsyncMemory`` mixins use of each other, stated once: every mixin subclasses
``AsyncHost``, and ``AsyncMemory`` combines them (so a type checker sees each attribute and
method a mixin calls, and that the front door provides all of them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from .._base.events import Emitter
from .._base.models import Episode, Fact, Note, Record, Summary
from .._base.observe import Observability
from .._learning.settings import LearningSettings
from .._memory.core import Core
from .._memory.known import Known, Shared
from .._recall.fusion import ScoredMemory
from .._recall.settings import RecallSettings
from .._working.background import AsyncBackground
from .._working.lanes import AsyncLanes
from .backend import AsyncStore
from .executor import AsyncExecutor
from .llm import AsyncLlmCaller

if TYPE_CHECKING:  # the services hold no host; importing them here would close a cycle
    from .entities import AsyncEntities
    from .episodes import AsyncEpisodes
    from .extraction import AsyncExtractions
    from .facts import AsyncFacts
    from .procedures import AsyncProcedures
    from .recall import AsyncRecall


class AsyncHost(Protocol):
    _store: AsyncStore
    _facts: AsyncFacts
    _recall: AsyncRecall
    _entities: AsyncEntities
    _episodes: AsyncEpisodes
    _extractions: AsyncExtractions
    _procedures: AsyncProcedures
    _learning: LearningSettings
    _llm: AsyncLlmCaller
    _recall_settings: RecallSettings
    _background: AsyncBackground
    _lanes: AsyncLanes

    @property
    def _run(self) -> AsyncExecutor: ...

    @property
    def _core(self) -> Core: ...

    @property
    def _known(self) -> Known: ...

    @property
    def _shared(self) -> Shared: ...

    @property
    def _events(self) -> Emitter: ...

    @property
    def _observe(self) -> Observability: ...

    async def get(self, id: str) -> Record | None: ...

    async def messages(self, session_id: str, *, scope: str, max_messages: int = 50,
                       max_tokens: int | None = None) -> list[Episode]: ...

    async def notes(self, *, scope: str, owner: str, label: str | None = None,
                    as_of: datetime | None = None) -> list[Note]: ...

    async def summaries(self, session_id: str, *, scope: str, include_folded: bool = False) -> list[Summary]: ...

    async def context(self, query: str, *, scope: str, max_tokens: int = 2000,
                      sections: Iterable[str] | None = None, k: int = 50, as_of: datetime | None = None,
                      valid_at: datetime | None = None, purpose: str = "inform",
                      max_sensitivity: str | None = None, min_relevance: float | None = None,
                      user_id: str | None = None, agent_id: str | None = None,
                      session_id: str | None = None) -> str: ...

    async def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Fact]: ...

    async def facts(self, *, scope: str, as_of: datetime | None = None, valid_at: datetime | None = None,
                    subject: str | None = None, predicate: str | None = None,
                    include_invalidated: bool = False) -> list[Fact]: ...

    async def history(self, *, subject: str, predicate: str | None = None, scope: str) -> list[Fact]: ...

    async def recall(self, query: str, *, scope: str, k: int = 10, as_of: datetime | None = None,
                     valid_at: datetime | None = None, kinds: Iterable[str] | None = None,
                     purpose: str = "inform", max_sensitivity: str | None = None,
                     include_invalidated: bool = False, min_relevance: float | None = None,
                     user_id: str | None = None, agent_id: str | None = None,
                     session_id: str | None = None) -> list[ScoredMemory]: ...
