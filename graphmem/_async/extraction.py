"""The model's half of an extraction: ``extract`` over stored episodes, and, for it,
``ingest`` and ``after_turn``, the requests of one batch of messages -- sized by tokens
(``_learning/batches.py``), asked at once, landed in order once the scope's earlier
extractions have landed (``_working/lanes.py``). Planning and landing one request's
answer is ``landing.py``'s ``land_extraction``. ``graphmem/_sync/extraction.py`` is generated from
this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from .._base import dates
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError, ModelError
from .._base.models import Episode
from .._base.records import NodeRow, record_of
from .._base.traced import instrument
from .._learning import batches
from .._learning import ingest as _ingest
from .._learning.prompts import EXTRACT_SYSTEM, Extraction, messages_block
from .._learning.settings import LearningSettings
from .._learning.usage import Tally
from .._memory.entities import KnownRow
from .._working.ahead import AsyncAhead
from .._working.lanes import AsyncLanes, AsyncTicket
from .backend import AsyncStore
from .landing import AsyncLanding
from .llm import AsyncLlmCaller, check_llm

_KNOWN_ENTITIES = 50
"""How many of the scope's known entities the extraction prompt lists."""


@instrument("graphmem", names=("extract",))
class AsyncExtractions:
    """The model's half of extraction for one tenant: ``extract`` over stored episodes, and the batched requests ``ingest`` and ``after_turn`` make (``AsyncMemory`` hands ``extract`` to it)."""

    def __init__(self, store: AsyncStore, landing: AsyncLanding, llm: AsyncLlmCaller, learning: LearningSettings, lanes: AsyncLanes) -> None:
        self._store = store
        self._landing = landing
        self._llm = llm
        self._learning = learning
        self._lanes = lanes

    async def extract(
        self,
        *,
        scope: str,
        llm: Any,
        session_id: str | None = None,
        since: datetime | None = None,
        timezone: str = "UTC",
        limit: int = 200,
    ) -> _ingest.IngestResult:
        """Extraction over episodes already stored ("store now, extract later"): the
        episodes stored at ``scope`` (of conversation ``session_id``, or since ``since``;
        at least one of the two), oldest first, at most ``limit``, go to ``llm`` as one
        conversation, exactly as ``ingest`` would have sent them. Statements extracted
        before are recognised as restatements and skipped."""
        scope = _scopes.check_path(scope)
        check_llm(llm)
        if session_id is None and since is None:
            raise InvalidInputError("session_id", "extract() needs session_id or since")
        check.identifier(session_id, "session_id", allow_none=True)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise InvalidInputError("limit", "must be an integer from 1 to 10000")
        if not isinstance(timezone, str):
            raise InvalidInputError("timezone", "must be an IANA timezone name")
        tz = dates.zone(timezone)
        rows = await self._store.run.read_as(NodeRow, "episode_stored", tenant=self._store.core.tenant, scope=scope, sessionId=session_id,
                                    since=check.instant(since, "since"), limit=limit)
        stored = [record_of(Episode, r.node) for r in rows]
        if not stored:
            return _ingest.IngestResult(notes=("no stored episodes matched",))
        msgs = [{"role": e.role, "content": e.text, "occurred_at": e.occurred_at, "id": e.id} for e in stored]
        who = {"user_id": stored[0].user_id, "agent_id": stored[0].agent_id, "session_id": session_id}
        ticket = self._lanes.ticket(scope)
        try:
            return await self.extract_reported(llm, msgs, stored, scope, tz, who, ticket)
        finally:
            ticket.done()

    async def extract_reported(self, llm: Any, msgs: list[dict[str, Any]], stored: list[Episode], scope: str,
                                tz: Any, who: dict[str, Any], ticket: AsyncTicket) -> _ingest.IngestResult:
        """The extraction of ``msgs`` (stored as ``stored``): one model request per part of
        at most ``extraction_batch_tokens`` (all asked at once), then, once ``ticket``'s
        turn has come (every earlier extraction of the scope landed), each part landed in
        order in its own transaction. A part whose model failed after its retries writes
        nothing and is reported in the result (``error``, an ``extraction_failed`` event);
        the other parts land. The ticket is done when the last part has landed."""
        tally = Tally()
        split = batches.parts(msgs, [e.id for e in stored], self._learning.extraction_batch_tokens)
        known = await self._known_entities(scope)  # once for the call's requests
        ahead = AsyncAhead([self._asking(llm, part, known, tally) for part in split])
        results: list[_ingest.IngestResult] = []
        errors: list[str] = []
        try:
            for n, part in enumerate(split):
                try:
                    extraction: Extraction | None = await ahead.take(n)
                except ModelError as exc:
                    extraction = None
                    self._failed(errors, exc, n, split, scope, tally)
                if n == 0:  # the first answer is in (the synchronous twin asks a lone request here)
                    await ticket.turn()
                if extraction is None:
                    continue
                try:
                    # transaction time is when the memory learns it: the landing, not the request
                    results.append(await self._landing.land_extraction(llm, extraction, part.msgs, part.episode_ids, scope, tz,
                                                       self._store.core.now(), tally, who))
                except ModelError as exc:  # the contradiction check's request
                    self._failed(errors, exc, n, split, scope, tally)
        finally:
            await ahead.close()
            ticket.done()
        return _ingest.combined(results, episodes=tuple(stored), model_calls=len(tally), usage=tally.usage(),
                                notes=tally.notes(), error="; ".join(errors) or None)

    def _failed(self, errors: list[str], exc: ModelError, n: int, split: list[batches.Part], scope: str,
                tally: Tally) -> None:
        """Report a request whose model failed after its retries: in the result, as an event."""
        errors.append(("" if len(split) == 1 else f"request {n + 1} of {len(split)}: ") + str(exc))
        self._store.events.emit("extraction_failed", split[n].episode_ids, scope=scope, error=str(exc),
                          detail={"purpose": "ingest", "model_calls": len(tally)})

    def _asking(self, llm: Any, part: batches.Part, known: str, tally: Tally) -> Callable[[], Any]:
        async def ask() -> Extraction:
            return await self._ask_extraction(llm, part.msgs, known, tally)
        return ask

    async def _known_entities(self, scope: str) -> str:
        """The prompt's list of the entities already known in the scope."""
        known = await self._store.run.read_as(KnownRow, "entity_known", tenant=self._store.core.tenant, chain=_scopes.chain(scope),
                                     limit=_KNOWN_ENTITIES)
        return "\n".join(f"- {k.name} ({k.type}{'; also ' + ', '.join(k.aliases) if k.aliases else ''})"
                         for k in known) or "(none)"

    async def _ask_extraction(self, llm: Any, msgs: list[dict[str, Any]], known: str, tally: Tally) -> Extraction:
        """The model's extraction of ``msgs``, told the entities ``known`` in the scope."""
        prompt = "Known entities:\n" + known + "\n\nMessages:\n" + messages_block([(m["role"], m["content"]) for m in msgs])
        return await self._llm.ask(llm, Extraction, [("system", EXTRACT_SYSTEM), ("human", prompt)],
                                   purpose="ingest", tally=tally)
