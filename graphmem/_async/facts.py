"""Facts on ``AsyncMemory``: remember, correct, and read them back in either time axis
(contract §4, §7.1, §7.2). ``graphmem/_sync/facts.py`` is generated from this file by
``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .._base import props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import ConflictError, InvalidInputError, NotFoundError
from .._base.models import Fact, Provenance
from .._base.records import HistoryRow, IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._memory import entities
from .._memory import facts as _facts
from .._memory.facts import AUTOMATIC, DuplicateRow, FactInput, FactRow, SupersedeRow
from .backend import AsyncStore
from .executor import AsyncTx


async def after_invalidation(tx: AsyncTx, tenant: str, changed: list[str], invalidated: list[str],
                             now: datetime) -> None:
    """Keep RELATES projections in step and lower the salience of insights citing
    invalidated records -- inside the same transaction as the invalidation (every write that
    invalidates or changes a record calls it)."""
    if changed:
        await tx.run("fact_relates_sync", tenant=tenant, ids=sorted(set(changed)))
    if invalidated:
        await tx.run_as(IdRow, "insight_salience_drop", tenant=tenant, ids=sorted(set(invalidated)), now=now)


@instrument("graphmem", names=("remember", "remember_many", "correct", "history", "facts"))
class AsyncFacts:
    """Facts of one tenant: remember, correct, read them at any time, their history; and the fact writes other services share (AsyncMemory hands the public calls to it)."""

    def __init__(self, store: AsyncStore) -> None:
        self._store = store

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
        observed_at: datetime | None = None,
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
        """Store one fact. A single-valued fact supersedes the current value stored in the same
        scope, never one of another scope (contract §7.1).
        ``derived_from`` names the episodes it was taken from (DERIVED_FROM edges).
        ``subject``, ``predicate`` and ``object`` structure the statement; ``single_valued``
        defaults to whether the predicate is single-valued (``DEFAULT_SINGLE_VALUED``);
        ``valid_from`` is when it became true, if someone said so; without it the fact is
        valid from ``observed_at`` (when it was heard, default now) and a later change
        with an earlier stated start ends it (contract §4); ``valid_to`` defaults to open;
        ``embedding`` is used instead of the embedder's vector; the other keywords set the
        record fields of the same name (see ``Fact``).

        Returns the stored fact (the existing one, unchanged, if ``id`` was already written),
        or None when an automatic record restates something the user asked to forget.
        """
        item = FactInput(
            text=text, scope=scope, subject=subject, predicate=predicate, object=object,
            single_valued=single_valued, valid_from=valid_from, valid_to=valid_to, observed_at=observed_at,
            provenance=provenance,
            importance=importance, sensitivity=sensitivity, tags=tags, user_id=user_id, agent_id=agent_id,
            session_id=session_id, id=id, embedding=embedding, derived_from=derived_from,
        )
        facts = await self.write_facts([item], batch=False)
        return facts[0] if facts else None

    async def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Fact]:
        """Store many facts in one transaction (``remember`` arguments per item).

        Every item is validated before anything is written; one bad item rejects the
        batch (the error names it as ``items[i].field``). Tombstoned automatic
        statements are left out of the result.
        """
        if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
            raise InvalidInputError("items", "must be a list of remember() argument mappings")
        return await self.write_facts(list(items), batch=True)

    async def write_facts(self, items: list[Mapping[str, Any]], *, batch: bool) -> list[Fact]:
        """Plan, embed, run: check every item, embed what has no vector, write in one transaction."""
        core = self._store.core
        now = core.now()
        given = any(isinstance(item, Mapping) and item.get("embedding") is not None for item in items)
        dimension = await self._store.known_dimension() if given else self._store.known.dimension
        if batch:
            rows = _facts.rows(items, tenant=core.tenant, now=now, single_valued=core.single_valued_predicates,
                               dimension=dimension)
        else:
            rows = [_facts.row(items[0], tenant=core.tenant, now=now, single_valued=core.single_valued_predicates,
                               dimension=dimension)]
        await self._store.embed(rows, [f"items[{i}].embedding" if batch else "embedding" for i in range(len(rows))])

        async def work(tx: AsyncTx) -> list[Fact]:
            return await self.create_facts(tx, rows, now, id_field="items[{}].id" if batch else "id")

        return await self._store.run.write(work)

    async def create_facts(self, tx: AsyncTx, rows: list[FactRow], now: datetime, id_field: str = "id") -> list[Fact]:
        """Write new facts inside ``tx``: ids already written come back unchanged, so does a
        statement already current in the same scope (docs/design-notes.md#remember-duplicates),
        machine-made restatements of forgotten facts are left out, single-valued ones supersede.
        ``id_field`` names a row's id in errors (``{}`` stands for its place in ``rows``)."""
        landed = await self.create_fact_rows(tx, rows, now, id_field=id_field)
        return [record_of(Fact, node) for node in landed.nodes if node is not None]

    async def create_fact_rows(self, tx: AsyncTx, rows: list[FactRow], now: datetime,
                                exclude: Iterable[str] = (), id_field: str = "id") -> _facts.Landed:
        """``create_facts`` row by row: the node each row landed as (its own, the stored
        statement it restates, or the earlier row of the batch it repeats), or None for a
        machine-made restatement of a forgotten fact, which is left out; and what the new
        facts superseded (``exclude``: facts the caller is about to retire itself)."""
        tenant = self._store.core.tenant
        ids = [row["props"]["id"] for row in rows]
        existing: dict[str, Any] = {}
        found = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=ids)
        by_id = {row["props"]["id"]: row["props"] for row in rows}
        for r in found:  # idempotent rewrites return the stored records unchanged
            props.expect_record(r.node, "fact", by_id[r.node["id"]], id_field.format(ids.index(r.node["id"])))
            existing[r.node["id"]] = r.node
        new = [row for row in rows if row["props"]["id"] not in existing]
        duplicates, repeats = _facts.duplicate_probe(new)
        if duplicates:  # the same statement already current in the same scope: return it
            for d in await tx.run_as(DuplicateRow, "fact_duplicates", tenant=tenant, rows=duplicates, now=now):
                existing[d.id] = d.node
        new = [row for row in new if row["props"]["id"] not in existing and row["props"]["id"] not in repeats]
        probe = _facts.tombstone_probe(new)
        suppressed = set()
        if probe:
            suppressed = {r.id for r in await tx.run_as(IdRow, "fact_tombstones", tenant=tenant, rows=probe, automatic=AUTOMATIC)}
        fresh = [row for row in new if row["props"]["id"] not in suppressed]
        # every row's sources are checked, a restatement's too: bad input is bad even when nothing is written
        sources = sorted({eid for row in rows for eid in row["derivedFrom"]})
        if sources:
            found = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=sources)
            _facts.check_sources(rows, {r.node["id"]: r.node for r in found})
        created: dict[str, Any] = {}
        superseded = _facts.Superseded()
        if fresh:
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([r["props"]["scope"] for r in fresh]))
            await tx.run_as(IdRow, "fact_create", tenant=tenant, rows=fresh, now=now)
            created = {row["props"]["id"]: props.stored(row["props"], tenant=tenant, kind="fact", now=now) for row in fresh}
            superseded = await self._supersede(tx, fresh, now, exclude)
            shortened = sorted(superseded.changed & set(created))
            if shortened:  # supersession ended some of the new facts: read those back
                for r in await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=shortened):
                    created[r.node["id"]] = r.node
        out = [created.get(rid) or existing.get(rid) for rid in ids]
        for i, rid in enumerate(ids):  # a batch's repeat of its own statement: the first one's record
            if rid in repeats:
                out[i] = created.get(repeats[rid]) or existing.get(repeats[rid])
        return _facts.Landed(out, superseded)

    async def _supersede(self, tx: AsyncTx, fresh: list[FactRow], now: datetime,
                         exclude: Iterable[str] = ()) -> _facts.Superseded:
        """Apply contradiction rule 1 to new facts; return what it closed and invalidated.
        ``exclude`` names facts the caller is about to invalidate, which are left alone."""
        batch_ids = [row["props"]["id"] for row in fresh]
        changed: list[str] = []
        invalidated: list[str] = []
        waves = _facts.supersede_waves(fresh)
        for i, wave in enumerate(waves):
            # a wave sees the batch's rows of earlier waves, not those still to come
            pending = {w["id"] for later in waves[i:] for w in later}
            excluded = [b for b in batch_ids if b in pending] + list(exclude)
            for r in await tx.run_as(SupersedeRow, "fact_supersede", tenant=self._store.core.tenant, rows=wave,
                                     batchIds=excluded, automatic=AUTOMATIC, now=now):
                changed += r.closed
                invalidated += r.replaced
        await after_invalidation(tx, self._store.core.tenant, changed + invalidated, invalidated, now)
        tx.emit("superseded", changed, reason="changed")
        tx.emit("invalidated", invalidated, reason="corrected")
        return _facts.Superseded(tuple(changed), tuple(invalidated))

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
        user_id: str | None = None,
    ) -> Fact:
        """A person says ``fact_id`` was wrong: write the corrected fact (provenance
        human-correction) in the old fact's scope, invalidate the old record (reason
        'corrected', SUPERSEDES), and invalidate extraction facts of that scope that the
        correction semantically contradicts (contract §7.2). All in one transaction. ``user_id`` is the user the corrected fact
        is recorded for (default: the old fact's), so ``erase(user_id=...)`` of whoever
        made the correction reaches it."""
        check.identifier(fact_id, "fact_id")
        check.identifier(user_id, "user_id", allow_none=True)
        tenant = self._store.core.tenant
        rows = await self._store.run.read_as(HistoryRow, "memory_get", tenant=tenant, id=fact_id)
        if not rows or rows[0].node["kind"] != "fact":
            raise NotFoundError(f"fact_id: no fact {fact_id!r} in tenant {tenant!r}")
        old = record_of(Fact, rows[0].node)
        if old.invalidated_at is not None:
            raise InvalidInputError("fact_id", f"{fact_id!r} is already invalidated ({old.invalidation_reason})")
        if reason is not None:
            check.text(reason, "reason")
        now = self._store.core.now()
        dimension = await self._store.known_dimension() if embedding is not None else self._store.known.dimension
        row = _facts.row(FactInput(
            text=corrected_text, scope=old.scope, subject=old.subject, predicate=old.predicate,
            object=object if object is not None else (None if old.subject is None else old.object),
            single_valued=old.single_valued,
            valid_from=valid_from or (old.valid_from if old.valid_from_stated else None),
            observed_at=None if valid_from or old.valid_from_stated else old.valid_from,
            valid_to=valid_to if valid_to is not None or valid_from is not None else old.valid_to,
            provenance=Provenance.HUMAN_CORRECTION, importance=old.importance, sensitivity=old.sensitivity,
            tags=old.tags, user_id=old.user_id if user_id is None else user_id, agent_id=old.agent_id, session_id=old.session_id, id=id,
            embedding=embedding,
        ), tenant=tenant, now=now, single_valued=self._store.core.single_valued_predicates, dimension=dimension)
        await self._store.embed([row], ["corrected_text"])
        new_id = row["props"]["id"]

        async def work(tx: AsyncTx) -> Fact:
            if await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[new_id]):
                raise InvalidInputError("id", f"{new_id!r} is already used")
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([old.scope]))
            await tx.run_as(IdRow, "fact_create", tenant=tenant, rows=[row], now=now)
            invalidated = [r.id for r in await tx.run_as(
                IdRow, "memory_invalidate", tenant=tenant, ids=[fact_id], reason="corrected", by=new_id, note=reason, now=now)]
            if not invalidated:  # another writer got there first: a race lost, not bad input
                raise ConflictError(f"fact_id: {fact_id!r} was invalidated concurrently by another write; "
                                    "read it again and correct the fact that replaced it")
            if row["props"]["embedding"] is not None:
                invalidated += [r.id for r in await tx.run_as(
                    IdRow, "fact_collisions", tenant=tenant, id=new_id, threshold=self._store.core.neo4j_similarity(), now=now)]
            await after_invalidation(tx, self._store.core.tenant, invalidated, invalidated, now)
            tx.emit("invalidated", invalidated, reason="corrected", scope=old.scope)
            tx.emit("corrected", [new_id, fact_id], scope=old.scope, detail={"invalidated": len(invalidated)})
            await self._supersede(tx, [row], now)
            fresh = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[new_id])
            return record_of(Fact, fresh[0].node)

        return await self._store.run.write(work)

    async def history(self, *, subject: str, predicate: str | None = None, scope: str) -> list[Fact]:
        """Every fact about ``subject`` (and ``predicate``) visible in ``scope``, believed or
        not, oldest valid time first, each with who superseded it, why and when. ``subject``
        is an entity id, a literal subject, or an entity's name or alias (case and accents
        ignored)."""
        rows = await self._store.run.read_as(
            HistoryRow, "fact_history", tenant=self._store.core.tenant, predicate=check.predicate(predicate),
            chain=_scopes.chain(_scopes.check_path(scope)), **entities.subject_params(subject, required=True),
        )
        return [record_of(Fact, r.node, superseded_by=r.superseded_by) for r in rows]

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
        true at ``valid_at`` (both default to now), optionally of one ``subject`` (an entity
        id, a literal subject, or an entity's name or alias; case and accents ignored) and
        ``predicate``; ``include_invalidated`` adds those no longer believed. Of the values
        of a single-valued predicate stored in different scopes of the chain, only the one
        the view ranks current is returned (contract §7.1); ``include_invalidated`` returns
        them all."""
        as_of_t, valid_t = self._store.core.as_of_valid_at(as_of, valid_at)
        found = await self._store.run.read_as(
            NodeRow, "fact_list", tenant=self._store.core.tenant, chain=_scopes.chain(_scopes.check_path(scope)),
            **entities.subject_params(subject, required=False),
            predicate=check.predicate(predicate), asOf=as_of_t, validAt=valid_t,
            includeInvalidated=bool(include_invalidated), automatic=AUTOMATIC,
        )
        return [record_of(Fact, r.node) for r in found]

