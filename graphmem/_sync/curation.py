# Generated from graphmem/_async/curation.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""The curator on ``Memory`` (contract §10): exact duplicates, near-duplicates merged
by a chat model, pruning stale machine-made records, statistics, and ``curate`` running
them in order. Every step works in batches, each its own transaction, so an interrupted
run is finished by running it again; a finished run changes nothing the second time.
This file is generated from ``graphmem/_async/curation.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Fact
from .._base.records import IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._learning import curation
from .._learning.curation import (
    CurationReport,
    CurationStats,
    CurationStatsRow,
    DedupeRow,
    MergedMemory,
    NearRow,
    PurgedRow,
)
from .._memory.facts import AUTOMATIC
from .backend import Store
from .executor import Tx
from .facts import after_invalidation
from .llm import LlmCaller, check_llm

_BATCH = 5_000
_SCAN = 500  # records whose neighbours one consolidation read looks up
_NEIGHBOURS = 20


@instrument("graphmem", names=("stats", "dedupe", "consolidate", "prune", "curate"))
class Curation:
    """Curation of one tenant's memory: statistics, deduplication, consolidation by a model, pruning (``Memory`` hands the public calls to it)."""

    def __init__(self, store: Store, llm: LlmCaller) -> None:
        self._store = store
        self._llm = llm

    def stats(self, *, scope: str) -> CurationStats:
        """What ``scope`` and the scopes below it hold: memories by kind, believed ones by
        provenance, invalidated ones by reason."""
        scope = _scopes.check_path(scope)
        rows = self._store.run.read_as(CurationStatsRow, "curation_stats", tenant=self._store.core.tenant, **curation.subtree(scope))
        return curation.stats(rows)

    def dedupe(self, *, scope: str, batch: int = _BATCH) -> int:
        """Exact duplicates in ``scope`` and below: believed facts, insights and procedures
        of the same scope with the same normalised text (and steps, and end of valid time) are one
        record. The most trusted (then the oldest) is kept; every other machine-made one is
        invalidated with reason ``duplicate`` and SUPERSEDES from the kept one, keeping its
        own provenance. A person's records are never invalidated. Returns how many were."""
        scope = _scopes.check_path(scope)
        limit = check.count(batch, "batch")
        tenant = self._store.core.tenant
        total = 0
        while True:
            now = self._store.core.now()

            def work(tx: Tx, now: datetime = now) -> int:
                ids = [r.id for r in tx.run_as(
                    DedupeRow, "curation_dedupe", tenant=tenant, kinds=curation.CURATED, automatic=AUTOMATIC, limit=limit,
                    now=now, **curation.subtree(scope))]
                after_invalidation(tx, self._store.core.tenant, ids, ids, now)
                tx.emit("invalidated", ids, reason="duplicate", scope=scope)
                return len(ids)

            done = self._store.run.write(work)
            total += done
            if done == 0:
                return total

    def consolidate(
        self,
        *,
        scope: str,
        llm: Any,
        threshold: float = 0.92,
        max_merges: int = 100,
    ) -> list[Fact]:
        """Near-duplicate facts in ``scope`` and below (believed, machine-made, same scope,
        kind and end of valid time, cosine similarity >= ``threshold`` by the vector index)
        are merged by ``llm`` (any langchain-core chat model; one structured call per group of
        at most 8) into one fact that DERIVED_FROM and SUPERSEDES the originals (reason
        ``merged``), in one transaction per group. A person's records are never merged.
        At most ``max_merges`` groups per call; returns the merged facts."""
        facts, _ = self._consolidate(scope, llm, threshold, max_merges)
        return facts

    def _consolidate(self, scope: str, llm: Any, threshold: Any, max_merges: Any) -> tuple[list[Fact], int]:
        """``consolidate``, also saying how many originals were merged away."""
        scope = _scopes.check_path(scope)
        check_llm(llm)
        cosine = curation.similarity(threshold)
        merges = check.count(max_merges, "max_merges")
        tenant = self._store.core.tenant
        out: list[Fact] = []
        originals = 0
        taken: set[str] = set()
        after = ""
        while len(out) < merges:
            rows = self._store.run.read_as(
                NearRow, "curation_near", tenant=tenant, kinds=curation.MERGEABLE, automatic=AUTOMATIC, after=after,
                scan=_SCAN, neighbours=_NEIGHBOURS, threshold=self._store.core.neo4j_similarity(cosine),
                **curation.subtree(scope))
            if not rows:
                return out, originals
            after = rows[-1].id
            for group in curation.clusters(rows, taken):
                merged = self._merge(group, llm)
                if merged is not None:
                    out.append(merged[0])
                    originals += merged[1]
                if len(out) >= merges:
                    break
        return out, originals

    def _merge(self, ids: list[str], llm: Any) -> tuple[Fact, int] | None:
        tenant = self._store.core.tenant
        nodes = [r.node for r in self._store.run.read_as(NodeRow, "memory_existing", tenant=tenant, ids=ids)]
        if len(nodes) < 2:
            return None
        draft = self._llm.ask(llm, MergedMemory, curation.merge_messages(nodes), purpose="consolidate",
                                    check=curation.check_merged)
        now = self._store.core.now()
        row = curation.merged_fact(nodes, draft.text, tenant=tenant, now=now,
                                    single_valued=self._store.core.single_valued_predicates)
        self._store.embed([row], ["text"])
        props = row["props"]

        def work(tx: Tx) -> tuple[Fact, int] | None:
            live = tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=ids)
            if len(live) != len(ids) or any(n.node.get("invalidatedAt") is not None or
                                            n.node["provenance"] not in AUTOMATIC for n in live):
                return None  # changed since it was read: left for the next run
            tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([props["scope"]]))
            tx.run_as(IdRow, "fact_create", tenant=tenant, rows=[row], now=now)
            merged = [r.id for r in tx.run_as(IdRow, "curation_merge", tenant=tenant, by=props["id"], ids=ids, now=now)]
            after_invalidation(tx, self._store.core.tenant, merged, merged, now)
            tx.emit("invalidated", merged, reason="merged", scope=props["scope"])
            fresh = tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[props["id"]])
            return record_of(Fact, fresh[0].node), len(merged)

        return self._store.run.write(work)

    def prune(
        self,
        *,
        scope: str,
        older_than: datetime,
        provenance: Iterable[str] | str | None = None,
        purge: bool = False,
        batch: int = _BATCH,
    ) -> dict[str, int]:
        """Stale machine-made records in ``scope`` and below: believed facts, insights and
        procedures with a provenance in ``provenance`` (default: extraction, reflection,
        induction; a person's provenance is refused) last touched (corroborated, used, else
        created) before ``older_than`` and never validated by a person are invalidated with
        reason ``pruned``. With ``purge``, such records invalidated before ``older_than``
        (for any reason but ``forgotten``: tombstones stay) are then hard-deleted.
        Returns ``{"pruned": n, "purged": m}``."""
        scope = _scopes.check_path(scope)
        cutoff = check.instant(older_than, "older_than", allow_none=False)
        sources = curation.provenances(provenance)
        if not isinstance(purge, bool):
            raise InvalidInputError("purge", "must be True or False")
        limit = check.count(batch, "batch")
        tenant = self._store.core.tenant
        pruned = purged = 0
        while True:
            now = self._store.core.now()

            def work(tx: Tx, now: datetime = now) -> int:
                ids = [r.id for r in tx.run_as(
                    IdRow, "curation_prune", tenant=tenant, kinds=curation.CURATED, provenances=sources, olderThan=cutoff,
                    limit=limit, now=now, **curation.subtree(scope))]
                after_invalidation(tx, self._store.core.tenant, ids, ids, now)
                tx.emit("pruned", ids, reason="pruned", scope=scope)
                return len(ids)

            done = self._store.run.write(work)
            pruned += done
            if done < limit:
                break
        while purge:
            purges = self._store.run.write_one_as(PurgedRow, "curation_purge", tenant=tenant,
                                                        kinds=curation.CURATED, provenances=sources, olderThan=cutoff,
                                                        limit=limit, **curation.subtree(scope))
            done = purges[0].purged if purges else 0
            purged += done
            if done < limit:
                break
        return {"pruned": pruned, "purged": purged}

    def curate(
        self,
        *,
        scope: str,
        llm: Any = None,
        older_than: datetime | None = None,
        purge: bool = False,
        threshold: float = 0.92,
        max_merges: int = 100,
        batch: int = _BATCH,
    ) -> CurationReport:
        """Curate ``scope`` and below, in order: ``dedupe``; ``consolidate`` when ``llm`` is
        given; ``prune`` (and purge, with ``purge``) when ``older_than`` is given; then
        ``stats``. Returns a ``CurationReport`` of what changed. Each step is
        batched and resumable; running it again on a curated scope changes nothing."""
        scope = _scopes.check_path(scope)
        check_llm(llm, allow_none=True)
        if older_than is not None:
            check.instant(older_than, "older_than")
        seconds: dict[str, float] = {}
        started = time.perf_counter()
        before = self.stats(scope=scope)
        seconds["stats"] = time.perf_counter() - started
        mark = time.perf_counter()
        deduplicated = self.dedupe(scope=scope, batch=batch)
        seconds["dedupe"] = time.perf_counter() - mark
        merged: list[Fact] = []
        originals = 0
        calls = self._llm.calls
        if llm is not None:
            mark = time.perf_counter()
            merged, originals = self._consolidate(scope, llm, threshold, max_merges)
            seconds["consolidate"] = time.perf_counter() - mark
        pruning = {"pruned": 0, "purged": 0}
        if older_than is not None:
            mark = time.perf_counter()
            pruning = self.prune(scope=scope, older_than=older_than, purge=purge, batch=batch)
            seconds["prune"] = time.perf_counter() - mark
        after = self.stats(scope=scope)
        seconds["total"] = time.perf_counter() - started
        return CurationReport(
            scope=scope, deduplicated=deduplicated, consolidated=len(merged), merged=originals,
            pruned=pruning["pruned"], purged=pruning["purged"], model_calls=self._llm.calls - calls,
            before=before, after=after, seconds=seconds,
        )
