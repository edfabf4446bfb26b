# Generated from graphmem/_async/recall.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Recall on ``Memory``: ranked memories for a question, and the prompt block built
from them (contract §8). This file is generated from ``graphmem/_async/recall.py`` by
``tools/unasync.py``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import dialect, scopes
from .._base import validate as check
from .._base.errors import GraphMemError, SchemaError
from .._base.observe import annotate, recording
from .._memory.known import put_bounded
from .._recall import context as _context
from .._recall import fulltext, fusion, plan, report
from .host import Host
from .schema import refused_vector, repair_vectors


class RecallMixin(Host):
    def recall(
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
        min_relevance: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[fusion.ScoredMemory]:
        """The ``k`` memories visible in ``scope`` that best answer ``query``: vector and
        full-text candidates from Neo4j's indexes, fused, expanded one hop through the
        graph, re-scored with recency, importance and trust. By default only what is valid
        and believed now; ``purpose="act"`` leaves out quarantined records; ``user_id``,
        ``agent_id`` and ``session_id`` keep only that user's, agent's or conversation's
        records. Records that do not answer the question at all are left out (a floor
        calibrated for the embedder and the question, ``RecallSettings.min_standout``; or a
        plain cosine, ``min_relevance``), so an unrelated question gets an empty list. One round trip
        to Neo4j (besides embedding the query); one more before it when a bag-of-words
        embedder meets a question with a name (which names are common in the memory), and one
        or two after it only when filters or others' documents ate the candidates' over-fetch.

        ``as_of`` and ``valid_at`` look back in transaction and valid time; ``kinds``
        keeps some kinds only (``fact``, ``episode``, ``entity``, ``insight``,
        ``procedure``); ``max_sensitivity`` leaves out anything more sensitive;
        ``include_invalidated`` brings back records no longer believed."""
        started = time.perf_counter()
        text = check.text(query, "query")
        scope = scopes.check_path(scope)
        k = plan.check_k(k)
        floor = plan.check_min_relevance(min_relevance)
        as_of_t, valid_t = self._core.as_of_valid_at(as_of, valid_at)
        vector = self._query_vector(text, scopes.chain(scope))
        args: dict[str, Any] = dict(
            tenant=self._core.tenant, query=text, scope=scope, k=k, vector=vector,
            as_of=as_of_t, valid_at=valid_t, kind_list=plan.kinds(kinds), purpose=purpose,
            max_sensitivity=max_sensitivity, include_invalidated=include_invalidated,
            settings=self._recall_settings, user_id=user_id, agent_id=agent_id, session_id=session_id,
        )
        # on Neo4j 2026 the vector index is searched within the tenant (recall's Cypher 25 version),
        # over-fetched by how many of the tenant's memories these scopes held last time
        chain = tuple(scopes.chain(scope))
        if vector is not None and self._store.filtered_index():
            args.update(cypher25=True, spread=self._known.spreads.get(chain, 1.0))
        rows = self._recall_rows(args)
        asked = 1
        if args.get("cypher25") and (spread := plan.spread_of(rows)) is not None:
            put_bounded(self._known.spreads, chain, spread, plan.SPREADS_KEPT)
            args["spread"] = spread  # a retry asks with what this answer found
        retry: dict[str, Any] = {}
        for _ in range(2):
            # filters ate the over-fetch, or others' documents the open full-text query's
            # places: ask again (a deeper index search, then the exact scan; narrowed)
            more = plan.underfilled(rows, k, deepened="over_fetch_boost" in retry)
            if not more:
                break
            retry.update(more)
            rows = self._recall_rows({**args, **retry})
            asked += 1
        settings = plan.for_embedder(self._recall_settings, self._core.embedder is not None,
                                     named=bool(fulltext.names(text)))
        results = fusion.score(rows, now=self._core.now(), settings=settings, k=k, min_relevance=floor,
                               stick=self._yardstick(vector), question=text)
        if recording():
            annotate(**report.attributes(rows, results, asked))
        if self._events.listening:
            self._events.emit("recalled", [r.record.id for r in results], scope=scope,
                              seconds=time.perf_counter() - started,
                              detail={"k": k, "returned": len(results), "candidates": report.candidates(rows)})
        return results

    def _recall_rows(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """Run the recall template (its Cypher 25 version with ``cypher25``) with the
        parameters of ``args``. A vector index that is missing or not online (``setup()``
        remaking it after a server upgrade, or dropped by hand) does not fail recall: it scans
        exactly, and the index is read again on the next recall (a missing one is said once
        on the ``graphmem`` logger). A stored vector Neo4j's
        cosine refuses (written before vectors were checked) would fail every recall of its
        scopes: it is removed (the record stays) and the recall runs again, once."""
        name = dialect.template("recall", bool(args.get("cypher25")))
        params = plan.params(**args)
        slot = (self._run.layout()).slot
        try:
            return self._run.read(name, **params)
        except GraphMemError as exc:
            if dialect.index_unusable(exc):
                self._store.forget_index()
                if (self._run.layout()).slot != slot:  # re-embedded meanwhile: the old index is gone
                    self._store.same_embedder_as_store()  # the probe tells embedders of one dimension apart
                    dimension = self._store.known_dimension()
                    vector = args.get("vector")
                    if vector is not None and dimension is not None and len(vector) != dimension:
                        raise SchemaError(
                            f"this store was re-embedded (graphmem reembed) to vectors of {dimension} dimensions "
                            f"while this memory object's embedder gives {len(vector)}: make the memory object "
                            "with the new embedder") from exc
                    return self._run.read(name, **params)
                self._store.known_dimension()  # read again: a missing index is said once (a rebuilt one is not)
                return self._run.read("recall", **plan.params(**{**args, "cypher25": False, "strategy": "exact"}))
            if not refused_vector(exc) or not repair_vectors(
                    self._run, self._core.tenant, self._store.known_dimension(), self._core.now()):
                raise
        return self._run.read(name, **params)

    def context(
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
        min_relevance: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> str:
        """A prompt-ready block from ``recall``: sections for facts, insights (with their
        citations), procedures and recent episodes, each line with its provenance and
        validity, trimmed to ``max_tokens`` (estimated as characters / 4) by score, empty when
        nothing relevant is found. ``sections`` chooses and orders them (``facts``,
        ``insights``, ``procedures``, ``episodes``, ``entities``; entities are left out by
        default); ``k`` is how many results are recalled to fill them; the other arguments
        are ``recall``'s."""
        order = _context.sections(sections)
        return self._context(query, scope=scope, max_tokens=max_tokens, order=order, k=k, as_of=as_of,
                                   valid_at=valid_at, purpose=purpose, max_sensitivity=max_sensitivity,
                                   min_relevance=min_relevance, user_id=user_id, agent_id=agent_id,
                                   session_id=session_id)

    def _context(self, query: str, *, scope: str, max_tokens: int, order: list[str], k: int = 50,
                       as_of: datetime | None = None, valid_at: datetime | None = None, purpose: str = "inform",
                       max_sensitivity: str | None = None, min_relevance: float | None = None,
                       user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
                       shown: frozenset[str] = frozenset()) -> str:
        """``context``'s block, leaving out the records of ``shown`` (``context_for_turn``'s
        recent messages, already in the prompt)."""
        _context.check_budget(max_tokens)
        results = self.recall(
            query, scope=scope, k=k, as_of=as_of, valid_at=valid_at, purpose=purpose,
            max_sensitivity=max_sensitivity, min_relevance=min_relevance, user_id=user_id,
            agent_id=agent_id, session_id=session_id)
        share = self._recall_settings.exchange_share
        turns = [r.record.id for r in results if r.record.kind == "episode"]
        if "episodes" in order and share > 0 and turns:
            as_of_t, valid_t = self._core.as_of_valid_at(as_of, valid_at)
            rows = self._run.read("context_exchange", **plan.exchange_params(
                turns, tenant=self._core.tenant, scope=scope, as_of=as_of_t, valid_at=valid_t, purpose=purpose,
                max_sensitivity=max_sensitivity, user_id=user_id, agent_id=agent_id, session_id=session_id))
            results = _context.with_exchange(results, rows, share)
        if shown:
            results = [r for r in results if r.record.id not in shown]
        return _context.render(results, max_tokens=max_tokens, order=order)
