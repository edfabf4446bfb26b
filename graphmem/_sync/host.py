# Generated from graphmem/_async/host.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""What the ``Memory`` mixins use of each other, stated once: every mixin subclasses
``Host``, and ``Memory`` combines them (so a type checker sees each attribute and
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
from .._working.background import Background
from .._working.lanes import Lanes
from .backend import Store
from .executor import Executor
from .llm import LlmCaller

if TYPE_CHECKING:  # the services hold no host; importing them here would close a cycle
    from .entities import Entities
    from .episodes import Episodes
    from .extraction import Extractions
    from .facts import Facts
    from .procedures import Procedures
    from .recall import Recall


class Host(Protocol):
    _store: Store
    _facts: Facts
    _recall: Recall
    _entities: Entities
    _episodes: Episodes
    _extractions: Extractions
    _procedures: Procedures
    _learning: LearningSettings
    _llm: LlmCaller
    _recall_settings: RecallSettings
    _background: Background
    _lanes: Lanes

    @property
    def _run(self) -> Executor: ...

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

    def get(self, id: str) -> Record | None: ...

    def messages(self, session_id: str, *, scope: str, max_messages: int = 50,
                       max_tokens: int | None = None) -> list[Episode]: ...

    def notes(self, *, scope: str, owner: str, label: str | None = None,
                    as_of: datetime | None = None) -> list[Note]: ...

    def summaries(self, session_id: str, *, scope: str, include_folded: bool = False) -> list[Summary]: ...

    def context(self, query: str, *, scope: str, max_tokens: int = 2000,
                      sections: Iterable[str] | None = None, k: int = 50, as_of: datetime | None = None,
                      valid_at: datetime | None = None, purpose: str = "inform",
                      max_sensitivity: str | None = None, min_relevance: float | None = None,
                      user_id: str | None = None, agent_id: str | None = None,
                      session_id: str | None = None) -> str: ...

    def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Fact]: ...

    def facts(self, *, scope: str, as_of: datetime | None = None, valid_at: datetime | None = None,
                    subject: str | None = None, predicate: str | None = None,
                    include_invalidated: bool = False) -> list[Fact]: ...

    def history(self, *, subject: str, predicate: str | None = None, scope: str) -> list[Fact]: ...

    def recall(self, query: str, *, scope: str, k: int = 10, as_of: datetime | None = None,
                     valid_at: datetime | None = None, kinds: Iterable[str] | None = None,
                     purpose: str = "inform", max_sensitivity: str | None = None,
                     include_invalidated: bool = False, min_relevance: float | None = None,
                     user_id: str | None = None, agent_id: str | None = None,
                     session_id: str | None = None) -> list[ScoredMemory]: ...
