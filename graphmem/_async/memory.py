"""``AsyncMemory``: the asyncio front door. ``graphmem/_sync/memory.py`` is generated from
this file by ``tools/unasync.py``; edit this one and regenerate."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping

from neo4j import AsyncDriver, AsyncGraphDatabase

from .. import _recall, _scopes
from .. import _validate as check
from .._base import AUTOMATIC, MemoryCore
from .._insights import ReflectionReport
from .._learning import LearningSettings
from .._errors import ConfigurationError, InvalidInputError, NotFoundError, SchemaError
from .._models import Entity, Episode, Fact, Provenance, Record
from .._records import to_record
from .._settings import Settings
from .executor import AsyncExecutor, AsyncTx, Tracer
from .ingest import AsyncIngestMixin
from .insights import AsyncInsightsMixin
from .model import AsyncModelCaller
from .procedures import AsyncProceduresMixin
from .sessions import AsyncSessionsMixin
from .store import AsyncStoreMixin

_ERASE_BATCH = 5_000
_WARM_UP_SCOPE = "graphmem-warm-up"  # setup() recalls from it once; nothing is written there

_SCHEMA = [
    "schema_memory_id", "schema_fact_id", "schema_episode_id", "schema_entity_id",
    "schema_insight_id", "schema_procedure_id", "schema_scope_path", "schema_entity_name",
    "schema_memory_scope", "schema_memory_created", "schema_memory_invalidated",
    "schema_memory_user", "schema_memory_text_key", "schema_fact_subject", "schema_fact_valid",
    "schema_episode_occurred", "schema_entity_name_key", "schema_relates_fact", "schema_fulltext",
]


class AsyncMemory(AsyncIngestMixin, AsyncInsightsMixin, AsyncProceduresMixin, AsyncSessionsMixin, AsyncStoreMixin):
    """Long-term memory for one tenant, stored as a bitemporal graph in Neo4j (asyncio).

    ``uri``/``auth`` default to ``NEO4J_URI``, ``NEO4J_USER`` and ``NEO4J_PASSWORD``;
    ``embedder`` is any langchain-core ``Embeddings``; ``tracer(template, params, seconds)``
    sees every Cypher template run; ``clock`` returns the current UTC time (tests pin it);
    ``learning`` tunes insights, procedures and model calls. ``last_reflection`` reports
    what the most recent ``reflect`` call wrote and dropped.
    """

    def __init__(
        self,
        uri: str | None = None,
        auth: tuple[str, str] | None = None,
        *,
        database: str | None = None,
        tenant: str = "default",
        embedder: Any = None,
        tracer: Tracer | None = None,
        clock: Callable[[], datetime] | None = None,
        single_valued_predicates: Iterable[str] | None = None,
        contradiction_threshold: float = 0.85,
        recall_settings: _recall.RecallSettings | None = None,
        learning: LearningSettings | None = None,
        driver: AsyncDriver | None = None,
    ) -> None:
        self._core = MemoryCore(
            tenant=tenant, embedder=embedder, clock=clock,
            single_valued_predicates=single_valued_predicates,
            contradiction_threshold=contradiction_threshold,
        )
        self._recall = recall_settings or _recall.RecallSettings()
        self._learning = learning or LearningSettings()
        self._model = AsyncModelCaller(retries=self._learning.model_retries,
                                       concurrency=self._learning.max_concurrent_model_calls)
        self.last_reflection = ReflectionReport()
        owns = driver is None
        if driver is None:
            try:
                settings = Settings(**({"uri": uri} if uri else {}))
            except ValueError as exc:
                raise ConfigurationError(f"invalid Neo4j settings: {exc}") from exc
            if auth is None:
                auth = (settings.user, settings.password.get_secret_value())
            database = database or settings.database
            driver = AsyncGraphDatabase.driver(settings.uri, auth=auth)
        self._run = AsyncExecutor(driver, database=database, tracer=tracer, owns_driver=owns)

    @classmethod
    def from_driver(cls, driver: AsyncDriver, **kwargs: Any) -> AsyncMemory:
        """Use an existing driver (graphmem will not close it)."""
        return cls(driver=driver, **kwargs)

    @property
    def tenant(self) -> str:
        return self._core.tenant

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        await self._run.close()

    async def verify_connectivity(self) -> dict[str, str]:
        """Check Neo4j answers; return its name, version and edition."""
        await self._run.verify()
        rows = await self._run.read("server_components")
        return rows[0]

    # -- schema ---------------------------------------------------------------------
    async def setup(self, *, timeout: int = 300) -> None:
        """Create constraints and indexes (idempotent) and wait until all are ONLINE, then
        plan recall's query once (about a second on a freshly started server) so that the
        first real ``recall`` does not pay for it.

        The vector index's dimension comes from the embedder; an existing index of
        another dimension raises ``SchemaError``.
        """
        for name in _SCHEMA:
            await self._run.auto(name)
        if self._core.embedder is not None:
            probe = await self._core.embedder.aembed_query("dimension probe")
            wanted = len(check.embedding(probe, "embedder output", None))
            existing = await self._vector_dimension()
            if existing is not None and existing != wanted:
                raise SchemaError(
                    f"the vector index memory_embedding has {existing} dimensions but the embedder "
                    f"returns {wanted}; drop the index (and re-embed) or use a matching embedder"
                )
            if existing is None:
                await self._run.auto("schema_vector", dimensions=wanted)
            self._core.dimension = wanted
        await self._run.auto("schema_await", timeout=timeout)
        # a read of a scope nobody writes to: Neo4j caches the plan (recall.cypher keeps it)
        await self.recall("warm up", scope=_WARM_UP_SCOPE, k=1)

    async def _vector_dimension(self) -> int | None:
        rows = await self._run.auto("schema_vector_info")
        return int(rows[0]["dimensions"]) if rows else None

    async def _known_dimension(self) -> int | None:
        if self._core.dimension is None:
            self._core.dimension = await self._vector_dimension()
        return self._core.dimension

    # -- writing facts --------------------------------------------------------------
    async def remember(
        self,
        text: str,
        *,
        scope: str,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        single_valued: bool | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        provenance: Provenance | str = Provenance.MANUAL,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        id: str | None = None,
        embedding: list[float] | None = None,
        derived_from: Iterable[str] = (),
    ) -> Fact | None:
        """Store one fact. A single-valued fact supersedes the current value (design §7.1).
        ``derived_from`` names the episodes it was taken from (DERIVED_FROM edges).

        Returns the stored fact (the existing one, unchanged, if ``id`` was already written),
        or None when an automatic record restates something the user asked to forget.
        """
        item = {k: v for k, v in locals().items() if k not in ("self",)}
        facts = await self._write_facts([item], single=True)
        return facts[0] if facts else None

    async def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Fact]:
        """Store many facts in one transaction (``remember`` arguments per item).

        Every item is validated before anything is written; one bad item rejects the
        batch (the error names it as ``items[i].field``). Tombstoned automatic
        statements are left out of the result.
        """
        if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
            raise InvalidInputError("items", "must be a list of remember() argument mappings")
        return await self._write_facts(list(items), single=False)

    async def _write_facts(self, items: list[Mapping[str, Any]], *, single: bool) -> list[Fact]:
        core = self._core
        now = core.now()
        rows = [core.fact_row(items[0], now)] if single else core.fact_rows(items, now)
        if any(row["props"]["embedding"] is not None for row in rows) and core.dimension is None:
            await self._known_dimension()  # the index's dimension: check the given vectors
            rows = [core.fact_row(items[0], now)] if single else core.fact_rows(items, now)
        await self._embed(rows, ["embedding" if single else f"items[{i}].embedding" for i in range(len(rows))])

        async def work(tx: AsyncTx) -> list[Fact]:
            return await self._create_facts(tx, rows, now)

        return await self._run.write(work)

    async def _embed(self, rows: list[dict[str, Any]], fields: list[str]) -> None:
        todo = self._core.needs_embedding(rows)
        if not todo:
            return
        await self._known_dimension()
        texts = [rows[i].get("embedText") or rows[i]["props"]["text"] for i in todo]
        vectors = await self._core.embedder.aembed_documents(texts)
        if len(vectors) != len(todo):
            raise InvalidInputError("embedder", f"returned {len(vectors)} vectors for {len(todo)} texts")
        self._core.check_embeddings([rows[i] for i in todo], vectors, [fields[i] for i in todo])

    async def _create_facts(self, tx: AsyncTx, rows: list[dict[str, Any]], now: datetime,
                            effects: dict[str, list[str]] | None = None, exclude: Iterable[str] = ()) -> list[Fact]:
        tenant = self._core.tenant
        ids = [row["props"]["id"] for row in rows]
        kinds = {r["id"]: r["kind"] for r in await tx.run("memory_kinds", tenant=tenant, ids=ids)}
        for rid, kind in kinds.items():
            if kind != "fact":
                raise InvalidInputError("id", f"{rid!r} is already used by an {kind}")
        existing: dict[str, Any] = {}
        if kinds:  # idempotent rewrites return the stored records unchanged
            existing = {r["node"]["id"]: r["node"] for r in await tx.run("memory_existing", tenant=tenant, ids=sorted(kinds))}
        automatic = [
            {"id": p["id"], "key": p["textKey"], "subject": p["subject"], "predicate": p["predicate"],
             "object": p["object"], "chain": row["chain"], "scope": p["scope"]}
            for row in rows if (p := row["props"])["id"] not in existing and Provenance(p["provenance"]).automatic
        ]
        suppressed = set()
        if automatic:
            found = await tx.run("fact_tombstones", tenant=tenant, rows=automatic, automatic=AUTOMATIC)
            suppressed = {r["id"] for r in found}
        fresh = [row for row in rows if row["props"]["id"] not in existing and row["props"]["id"] not in suppressed]
        created: dict[str, Any] = {}
        if fresh:
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([r["props"]["scope"] for r in fresh]))
            await tx.run("fact_create", tenant=tenant, rows=fresh, now=now)
            created = {row["props"]["id"]: self._core.stored(row["props"], "fact", now) for row in fresh}
            shortened = sorted(await self._supersede(tx, fresh, now, effects, exclude) & set(created))
            if shortened:  # supersession ended some of the new facts: read those back
                for r in await tx.run("memory_existing", tenant=tenant, ids=shortened):
                    created[r["node"]["id"]] = r["node"]
        out = [created.get(rid) or existing.get(rid) for rid in ids]
        return [to_record(node) for node in out if node is not None]

    async def _supersede(self, tx: AsyncTx, fresh: list[dict[str, Any]], now: datetime,
                         effects: dict[str, list[str]] | None = None, exclude: Iterable[str] = ()) -> set[str]:
        """Apply contradiction rule 1 to new facts; return the ids whose times changed
        (and add them to ``effects["closed"]`` / ``effects["replaced"]`` when given).
        ``exclude`` names facts the caller is about to invalidate, which are left alone."""
        tenant = self._core.tenant
        batch_ids = [row["props"]["id"] for row in fresh]
        changed: list[str] = []
        invalidated: list[str] = []
        waves = self._core.supersede_waves(fresh)
        for i, wave in enumerate(waves):
            # a wave sees the batch's rows of earlier waves, not those still to come
            pending = {w["id"] for later in waves[i:] for w in later}
            excluded = [b for b in batch_ids if b in pending] + list(exclude)
            for r in await tx.run("fact_supersede", tenant=tenant, rows=wave, batchIds=excluded,
                                  automatic=AUTOMATIC, now=now):
                changed += r["closed"]
                invalidated += r["replaced"]
        await self._after_invalidation(tx, changed + invalidated, invalidated, now)
        if effects is not None:
            effects.setdefault("closed", []).extend(changed)
            effects.setdefault("replaced", []).extend(invalidated)
        return set(changed) | set(invalidated)

    async def _after_invalidation(self, tx: AsyncTx, changed: list[str], invalidated: list[str], now: datetime) -> None:
        """Keep RELATES projections in step and lower the salience of insights citing
        invalidated records -- inside the same transaction as the invalidation."""
        tenant = self._core.tenant
        if changed:
            await tx.run("fact_relates_sync", tenant=tenant, ids=sorted(set(changed)))
        if invalidated:
            await tx.run("insight_salience_drop", tenant=tenant, ids=sorted(set(invalidated)), now=now)

    # -- episodes and entities --------------------------------------------------------
    async def add_episode(
        self,
        content: str,
        *,
        scope: str,
        role: str = "user",
        occurred_at: datetime | None = None,
        source: str | None = None,
        id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
    ) -> Episode:
        """Store a raw observation (immutable once written; the same id returns it unchanged)."""
        now = self._core.now()
        row = self._core.episode_row(
            content, scope=scope, role=role, occurred_at=occurred_at, source=source, id=id,
            user_id=user_id, agent_id=agent_id, session_id=session_id, importance=importance,
            sensitivity=sensitivity, tags=tags, now=now,
        )
        await self._embed([row], ["content"])
        tenant = self._core.tenant

        async def work(tx: AsyncTx) -> Episode:
            found = await tx.run("memory_existing", tenant=tenant, ids=[row["props"]["id"]])
            if found:
                if found[0]["node"]["kind"] != "episode":
                    raise InvalidInputError("id", f"{row['props']['id']!r} is already used by a {found[0]['node']['kind']}")
                return to_record(found[0]["node"])
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([row["props"]["scope"]]))
            created = await tx.run("episode_create", tenant=tenant, rows=[row], now=now)
            return to_record(created[0]["node"])

        return await self._run.write(work)

    async def upsert_entity(
        self,
        name: str,
        *,
        type: str,
        scope: str,
        aliases: Iterable[str] = (),
        properties: Mapping[str, Any] | None = None,
        id: str | None = None,
        importance: float | None = None,
        sensitivity: str | None = None,
        provenance: Provenance | str = Provenance.MANUAL,
    ) -> Entity:
        """Find the entity of this type visible in ``scope`` whose name or alias matches
        (case, spacing and punctuation ignored) and record the new aliases and properties
        on it, or create it. One real thing stays one node."""
        now = self._core.now()
        props = self._core.entity_props(
            name, type=type, scope=scope, aliases=aliases, properties=properties, id=id,
            importance=importance, sensitivity=sensitivity, provenance=provenance,
        )
        row = {"props": props}
        await self._embed([row], ["name"])
        tenant = self._core.tenant
        keys = sorted({props["nameKey"], *props["aliasKeys"]})

        async def work(tx: AsyncTx) -> Entity:
            if id is not None:
                found = await tx.run("memory_existing", tenant=tenant, ids=[props["id"]])
                if found:
                    if found[0]["node"]["kind"] != "entity":
                        raise InvalidInputError("id", f"{props['id']!r} is already used by a {found[0]['node']['kind']}")
                    return await self._merge_entity(tx, found[0]["node"], props)
            match = await tx.run("entity_find", tenant=tenant, chain=_scopes.chain(props["scope"]), type=props["type"], keys=keys)
            if match:
                return await self._merge_entity(tx, match[0]["node"], props)
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
            created = await tx.run("entity_create", tenant=tenant, props=props, now=now)
            return to_record(created[0]["node"])

        return await self._run.write(work)

    async def _merge_entity(self, tx: AsyncTx, node: dict[str, Any], props: dict[str, Any]) -> Entity:
        merged = self._core.merged_entity(node, props)
        if merged is None:
            return to_record(node)
        updated = await tx.run("entity_update", tenant=self._core.tenant, id=node["id"], **merged)
        return to_record(updated[0]["node"])

    async def relate(
        self,
        subject_entity: Entity | str,
        predicate: str,
        object_entity: Entity | str,
        *,
        scope: str,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        single_valued: bool | None = None,
        text: str | None = None,
        provenance: Provenance | str = Provenance.MANUAL,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        id: str | None = None,
    ) -> Fact:
        """A relational fact between two entities visible in ``scope``: the Fact, its
        ABOUT edges and the RELATES projection, written in one transaction."""
        sid = subject_entity.id if isinstance(subject_entity, Entity) else subject_entity
        oid = object_entity.id if isinstance(object_entity, Entity) else object_entity
        check.identifier(sid, "subject_entity")
        check.identifier(oid, "object_entity")
        if predicate is None:
            raise InvalidInputError("predicate", "is required")
        normal = check.predicate(predicate)
        chain = _scopes.chain(_scopes.check_path(scope))
        seen = {r["node"]["id"]: r["node"] for r in await self._run.read(
            "entity_visible", tenant=self._core.tenant, ids=[sid, oid], chain=chain)}
        for field, eid in (("subject_entity", sid), ("object_entity", oid)):
            if eid not in seen:
                raise NotFoundError(f"{field}: no entity {eid!r} visible in scope {scope!r}")
        if text is None:
            text = f"{seen[sid]['name']} {normal.replace('_', ' ')} {seen[oid]['name']}"
        fact = await self.remember(
            text, scope=scope, subject=sid, predicate=normal, object=oid, single_valued=single_valued,
            valid_from=valid_from, valid_to=valid_to, provenance=provenance, importance=importance,
            sensitivity=sensitivity, tags=tags, user_id=user_id, agent_id=agent_id,
            session_id=session_id, id=id,
        )
        if fact is None:
            raise InvalidInputError("text", "this relation was forgotten by the user and is not restated automatically")
        return fact

    # -- correcting and forgetting ----------------------------------------------------
    async def correct(
        self,
        fact_id: str,
        corrected_text: str,
        *,
        reason: str | None = None,
        object: str | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        id: str | None = None,
        embedding: list[float] | None = None,
    ) -> Fact:
        """A person says ``fact_id`` was wrong: write the corrected fact (provenance
        human-correction), invalidate the old record (reason 'corrected', SUPERSEDES),
        and invalidate extraction facts that the correction semantically contradicts
        (design §7.2). All in one transaction."""
        check.identifier(fact_id, "fact_id")
        tenant = self._core.tenant
        rows = await self._run.read("memory_get", tenant=tenant, id=fact_id)
        if not rows or rows[0]["node"]["kind"] != "fact":
            raise NotFoundError(f"fact_id: no fact {fact_id!r} in tenant {tenant!r}")
        old = to_record(rows[0]["node"])
        if old.invalidated_at is not None:
            raise InvalidInputError("fact_id", f"{fact_id!r} is already invalidated ({old.invalidation_reason})")
        if reason is not None:
            check.text(reason, "reason")
        now = self._core.now()
        if embedding is not None:
            await self._known_dimension()
        row = self._core.fact_row({
            "text": corrected_text, "scope": old.scope, "subject": old.subject, "predicate": old.predicate,
            "object": object if object is not None else (None if old.subject is None else old.object),
            "single_valued": old.single_valued,
            "valid_from": valid_from or old.valid_from,
            "valid_to": valid_to if valid_to is not None or valid_from is not None else old.valid_to,
            "provenance": Provenance.HUMAN_CORRECTION, "importance": old.importance,
            "sensitivity": old.sensitivity, "tags": old.tags, "user_id": old.user_id,
            "agent_id": old.agent_id, "session_id": old.session_id, "id": id, "embedding": embedding,
        }, now)
        await self._embed([row], ["corrected_text"])
        new_id = row["props"]["id"]

        async def work(tx: AsyncTx) -> Fact:
            if await tx.run("memory_existing", tenant=tenant, ids=[new_id]):
                raise InvalidInputError("id", f"{new_id!r} is already used")
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([old.scope]))
            await tx.run("fact_create", tenant=tenant, rows=[row], now=now)
            invalidated = [r["id"] for r in await tx.run(
                "memory_invalidate", tenant=tenant, ids=[fact_id], reason="corrected", by=new_id, note=reason, now=now)]
            if not invalidated:
                raise InvalidInputError("fact_id", f"{fact_id!r} was invalidated concurrently")
            if row["props"]["embedding"] is not None:
                invalidated += [r["id"] for r in await tx.run(
                    "fact_collisions", tenant=tenant, id=new_id, chain=row["chain"],
                    threshold=self._core.neo4j_similarity(), now=now)]
            await self._after_invalidation(tx, invalidated, invalidated, now)
            await self._supersede(tx, [row], now)
            fresh = await tx.run("memory_existing", tenant=tenant, ids=[new_id])
            return to_record(fresh[0]["node"])

        return await self._run.write(work)

    async def forget(
        self,
        *,
        scope: str,
        id: str | None = None,
        text: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> int:
        """Forget what the user asked to forget: believed memories visible in ``scope``
        matching every given selector are invalidated (reason 'forgotten') and kept as
        tombstones, so extraction never restates them. Returns how many were forgotten."""
        chain = _scopes.chain(_scopes.check_path(scope))
        if id is None and text is None and subject is None and predicate is None:
            raise InvalidInputError("id", "forget() needs at least one of id, text, subject, predicate")
        params = {
            "id": check.identifier(id, "id", allow_none=True),
            "textKey": None if text is None else check.text_key(check.text(text, "text")),
            "subject": check.identifier(subject, "subject", allow_none=True),
            "predicate": check.predicate(predicate),
        }
        now = self._core.now()
        tenant = self._core.tenant

        async def work(tx: AsyncTx) -> int:
            ids = [r["id"] for r in await tx.run("memory_forget", tenant=tenant, chain=chain, now=now, **params)]
            await self._after_invalidation(tx, ids, ids, now)
            return len(ids)

        return await self._run.write(work)

    async def erase(self, *, id: str | None = None, user_id: str | None = None, scope: str | None = None) -> int:
        """Hard delete (data-protection requests): memories matching every given selector
        -- ``scope`` means that scope and all below it -- with their edges and embeddings.
        Large erases run in transactions of 5,000 memories; calling again after an
        interruption finishes the job. Returns how many memories were deleted."""
        if id is None and user_id is None and scope is None:
            raise InvalidInputError("id", "erase() needs at least one of id, user_id, scope")
        params = {
            "id": check.identifier(id, "id", allow_none=True),
            "userId": check.identifier(user_id, "user_id", allow_none=True),
            "scope": None if scope is None else _scopes.check_path(scope),
        }
        total = 0
        while True:  # in batches: each lands whole, and a repeated erase simply continues
            rows = await self._run.write_one("memory_erase", tenant=self._core.tenant, limit=_ERASE_BATCH, **params)
            erased = rows[0]["erased"] if rows else 0
            total += erased
            if erased < _ERASE_BATCH:
                return total

    # -- reading --------------------------------------------------------------------
    async def get(self, id: str) -> Record | None:
        """The memory with this id in this tenant, or None."""
        check.identifier(id, "id")
        rows = await self._run.read("memory_get", tenant=self._core.tenant, id=id)
        if not rows:
            return None
        return to_record(rows[0]["node"], superseded_by=rows[0]["supersededBy"])

    async def history(self, *, subject: str, predicate: str | None = None, scope: str) -> list[Fact]:
        """Every fact about ``subject`` (and ``predicate``) visible in ``scope``, believed or
        not, oldest valid time first, each with who superseded it, why and when."""
        rows = await self._run.read(
            "fact_history", tenant=self._core.tenant, subject=check.identifier(subject, "subject"),
            predicate=check.predicate(predicate), chain=_scopes.chain(_scopes.check_path(scope)),
        )
        return [to_record(r["node"], superseded_by=r["supersededBy"]) for r in rows]

    async def facts(
        self,
        *,
        scope: str,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        include_invalidated: bool = False,
    ) -> list[Fact]:
        """Facts visible in ``scope`` that the memory believed at ``as_of`` and that were
        true at ``valid_at`` (both default to now)."""
        as_of_t, valid_t = self._core.as_of_valid_at(as_of, valid_at)
        rows = await self._run.read(
            "fact_list", tenant=self._core.tenant, chain=_scopes.chain(_scopes.check_path(scope)),
            subject=check.identifier(subject, "subject", allow_none=True),
            predicate=check.predicate(predicate), asOf=as_of_t, validAt=valid_t,
            includeInvalidated=bool(include_invalidated),
        )
        return [to_record(r["node"]) for r in rows]

    async def scopes(self) -> list[dict[str, Any]]:
        """The tenant's scope tree: each path, its parent and its number of memories."""
        return await self._run.read("scope_tree", tenant=self._core.tenant)

    # -- recall ---------------------------------------------------------------------
    async def recall(
        self,
        query: str,
        *,
        scope: str,
        k: int = 10,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        kinds: Iterable[str] | None = None,
        purpose: str = "inform",
        max_sensitivity: str | None = None,
        include_invalidated: bool = False,
    ) -> list[_recall.ScoredMemory]:
        """The ``k`` memories visible in ``scope`` that best answer ``query``: vector and
        full-text candidates from Neo4j's indexes, fused, expanded one hop through the
        graph, re-scored with recency, importance and trust. By default only what is valid
        and believed now; ``purpose="act"`` leaves out quarantined records. One round trip
        to Neo4j (besides embedding the query); one or two more only when filters or
        others' documents ate the candidates' over-fetch."""
        text = check.text(query, "query")
        scope = _scopes.check_path(scope)
        k = _recall.check_k(k)
        as_of_t, valid_t = self._core.as_of_valid_at(as_of, valid_at)
        vector = None
        if self._core.embedder is not None:
            vector = check.embedding(await self._core.embedder.aembed_query(text), "embedder output", None)
        args = dict(
            tenant=self._core.tenant, query=text, scope=scope, k=k, vector=vector, as_of=as_of_t,
            valid_at=valid_t, kind_list=_recall.kinds(kinds), purpose=purpose,
            max_sensitivity=max_sensitivity, include_invalidated=include_invalidated, settings=self._recall,
        )
        rows = await self._run.read("recall", **_recall.params(**args))
        retry: dict[str, Any] = {}
        for _ in range(2):
            # filters ate the over-fetch, or others' documents the open full-text query's
            # places: ask again (a deeper index search, then the exact scan; narrowed), so
            # nothing is lost
            more = _recall.underfilled(rows, k, deepened="over_fetch_boost" in retry)
            if not more:
                break
            retry.update(more)
            rows = await self._run.read("recall", **_recall.params(**args, **retry))
        return _recall.score(rows, now=self._core.now(), settings=self._recall, k=k)

    async def context(
        self,
        query: str,
        *,
        scope: str,
        max_tokens: int = 2000,
        sections: Iterable[str] | None = None,
        k: int = 50,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        purpose: str = "inform",
        max_sensitivity: str | None = None,
    ) -> str:
        """A prompt-ready block from ``recall``: sections for facts, insights (with their
        citations), procedures and recent episodes, each line with its provenance and
        validity, trimmed to ``max_tokens`` (estimated as characters / 4) by score."""
        order = _recall.sections(sections)
        results = await self.recall(
            query, scope=scope, k=k, as_of=as_of, valid_at=valid_at, purpose=purpose,
            max_sensitivity=max_sensitivity,
        )
        return _recall.render(results, max_tokens=max_tokens, order=order)
