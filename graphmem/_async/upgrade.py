"""The store's schema version on ``AsyncMemory``: the upgrade steps ``setup()`` runs on a store
an older graphmem wrote (``_base/layout.py`` lists them), and ``schema_plan()``, what
``graphmem setup --check`` prints. The data half of each step is ``_memory/upgrade.py``.
``graphmem/_sync/upgrade.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from .._base import layout, templates
from .._base.errors import ConflictError
from .._base.layout import SchemaPlan, SchemaStep, Step
from .._memory import upgrade
from .executor import AsyncExecutor, AsyncTx
from .host import AsyncHost

_PAGE = 1_000
_log = logging.getLogger("graphmem")
Progress = Callable[[str], None]


async def tenants(run: AsyncExecutor, names: list[str] | None = None) -> list[str]:
    """``names``, or every tenant that holds a memory, in order (one index seek each)."""
    if names is not None:
        return list(names)
    found: list[str] = []
    while rows := await run.read_in(layout.SLOT_A, "tenant_after", after=found[-1] if found else ""):
        found.append(rows[0]["tenant"])
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
        rows = await run.read_in(layout.SLOT_A, "memory_key_page", tenant=tenant, afterId=after, limit=page)
        if not rows:
            return changed
        stale = [keys for row in rows if (keys := upgrade.fresh_keys(row)) is not None]
        if stale and apply:
            async def work(tx: AsyncTx, stale: list[dict[str, Any]] = stale) -> int:
                updated: int = (await tx.run("memory_key_update", rows=stale))[0]["updated"]
                return updated

            try:
                changed += await run.write(work)
            except ConflictError as exc:
                raise ConflictError(
                    f"{exc} -- two entities now share a key (one was created by the new rule before the "
                    "store's keys were brought up to date): erase or merge one of them, then run it again") from exc
        else:
            changed += len(stale)
        after = rows[-1]["id"]
        if progress is not None:
            progress(f"keys: {changed} {'updated' if apply else 'stale'} in tenant {tenant!r}")


async def anchor_episodes(run: AsyncExecutor, *, page: int = _PAGE, progress: Progress | None = None,
                          apply: bool = True) -> int:
    """Give every episode without time anchors those its text names (in UTC), a page per
    transaction; return how many episodes got (would get) them. Idempotent."""
    changed = 0
    for tenant in await tenants(run):
        after = ""
        while rows := await run.read_in(layout.SLOT_A, "episode_anchor_page", tenant=tenant, afterId=after,
                                        limit=page):
            anchored = [a for row in rows if (a := upgrade.time_anchors(row)) is not None]
            if anchored and apply:
                changed += (await run.write_one("episode_anchor_update", slot=layout.SLOT_A, rows=anchored))[0]["updated"]
            else:
                changed += len(anchored)
            after = rows[-1]["id"]
            if progress is not None:
                progress(f"time anchors: {changed} episodes in tenant {tenant!r}")
    return changed


async def _record_slots(run: AsyncExecutor, *, page: int = _PAGE, progress: Progress | None = None,
                        apply: bool = True) -> int:
    """Step 4 changes no record: a store from before versions has its vectors in slot a,
    which the store's node (written with the version) records."""
    return 0


_RUNS = {2: rekey, 3: anchor_episodes, 4: _record_slots}


async def _run_step(run: AsyncExecutor, step: Step, *, apply: bool, progress: Progress | None) -> int:
    return await _RUNS[step.version](run, apply=apply, progress=progress)


class AsyncUpgradeMixin(AsyncHost):
    async def schema_plan(self) -> SchemaPlan:
        """What ``setup()`` would change in this store, without changing anything: its schema
        version beside this graphmem's, the upgrade steps it still needs with the records each
        would change (read through the whole store: a minute or so per million memories), the
        constraints and indexes ``setup()`` would create, and the vector index beside this
        memory object's embedder. A store written by a newer graphmem is reported
        (``newer``), not refused. ``graphmem setup --check`` prints it."""
        found = await self._run.read_layout()
        steps = [] if found.version > layout.VERSION else [
            SchemaStep(version=step.version, name=step.name, does=step.does,
                       changes=await _run_step(self._run, step, apply=False, progress=None))
            for step in layout.pending(found.version)]
        have = {r["name"] for r in await self._run.read_in(layout.SLOT_A, "store_indexes")}
        have |= {r["name"] for r in await self._run.read_in(layout.SLOT_A, "store_constraints")}
        dimension = None if found.version > layout.VERSION else await self._vector_dimension(fresh=True)
        embedder = None
        if self._core.embedder is not None:
            embedder = len(await self._core.embedder.aembed_query("dimension probe"))
        missing = [name for name in templates.schema_objects() if name not in have]
        if dimension is None and embedder is not None:
            missing.append(found.index)
        return SchemaPlan(store_version=found.version, graphmem_version=layout.VERSION, steps=steps, missing=missing,
                          vector_slot=found.slot, vector_index=found.index, vector_dimensions=dimension,
                          embedder_dimensions=embedder, reembed=found.reembed)

    async def _upgrade_store(self) -> list[SchemaStep]:
        """Bring the store's data to this graphmem's schema version, step by step, each
        recorded on the store's node when done (a run cut off resumes at the step it was in,
        which is idempotent); a database graphmem had not written is recorded current at
        once. Each step is said on the ``graphmem`` logger before and after."""
        found = await self._run.layout(fresh=True)  # a newer store is refused here
        done: list[SchemaStep] = []
        if found.version == layout.EMPTY:
            await self._run.write_one("store_version", version=layout.VERSION, vectorSlot=found.slot, now=self._core.now())
        for step in layout.pending(found.version):
            _log.warning("upgrading the store from schema version %d: step %d (%s): %s",
                         step.version - 1, step.version, step.name, step.does)
            started = time.monotonic()
            changes = await _run_step(self._run, step, apply=True, progress=None)
            await self._run.write_one("store_version", version=step.version, vectorSlot=found.slot, now=self._core.now())
            _log.warning("store at schema version %d: %s changed %d records in %.1f s", step.version, step.name,
                         changes, time.monotonic() - started)
            done.append(SchemaStep(version=step.version, name=step.name, does=step.does, changes=changes))
        if found.version != layout.VERSION:
            await self._run.layout(fresh=True)
        return done
