# Generated from graphmem/_async/recall.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Recall: ranked memories for a question (its vector, the yardstick of the relevance
floor, the names common in its scopes), and the prompt block built from them (contract §8). This file is generated from ``graphmem/_async/recall.py`` by
``tools/unasync.py``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import dialect, scopes
from .._base import validate as check
from .._base.embeddings import bag_of_words
from .._base.errors import GraphMemError, SchemaError
from .._base.observe import annotate, recording
from .._base.traced import instrument
from .._base.vectors import Vector
from .._memory.known import put_bounded
from .._recall import context as _context
from .._recall import fulltext, fusion, plan, relevance, report
from .._recall.candidates import Candidate
from .._recall.context import ExchangeRow
from .._recall.fulltext import CommonRow
from .._recall.settings import RecallSettings
from .backend import Store
from .upgrade import refused_vector, repair_vectors


@instrument("graphmem", names=("recall", "context"))
class Recall:
    """Recall and the context block of one tenant: the question embedded, the statement planned and run, the results fused and floored (Memory hands the public calls to it)."""

    def __init__(self, store: Store, settings: RecallSettings) -> None:
        self._store = store
        self._settings = settings

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
        as_of_t, valid_t = self._store.core.as_of_valid_at(as_of, valid_at)
        vector = self._query_vector(text, scopes.chain(scope))
        args: dict[str, Any] = dict(
            tenant=self._store.core.tenant, query=text, scope=scope, k=k, vector=vector,
            as_of=as_of_t, valid_at=valid_t, kind_list=plan.kinds(kinds), purpose=purpose,
            max_sensitivity=max_sensitivity, include_invalidated=include_invalidated,
            settings=self._settings, user_id=user_id, agent_id=agent_id, session_id=session_id,
        )
        # on Neo4j 2026 the vector index is searched within the tenant (recall's Cypher 25 version),
        # over-fetched by how many of the tenant's memories these scopes held last time
        chain = tuple(scopes.chain(scope))
        if vector is not None and self._store.filtered_index():
            args.update(cypher25=True, spread=self._store.known.spreads.get(chain, 1.0))
        rows = self._recall_rows(args)
        asked = 1
        if args.get("cypher25") and (spread := plan.spread_of(rows)) is not None:
            put_bounded(self._store.known.spreads, chain, spread, plan.SPREADS_KEPT)
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
        settings = plan.decided_gate(self._settings, self._store.core.embedder is not None,
                                     named=bool(fulltext.names(text)))
        results = fusion.score(rows, now=self._store.core.now(), settings=settings, k=k, min_relevance=floor,
                               stick=self._yardstick(vector), question=text)
        if recording():
            annotate(**report.attributes(rows, results, asked))
        if self._store.events.listening:
            self._store.events.emit("recalled", [r.record.id for r in results], scope=scope,
                              seconds=time.perf_counter() - started,
                              detail={"k": k, "returned": len(results), "candidates": report.candidates(rows)})
        return results

    def _recall_rows(self, args: dict[str, Any]) -> list[Candidate]:
        """Run the recall template (its Cypher 25 version with ``cypher25``) with the
        parameters of ``args``. A vector index that is missing or not online (``setup()``
        remaking it after a server upgrade, or dropped by hand) does not fail recall: it scans
        exactly, and the index is read again on the next recall (a missing one is said once
        on the ``graphmem`` logger). A stored vector Neo4j's
        cosine refuses (written before vectors were checked) would fail every recall of its
        scopes: it is removed (the record stays) and the recall runs again, once."""
        name = dialect.template("recall", bool(args.get("cypher25")))
        params = plan.params(**args)
        slot = (self._store.run.layout()).slot
        try:
            return self._store.run.read_as(Candidate, name, **params)
        except GraphMemError as exc:
            if dialect.index_unusable(exc):
                self._store.forget_index()
                if (self._store.run.layout()).slot != slot:  # re-embedded meanwhile: the old index is gone
                    self._store.same_embedder_as_store()  # the probe tells embedders of one dimension apart
                    dimension = self._store.known_dimension()
                    vector = args.get("vector")
                    if vector is not None and dimension is not None and len(vector) != dimension:
                        raise SchemaError(
                            f"this store was re-embedded (graphmem reembed) to vectors of {dimension} dimensions "
                            f"while this memory object's embedder gives {len(vector)}: make the memory object "
                            "with the new embedder") from exc
                    return self._store.run.read_as(Candidate, name, **params)
                self._store.known_dimension()  # read again: a missing index is said once (a rebuilt one is not)
                return self._store.run.read_as(Candidate, "recall", **plan.params(**{**args, "cypher25": False, "strategy": "exact"}))
            if not refused_vector(exc) or not repair_vectors(
                    self._store.run, self._store.core.tenant, self._store.known_dimension(), self._store.core.now()):
                raise
        return self._store.run.read_as(Candidate, name, **params)

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
        return self.context_block(query, scope=scope, max_tokens=max_tokens, order=order, k=k, as_of=as_of,
                                   valid_at=valid_at, purpose=purpose, max_sensitivity=max_sensitivity,
                                   min_relevance=min_relevance, user_id=user_id, agent_id=agent_id,
                                   session_id=session_id)

    def context_block(self, query: str, *, scope: str, max_tokens: int, order: list[str], k: int = 50,
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
        share = self._settings.exchange_share
        turns = [r.record.id for r in results if r.record.kind == "episode"]
        if "episodes" in order and share > 0 and turns:
            as_of_t, valid_t = self._store.core.as_of_valid_at(as_of, valid_at)
            rows = self._store.run.read_as(ExchangeRow, "context_exchange", **plan.exchange_params(
                turns, tenant=self._store.core.tenant, scope=scope, as_of=as_of_t, valid_at=valid_t, purpose=purpose,
                max_sensitivity=max_sensitivity, user_id=user_id, agent_id=agent_id, session_id=session_id))
            results = _context.with_exchange(results, rows, share)
        if shown:
            results = [r for r in results if r.record.id not in shown]
        return _context.render(results, max_tokens=max_tokens, order=order)

    def _yardstick(self, vector: Vector | None) -> tuple[float, float] | None:
        """The mean and deviation of the query's cosines to everyday sentences that answer
        nothing (``_relevance``), for the relevance floor; their vectors are embedded once per
        embedder object (once per memory object for an embedder that cannot be weakly
        referenced and hashed). None without a query vector."""
        embedder = self._store.core.embedder
        if vector is None or embedder is None:
            return None
        key = getattr(embedder, "wrapped", embedder)  # the caller's embedder, not this object's wrapper
        if self._store.known.yardstick is None:
            self._store.known.yardstick = self._store.shared.yardstick(key)
        if self._store.known.yardstick is None:
            self._store.known.yardstick = relevance.matrix(embedder.embed_documents(list(relevance.SENTENCES)))
            self._store.shared.keep_yardstick(key, self._store.known.yardstick)
        return relevance.yardstick(vector, self._store.known.yardstick)

    def _common_names(self, probes: list[dict[str, str]], chain: list[str]) -> list[str]:
        """Which of a question's names are common among the scopes' memories: asked of Neo4j
        (``name_frequency``) for the names this memory object has not counted in those scopes
        in the last ``COMMON_NAME_KEPT_SECONDS`` (a name's share moves slowly; asking costs a
        round trip before the recall)."""
        known, now = self._store.known.names, time.monotonic()
        key = tuple(chain)
        answer = {p["word"]: hit[0] for p in probes
                  if (hit := known.get((key, p["word"]))) is not None and hit[1] >= now}
        if ask := [p for p in probes if p["word"] not in answer]:
            rows = self._store.run.read_as(CommonRow, "name_frequency", tenant=self._store.core.tenant, chain=chain, names=ask,
                                        share=fulltext.COMMON_NAME_SHARE, least=fulltext.COMMON_NAME_LEAST,
                                        most=fulltext.COMMON_NAME_MOST)
            for row in rows:
                answer[row.word] = bool(row.common)
                put_bounded(known, (key, row.word), (answer[row.word], now + fulltext.COMMON_NAME_KEPT_SECONDS),
                            fulltext.COMMON_NAME_KEPT)
        return [p["word"] for p in probes if answer.get(p["word"])]

    def _query_vector(self, text: str, chain: list[str]) -> Vector | None:
        """The embedding of a question asked of the scopes ``chain``, or None without an
        embedder. A bag-of-words embedder (``bag_of_words = True``, as WordLlama) is given the
        question's content words without the names common among those scopes' memories
        (``_fulltext.embedded_question``; asking which are common is one more round trip,
        only when the question has a name)."""
        embedder = self._store.core.embedder
        if embedder is None:
            return None
        common: list[str] = []
        if bag_of_words(embedder) and (probes := fulltext.name_queries(text, self._store.core.tenant, chain)):
            common = self._common_names(probes, chain)
        text = fulltext.embedded_question(text, bag_of_words=bag_of_words(embedder), common=common)
        self._store.same_embedder_as_store()
        # checked against the index: an embedder of another dimension gets a clear error
        vector = embedder.embed_query(text)
        return check.embedding(vector, "embedder output", self._store.dimension_for(vector))
