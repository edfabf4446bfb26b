"""Repairs of a store, as functions of an executor: the upgrade steps ``setup()`` runs on a
store an older graphmem wrote (``_base/layout.py`` lists them; ``schema.py`` runs them and
``schema_plan()`` counts them), the store's node and vector slot made to agree, and stored
vectors Neo4j's cosine refuses removed. The data half of each step is ``_memory/upgrade.py``.
``graphmem/_sync/upgrade.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .._base import layout
from .._base import validate as check
from .._base.errors import ConflictError, GraphMemError
from .._base.layout import Layout, SlotRow, Step, VectorCheckRow, VectorIndexRow
from .._base.records import IdRow
from .._memory import upgrade
from .._memory.upgrade import AnchorPageRow, KeyPageRow, TenantRow, UnembeddedRow, UpdatedRow
from .executor import AsyncExecutor, AsyncTx

_PAGE = 1_000
_REPAIR_BATCH = 1000
_log = logging.getLogger("graphmem")
Progress = Callable[[str], None]


async def tenants(run: AsyncExecutor, names: list[str] | None = None) -> list[str]:
    """``names``, or every tenant that holds a memory, in order (one index seek each)."""
    if names is not None:
        return list(names)
    found: list[str] = []
    while rows := await run.read_in_as(TenantRow, layout.SLOT_A, "tenant_after", after=found[-1] if found else ""):
        found.append(rows[0].tenant)
    return found


async def rekey(run: AsyncExecutor, *, tenant: str | None = None, page: int = _PAGE,
                progress: Progress | None = None, apply: bool = True) -> int:
    """Recompute every stale lookup key (of one ``tenant``, or of all) with the current rule,
    a page per transaction; return how many records changed (would change, without ``apply``).
    Idempotent: current keys are left alone, so a run cut off is run again."""
    changed = 0
    for name in await tenants(run, None if tenant is None else [tenant]):
        changed += await _rekey_tenant(run, name, page, progress, apply)
    return changed


async def _rekey_tenant(run: AsyncExecutor, tenant: str, page: int, progress: Progress | None, apply: bool) -> int:
    after, changed = "", 0
    while True:
        rows = await run.read_in_as(KeyPageRow, layout.SLOT_A, "memory_key_page", tenant=tenant, afterId=after,
                                    limit=page)
        if not rows:
            return changed
        stale = [keys for row in rows if (keys := upgrade.fresh_keys(row)) is not None]
        if stale and apply:
            async def work(tx: AsyncTx, stale: list[dict[str, Any]] = stale) -> int:
                return (await tx.run_as(UpdatedRow, "memory_key_update", rows=stale))[0].updated

            try:
                changed += await run.write(work)
            except ConflictError as exc:
                raise ConflictError(
                    f"{exc} -- two entities now share a key (one was created by the new rule before the "
                    "store's keys were brought up to date): erase or merge one of them, then run it again") from exc
        else:
            changed += len(stale)
        after = rows[-1].id
        if progress is not None:
            progress(f"keys: {changed} {'updated' if apply else 'stale'} in tenant {tenant!r}")


async def anchor_episodes(run: AsyncExecutor, *, page: int = _PAGE, progress: Progress | None = None,
                          apply: bool = True) -> int:
    """Give every episode without time anchors those its text names (in UTC), a page per
    transaction; return how many episodes got (would get) them. Idempotent."""
    changed = 0
    for tenant in await tenants(run):
        after = ""
        while rows := await run.read_in_as(AnchorPageRow, layout.SLOT_A, "episode_anchor_page", tenant=tenant,
                                           afterId=after, limit=page):
            anchored = [a for row in rows if (a := upgrade.time_anchors(row)) is not None]
            if anchored and apply:
                changed += (await run.write_one_as(UpdatedRow, "episode_anchor_update", slot=layout.SLOT_A,
                                                   rows=anchored))[0].updated
            else:
                changed += len(anchored)
            after = rows[-1].id
            if progress is not None:
                progress(f"time anchors: {changed} episodes in tenant {tenant!r}")
    return changed


async def _record_slots(run: AsyncExecutor, *, page: int = _PAGE, progress: Progress | None = None,
                        apply: bool = True) -> int:
    """Step 4 changes no record: a store from before versions has its vectors in slot a,
    which the store's node (written with the version) records."""
    return 0


async def repair_layout(run: AsyncExecutor) -> None:
    """What ``setup()`` repairs in the store's layout when the vector indexes are not as they
    should be (the active slot's alone): the store's node naming a slot that holds no vector
    while the other holds them, no re-embedding recorded or claimed (``store_slot``: the node
    is corrected), and the other slot's index while no re-embedding fills that slot (a stray
    one, left by a re-embedding killed right after its switch: dropped). Each said on the ``graphmem``
    logger. ``schema_plan()`` reports the same (``checked_layout``)."""
    found = await run.layout(fresh=True)
    have = {r.name for r in await run.read_in_as(VectorIndexRow, layout.SLOT_A, "schema_vector_info")}
    slot_found, stray = await checked_layout(run, found, have)
    if slot_found is not None:
        if await run.write_one_as(SlotRow, "store_slot", slot=layout.SLOT_A, current=found.slot, to=slot_found):
            _log.warning("the store's node said its vectors are in slot %s, but every vector is in slot %s "
                         "(index %s): recorded slot %s", found.slot, slot_found, layout.INDEXES[slot_found],
                         slot_found)
        run.forget_layout()
    if stray and not (found := await run.layout(fresh=True)).filling:  # read again: a run may have begun
        _log.warning("dropping vector index %s: the store's vectors are in slot %s (index %s) and no re-embedding "
                     "fills slot %s", stray[0], found.slot, found.index, layout.other(found.slot))
        await run.auto_in(layout.other(found.slot), "schema_vector_drop")


async def checked_layout(run: AsyncExecutor, found: Layout, have: set[str],
                         counts: VectorCheckRow | None = None) -> tuple[str | None, list[str]]:
    """The slot the store's vectors are really in when the store's node (``found``) names the
    other one (while no re-embedding is recorded or claimed), and the stray vector indexes
    (of ``have``, graphmem's that exist: the other slot's while no re-embedding fills it).
    Only when the indexes are not the active slot's alone is the store read (``counts``: a
    ``store_vector_check`` row in ``found.slot``'s version, read when not given): the node is
    wrong when no memory holds a vector in its slot and some hold one in the other."""
    other = layout.other(found.slot)
    if found.filling or layout.INDEXES[other] not in have:
        return None, []
    if found.index not in have and not found.under_way:
        if counts is None:
            counts = (await run.read_in_as(VectorCheckRow, found.slot, "store_vector_check"))[0]
        if not counts.active and counts.other:
            return other, []
    return None, [layout.INDEXES[other]]


async def tell_unembedded(run: AsyncExecutor, tenant: str) -> int:
    """Say on the ``graphmem`` logger how many memories of ``tenant`` have no vector in the
    active slot though they are owed one (``memory_vector_check``); return how many."""
    row = (await run.read_as(UnembeddedRow, "memory_vector_check", tenant=tenant))[0]
    if row.missing:
        _log.warning("%d memories of tenant %r have no vector in the store's active slot (%d of them stranded by a "
                     "re-embedding): recall finds them by text and through the graph only; run graphmem reembed "
                     "--to <the store's embedder> to embed them (graphmem setup --check counts every tenant's)",
                     row.missing, tenant, row.stranded)
    return int(row.missing)


def refused_vector(error: GraphMemError) -> bool:
    """Whether ``error`` is Neo4j's cosine refusing a stored vector (not finite, a norm its
    32-bit arithmetic cannot hold, another dimension): what ``repair_vectors`` removes."""
    return "vector.similarity.cosine()" in str(error)


async def repair_vectors(run: AsyncExecutor, tenant: str, dimensions: int | None, now: datetime) -> list[str]:
    """Remove every embedding of ``tenant`` that Neo4j's cosine would refuse (or whose
    dimension is not ``dimensions``), in batches; the records stay, marked with
    ``embeddingRemovedAt``. Returns their ids and logs a warning naming how many."""
    repaired: list[str] = []
    params: dict[str, Any] = dict(tenant=tenant, minSquares=check.MIN_VECTOR_NORM ** 2, maxSquares=check.MAX_VECTOR_NORM ** 2,
                  dimensions=dimensions, limit=_REPAIR_BATCH, now=now)
    while True:
        batch = [r.id for r in await run.write_one_as(IdRow, "memory_vector_repair", **params)]
        repaired += batch
        if len(batch) < _REPAIR_BATCH:
            break
    if repaired:
        _log.warning("removed %d stored embeddings Neo4j cannot compare (tenant %r, first ids %s); "
                     "those records are found by text and graph only", len(repaired), tenant, repaired[:5])
    return repaired


_RUNS = {2: rekey, 3: anchor_episodes, 4: _record_slots}


async def run_step(run: AsyncExecutor, step: Step, *, apply: bool, progress: Progress | None) -> int:
    return await _RUNS[step.version](run, apply=apply, progress=progress)
