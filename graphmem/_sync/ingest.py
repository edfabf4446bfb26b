# Generated from graphmem/_async/ingest.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""``ingest``: conversation turns stored as episodes at once, then turned into entities,
facts and relations by a model (``extraction.py`` asks, ``landing.py`` resolves and writes,
contract §2-§7), or by the entity extractor without one.
This file is generated from ``graphmem/_async/ingest.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import dates
from .._base import scopes as _scopes
from .._base.observe import annotate
from .._base.traced import instrument
from .._learning import ingest as _ingest
from .._working.lanes import Lanes
from .backend import Store
from .episodes import Episodes
from .extraction import Extractions
from .llm import check_llm


@instrument("graphmem", names=("ingest",))
class Ingest:
    """``ingest``: messages stored as episodes at once, then extracted by a model, or by the
    entity extractor without one (``Memory`` hands the call to it)."""

    def __init__(self, store: Store, episodes: Episodes, extractions: Extractions,
                 lanes: Lanes) -> None:
        self._store = store
        self._episodes = episodes
        self._extractions = extractions
        self._lanes = lanes

    def ingest(
        self,
        messages: Iterable[Any],
        *,
        scope: str,
        llm: Any,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        timezone: str = "UTC",
        user_id: str | None = None,
        agent_id: str | None = None,
    ) -> _ingest.IngestResult:
        """Store each message as an Episode, then -- with ``llm``, any langchain-core chat
        model -- extract entities, facts and relations with one structured-output call and
        land them in one transaction with DERIVED_FROM / MENTIONS provenance.

        Entities are resolved before anything is created: normalised name and aliases,
        then name-embedding similarity among visible entities of the type (merge above
        ``LearningSettings.entity_merge_threshold``, a ``SAME_AS`` candidate in the grey
        band). Time expressions are resolved in code against each message's time in
        ``timezone``. Only facts about the same subject are contradiction candidates;
        single-valued ones supersede by rule, restatements are skipped, and the model is
        asked (one more call) only about grey-band pairs. Only ``extraction`` records are
        retired automatically; forgotten statements are not re-extracted. If the model
        fails after its retries, the episodes are kept and the error is reported in the
        result. ``llm=None`` needs no model: the episodes are stored with their speakers
        (``SPOKE`` from each speaker's entity) and the entities the memory's
        ``entity_extractor`` finds in them (``MENTIONS``, with spans), resolved by name and
        alias like the model's (docs/ingest.md#offline-entities). With ``user_id``, what the user
        says about themself fills their profile (``profile()``) by the same call, with
        provenance ``extraction``: a value a person gave is never replaced."""
        started = time.perf_counter()
        check_llm(llm, allow_none=True)
        path = _scopes.check_path(scope)
        # this call's place among the scope's extractions, taken before anything waits
        ticket = None if llm is None else self._lanes.ticket(path)
        try:
            stored, msgs, landed = self._episodes.store_messages(
                messages, scope=path, session_id=session_id, occurred_at=occurred_at, timezone=timezone,
                user_id=user_id, agent_id=agent_id, extract=llm is None)
            if llm is None or ticket is None:
                return self._ingested(_ingest.IngestResult(
                    episodes=tuple(stored), entities_created=tuple(landed.created), entities_merged=tuple(landed.merged),
                    notes=(_offline_note(self._store.core.extractor),)), path, len(msgs), started)
            result = self._extractions.extract_reported(llm, msgs, stored, path, dates.zone(timezone),
                                                  {"user_id": user_id, "agent_id": agent_id, "session_id": session_id},
                                                  ticket)
        finally:
            if ticket is not None:
                ticket.done()
        # the speakers' entities, written with the episodes, beside the model's
        return self._ingested(result.model_copy(update={
            "entities_created": (*landed.created, *result.entities_created),
            "entities_merged": (*landed.merged, *result.entities_merged)}), path, len(msgs), started)

    def _ingested(self, result: _ingest.IngestResult, scope: str, messages: int, started: float) -> _ingest.IngestResult:
        """``result``, told: the ``ingested`` event, and the counts on the call's span."""
        counts = {"messages": messages, "episodes": len(result.episodes), "facts": len(result.facts),
                  "entities": len(result.entities_created), "model_requests": result.model_calls,
                  "input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens}
        annotate(**counts, extraction_failed=result.error is not None)
        self._store.events.emit("ingested", [e.id for e in result.episodes], scope=scope,
                          seconds=time.perf_counter() - started, detail=counts)
        return result


def _offline_note(extractor: Any) -> str:
    if extractor is None:
        return "no model given: episodes and their speakers only (no entity extractor: pip install 'graphmem[ner]')"
    return f"no model given: entities found by {extractor!r}"


