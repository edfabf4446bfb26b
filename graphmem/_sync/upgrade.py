# Generated from graphmem/_async/upgrade.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""The store's schema version on ``Memory``: the upgrade steps ``setup()`` runs on a store
an older graphmem wrote (``_base/layout.py`` lists them), and ``schema_plan()``, what
``graphmem setup --check`` prints. The data half of each step is ``_memory/upgrade.py``.
This file is generated from ``graphmem/_async/upgrade.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from .._base import layout, templates
from .._base.errors import ConflictError
from .._base.layout import Layout, SchemaPlan, SchemaStep, Step
from .._memory import upgrade
from .executor import Executor, Tx
from .host import Host

_PAGE = 1_000
_log = logging.getLogger("graphmem")
Progress = Callable[[str], None]


def tenants(run: Executor, names: list[str] | None = None) -> list[str]:
    """``names``, or every tenant that holds a memory, in order (one index seek each)."""
    if names is not None:
        return list(names)
    found: list[str] = []
    while rows := run.read_in(layout.SLOT_A, "tenant_after", after=found[-1] if found else ""):
        found.append(rows[0]["tenant"])
    return found


def rekey(run: Executor, *, tenant: str | None = None, page: int = _PAGE,
                progress: Progress | None = None, apply: bool = True) -> int:
    """Recompute every stale lookup key (of one ``tenant``, or of all) with the current rule,
    a page per transaction; return how many records changed (would change, without ``apply``).
    Idempotent: current keys are left alone, so a run cut off is run again."""
    changed = 0
    for name in tenants(run, None if tenant is None else [tenant]):
        changed += _rekey_tenant(run, name, page, progress, apply)
    return changed


def _rekey_tenant(run: Executor, tenant: str, page: int, progress: Progress | None, apply: bool) -> int:
    after, changed = "", 0
    while True:
        rows = run.read_in(layout.SLOT_A, "memory_key_page", tenant=tenant, afterId=after, limit=page)
        if not rows:
            return changed
        stale = [keys for row in rows if (keys := upgrade.fresh_keys(row)) is not None]
        if stale and apply:
            def work(tx: Tx, stale: list[dict[str, Any]] = stale) -> int:
                updated: int = (tx.run("memory_key_update", rows=stale))[0]["updated"]
                return updated

            try:
                changed += run.write(work)
            except ConflictError as exc:
                raise ConflictError(
                    f"{exc} -- two entities now share a key (one was created by the new rule before the "
                    "store's keys were brought up to date): erase or merge one of them, then run it again") from exc
        else:
            changed += len(stale)
        after = rows[-1]["id"]
        if progress is not None:
            progress(f"keys: {changed} {'updated' if apply else 'stale'} in tenant {tenant!r}")


def anchor_episodes(run: Executor, *, page: int = _PAGE, progress: Progress | None = None,
                          apply: bool = True) -> int:
    """Give every episode without time anchors those its text names (in UTC), a page per
    transaction; return how many episodes got (would get) them. Idempotent."""
    changed = 0
    for tenant in tenants(run):
        after = ""
        while rows := run.read_in(layout.SLOT_A, "episode_anchor_page", tenant=tenant, afterId=after,
                                        limit=page):
            anchored = [a for row in rows if (a := upgrade.time_anchors(row)) is not None]
            if anchored and apply:
                changed += (run.write_one("episode_anchor_update", slot=layout.SLOT_A, rows=anchored))[0]["updated"]
            else:
                changed += len(anchored)
            after = rows[-1]["id"]
            if progress is not None:
                progress(f"time anchors: {changed} episodes in tenant {tenant!r}")
    return changed


def _record_slots(run: Executor, *, page: int = _PAGE, progress: Progress | None = None,
                        apply: bool = True) -> int:
    """Step 4 changes no record: a store from before versions has its vectors in slot a,
    which the store's node (written with the version) records."""
    return 0


def repair_layout(run: Executor) -> None:
    """What ``setup()`` repairs in the store's layout when the vector indexes are not as they
    should be (the active slot's alone): the store's node naming a slot that holds no vector
    while the other holds them, no re-embedding recorded or claimed (``store_slot``: the node
    is corrected), and the other slot's index while no re-embedding fills that slot (a stray
    one, left by a re-embedding killed right after its switch: dropped). Each said on the ``graphmem``
    logger. ``schema_plan()`` reports the same (``checked_layout``)."""
    found = run.layout(fresh=True)
    have = {r["name"] for r in run.read_in(layout.SLOT_A, "schema_vector_info")}
    slot_found, stray = checked_layout(run, found, have)
    if slot_found is not None:
        if run.write_one("store_slot", slot=layout.SLOT_A, current=found.slot, to=slot_found):
            _log.warning("the store's node said its vectors are in slot %s, but every vector is in slot %s "
                         "(index %s): recorded slot %s", found.slot, slot_found, layout.INDEXES[slot_found],
                         slot_found)
        run.forget_layout()
    if stray and not (found := run.layout(fresh=True)).filling:  # read again: a run may have begun
        _log.warning("dropping vector index %s: the store's vectors are in slot %s (index %s) and no re-embedding "
                     "fills slot %s", stray[0], found.slot, found.index, layout.other(found.slot))
        run.auto_in(layout.other(found.slot), "schema_vector_drop")


def checked_layout(run: Executor, found: Layout, have: set[str],
                         counts: dict[str, Any] | None = None) -> tuple[str | None, list[str]]:
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
            counts = (run.read_in(found.slot, "store_vector_check"))[0]
        if not counts["active"] and counts["other"]:
            return other, []
    return None, [layout.INDEXES[other]]


def tell_unembedded(run: Executor, tenant: str) -> int:
    """Say on the ``graphmem`` logger how many memories of ``tenant`` have no vector in the
    active slot though they are owed one (``memory_vector_check``); return how many."""
    row = (run.read("memory_vector_check", tenant=tenant))[0]
    if row["missing"]:
        _log.warning("%d memories of tenant %r have no vector in the store's active slot (%d of them stranded by a "
                     "re-embedding): recall finds them by text and through the graph only; run graphmem reembed "
                     "--to <the store's embedder> to embed them (graphmem setup --check counts every tenant's)",
                     row["missing"], tenant, row["stranded"])
    return int(row["missing"])


_RUNS = {2: rekey, 3: anchor_episodes, 4: _record_slots}


def _run_step(run: Executor, step: Step, *, apply: bool, progress: Progress | None) -> int:
    return _RUNS[step.version](run, apply=apply, progress=progress)


class UpgradeMixin(Host):
    def schema_plan(self) -> SchemaPlan:
        """What ``setup()`` would change in this store, without changing anything: its schema
        version beside this graphmem's, the upgrade steps it still needs with the records each
        would change (read through the whole store: a minute or so per million memories), the
        constraints and indexes ``setup()`` would create, the vector index beside this
        memory object's embedder, and what is amiss in the store's layout: a stray vector
        index or a store's node that names the wrong slot (``setup()`` repairs both), and
        the memories of every tenant without a vector in the active slot (``graphmem
        reembed`` embeds them). A store written by a newer graphmem is reported (``newer``),
        not refused, and none of its data is read. ``graphmem setup --check`` prints it."""
        rows = self._run.read_in(layout.SLOT_A, "store_layout")
        vectors = {r["name"]: r for r in self._run.read_in(layout.SLOT_A, "schema_vector_info")}
        found = layout.from_row(rows[0] if rows else None, list(vectors))
        newer = found.version > layout.VERSION
        steps = [] if newer else [
            SchemaStep(version=step.version, name=step.name, does=step.does,
                       changes=_run_step(self._run, step, apply=False, progress=None))
            for step in layout.pending(found.version)]
        have = {r["name"] for r in self._run.read_in(layout.SLOT_A, "store_indexes")}
        have |= {r["name"] for r in self._run.read_in(layout.SLOT_A, "store_constraints")}
        embedder = None
        if self._core.embedder is not None:
            embedder = len(self._store.probe())
        slot_found: str | None = None
        stray: list[str] = []
        counts: dict[str, Any] | None = None
        if not newer and found.version != layout.EMPTY:
            counts = (self._run.read_in(found.slot, "store_vector_check"))[0]
            slot_found, stray = checked_layout(self._run, found, set(vectors), counts)
            if slot_found is not None:  # counted in the slot the vectors are in
                counts = (self._run.read_in(slot_found, "store_vector_check"))[0]
        slot = slot_found or found.slot
        index = vectors.get(layout.INDEXES[slot])
        missing = [name for name in templates.schema_objects() if name not in have]
        if index is None and embedder is not None:
            missing.append(layout.INDEXES[slot])
        without = None
        if counts is not None and (index is not None or embedder is not None or counts["active"] or counts["other"]):
            without = int(counts["missing"])
        return SchemaPlan(store_version=found.version, graphmem_version=layout.VERSION, steps=steps, missing=missing,
                          vector_slot=found.slot, vector_index=found.index,
                          vector_dimensions=None if index is None else index["dimensions"],
                          embedder_dimensions=embedder, reembed=found.reembed, vector_indexes=sorted(vectors),
                          stray_indexes=stray, recorded=found.recorded or found.version == layout.EMPTY,
                          slot_found=slot_found, without_vector=without,
                          stranded=0 if counts is None or found.under_way else int(counts["stranded"]))

    def _upgrade_store(self) -> list[SchemaStep]:
        """Bring the store's data to this graphmem's schema version, step by step, each
        recorded on the store's node when done (a run cut off resumes at the step it was in,
        which is idempotent); a database graphmem had not written is recorded current at
        once. Each step is said on the ``graphmem`` logger before and after."""
        found = self._run.layout(fresh=True)  # a newer store is refused here
        done: list[SchemaStep] = []
        if found.version == layout.EMPTY:
            self._run.write_one("store_version", version=layout.VERSION, vectorSlot=found.slot, now=self._core.now())
        for step in layout.pending(found.version):
            _log.warning("upgrading the store from schema version %d: step %d (%s): %s",
                         step.version - 1, step.version, step.name, step.does)
            started = time.monotonic()
            changes = _run_step(self._run, step, apply=True, progress=None)
            self._run.write_one("store_version", version=step.version, vectorSlot=found.slot, now=self._core.now())
            _log.warning("store at schema version %d: %s changed %d records in %.1f s", step.version, step.name,
                         changes, time.monotonic() - started)
            done.append(SchemaStep(version=step.version, name=step.name, does=step.does, changes=changes))
        if found.version != layout.VERSION:
            self._run.layout(fresh=True)
        return done
