"""Entities: the people and things memories are about, and the relations between them
(contract §3). ``graphmem/_sync/entities.py`` is
generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .._base import props as _props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, NotFoundError
from .._base.models import Entity, Fact, Provenance
from .._base.records import NodeRow, record_of
from .._base.traced import instrument
from .._memory import entities
from .._memory.facts import FactInput
from .backend import AsyncStore
from .executor import AsyncTx
from .facts import AsyncFacts


@instrument("graphmem", names=("upsert_entity", "relate"))
class AsyncEntities:
    """Entities of one tenant: the people and things memories are about, merged by name and alias, and the relations between them (``AsyncMemory`` hands the public calls to it)."""

    def __init__(self, store: AsyncStore, facts: AsyncFacts) -> None:
        self._store = store
        self._facts = facts

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
        on it, or create it. One real thing stays one node: an entity of the same type and
        name stored in a scope below ``scope`` is moved up to ``scope`` rather than
        duplicated (design note ``entity-scope-promotion``)."""
        now = self._store.core.now()
        props = entities.props(
            name, tenant=self._store.core.tenant, type=type, scope=scope, aliases=aliases, properties=properties,
            id=id, importance=importance, sensitivity=sensitivity, provenance=provenance,
        )
        row = {"props": props}
        await self._store.embed([row], ["name"])
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> Entity:
            if id is not None:
                found = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[props["id"]])
                if found:
                    _props.expect_kind(found[0].node, "entity")
                    return await self.merge_entity(tx, found[0].node, props)
            chain = _scopes.chain(props["scope"])
            keys = entities.lookup_keys(props)
            match = await tx.run_as(NodeRow, "entity_find", tenant=tenant, chain=chain, type=props["type"], keys=keys)
            if match:
                return await self.merge_entity(tx, match[0].node, props)
            entity, _ = await self.create_entity(tx, props, chain, now)
            return entity

        return await self._store.run.write(work)

    async def create_entity(self, tx: AsyncTx, props: dict[str, Any], chain: list[str],
                             now: datetime) -> tuple[Entity, bool]:
        """Create the entity ``props`` describes, which a look-up in ``chain`` did not find:
        serialised with every create in this scope tree (the root scope's lock), it looks
        again, then adopts a same-named entity stored below the scope by moving it up, and
        only then creates (design note `entity-scope-promotion`). Returns the entity and
        whether it is new."""
        tenant = self._store.core.tenant
        keys = entities.lookup_keys(props)
        await tx.run("scope_lock", tenant=tenant, path=chain[0])
        match = await tx.run_as(NodeRow, "entity_find", tenant=tenant, chain=chain, type=props["type"], keys=keys)
        if match:
            return await self.merge_entity(tx, match[0].node, props), False
        await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
        below = await tx.run_as(NodeRow, "entity_below", tenant=tenant, prefix=props["scope"] + "/", type=props["type"], keys=keys)
        if below:
            promoted = await tx.run_as(NodeRow, "entity_promote", tenant=tenant, id=below[0].node["id"],
                                    scope=props["scope"], lexKey=props["lexKey"], now=now)
            return await self.merge_entity(tx, promoted[0].node, props), False
        created = await tx.run_as(NodeRow, "entity_create", tenant=tenant, props=props, now=now)
        return record_of(Entity, created[0].node), True

    async def merge_entity(self, tx: AsyncTx, node: dict[str, Any], props: dict[str, Any]) -> Entity:
        merged = entities.merged(node, props)
        if merged is None:
            return record_of(Entity, node)
        updated = await tx.run_as(NodeRow, "entity_update", tenant=self._store.core.tenant, id=node["id"], **merged)
        return record_of(Entity, updated[0].node)

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
        assert normal is not None
        chain = _scopes.chain(_scopes.check_path(scope))
        seen = {r.node["id"]: r.node for r in await self._store.run.read_as(
            NodeRow, "entity_visible", tenant=self._store.core.tenant, ids=[sid, oid], chain=chain)}
        for field, eid in (("subject_entity", sid), ("object_entity", oid)):
            if eid not in seen:
                raise NotFoundError(f"{field}: no entity {eid!r} visible in scope {scope!r}")
        if text is None:
            text = f"{seen[sid]['name']} {normal.replace('_', ' ')} {seen[oid]['name']}"
        facts = await self._facts.write_facts([FactInput(
            text=text, scope=scope, subject=sid, predicate=normal, object=oid, single_valued=single_valued,
            valid_from=valid_from, valid_to=valid_to, provenance=provenance, importance=importance,
            sensitivity=sensitivity, tags=tags, user_id=user_id, agent_id=agent_id, session_id=session_id, id=id,
        )], batch=False)
        if not facts:
            raise InvalidInputError("text", "this relation was forgotten by the user and is not restated automatically")
        return facts[0]

