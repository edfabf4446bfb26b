"""An agent's two calls per turn on ``AsyncMemory``: ``after_turn`` stores the turn's
messages at once and learns from them in the background (facts, entities, profile, a
procedure from its tool calls), and ``context_for_turn`` gives one prompt block with core
notes, the user's profile, relevant memories, summaries and recent messages, each trimmed
to its share of a token budget. ``graphmem/_sync/turn.py`` is generated from this file by
``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .._base import dates, scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Episode
from .._base.traced import instrument
from .._learning import profile
from .._recall import lines
from .._working import turn
from .._working.background import AsyncBackground, AsyncTurnHandle
from .._working.lanes import AsyncLanes, AsyncTicket
from .backend import AsyncStore
from .episodes import AsyncEpisodes
from .extraction import AsyncExtractions
from .facts import AsyncFacts
from .llm import check_llm
from .notes import AsyncNotes
from .procedures import AsyncProcedures
from .recall import AsyncRecall
from .sessions import AsyncSessions
from .summaries import AsyncSummaries


@instrument("graphmem", names=("after_turn", "await_extractions", "context_for_turn"))
class AsyncTurn:
    """The agent's turn: store it and learn from it in the background (``after_turn``), wait for that learning, and build the next turn's context block (``AsyncMemory`` hands these calls to it)."""

    def __init__(self, store: AsyncStore, *, episodes: AsyncEpisodes, extractions: AsyncExtractions,
                 procedures: AsyncProcedures, facts: AsyncFacts, sessions: AsyncSessions, notes: AsyncNotes,
                 summaries: AsyncSummaries, recall: AsyncRecall, background: AsyncBackground,
                 lanes: AsyncLanes) -> None:
        self._store = store
        self._episodes = episodes
        self._extractions = extractions
        self._procedures = procedures
        self._facts = facts
        self._sessions = sessions
        self._notes = notes
        self._summaries = summaries
        self._recall = recall
        self._background = background
        self._lanes = lanes

    async def after_turn(
        self,
        messages: Iterable[Any],
        *,
        scope: str,
        llm: Any = None,
        session_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        timezone: str = "UTC",
        occurred_at: datetime | None = None,
        learn_procedures: bool = True,
    ) -> AsyncTurnHandle:
        """Remember a finished turn without making the agent wait for its model calls.

        The messages are stored as episodes before this returns (``handle.episodes``), as
        ``ingest(..., llm=None)`` would. What is learned from them runs in the background,
        the model asked at once and what it extracted landed in the order the turns were
        given (after every earlier turn of the scope): with ``llm`` (any langchain-core chat
        model), extraction of entities, facts and the profile of ``user_id`` (``ingest``'s
        rules); with ``learn_procedures`` and at least two tool calls in the turn (an AI
        message's ``tool_calls`` and their tool messages), a quarantined procedure induced
        from them, citing the turn's episodes. ``handle.result()`` waits for this turn, ``await_extractions()`` for
        all; a failure is reported in the ``TurnResult`` and as an ``extraction_failed``
        event, never raised into the background and never lost."""
        items = list(messages) if isinstance(messages, Iterable) and not isinstance(messages, (str, bytes, Mapping)) \
            else messages
        check_llm(llm, allow_none=True)
        if not isinstance(learn_procedures, bool):
            raise InvalidInputError("learn_procedures", "must be True or False")
        path = scopes.check_path(scope)
        # the turn's place among the scope's extractions, in the order the turns were given
        ticket = self._lanes.ticket(path)
        try:
            # the model's own extraction replaces the offline one when there is a model; speakers either way
            stored = tuple((await self._episodes.store_messages(
                items, scope=path, session_id=session_id, occurred_at=occurred_at, timezone=timezone,
                user_id=user_id, agent_id=agent_id, extract=llm is None))[0])
            calls = turn.tool_calls(items) if learn_procedures else []
            if len(calls) < turn.MIN_TOOL_CALLS:
                calls = []
            if llm is None and not calls:
                ticket.done()
                return self._background.finished(stored, turn.TurnResult(episodes=stored))
            who = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}

            async def work() -> turn.TurnResult:
                try:
                    with self._store.observe.span("graphmem.after_turn.background", {
                            "graphmem.tenant": self._store.core.tenant, "graphmem.scope.depth": path.count("/") + 1,
                            "graphmem.episodes": len(stored), "graphmem.tool_calls": len(calls)}) as span:
                        result = await self._learn_from_turn(llm, stored, calls, path, timezone, who, ticket)
                        span.set_attribute("graphmem.ok", result.ok)
                        return result
                finally:
                    ticket.done()

            return self._background.start(stored, work)
        except BaseException:
            ticket.done()
            raise

    async def await_extractions(self, timeout: float | None = None) -> list[turn.TurnResult]:
        """Wait for the ``after_turn`` extractions handed over since the last call (those
        already finished included, up to the newest 1,000) and return their results in turn
        order. ``ExtractionTimeoutError`` after ``timeout`` seconds (they go on running, and
        the next call returns them)."""
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0):
            raise InvalidInputError("timeout", "must be a number of seconds >= 0, or None")
        return await self._background.wait(timeout)

    async def _learn_from_turn(self, llm: Any, stored: tuple[Episode, ...], calls: list[Any], scope: str,
                               timezone: str, who: dict[str, Any], ticket: AsyncTicket) -> turn.TurnResult:
        """The background half of ``after_turn``: every failure caught, reported and kept.
        The model is asked at once; what it extracted lands when ``ticket``'s turn comes
        (the turns before it in the scope landed), and the ticket is done after that."""
        ids = [e.id for e in stored]
        errors: list[str] = []
        extraction = procedure = None
        if llm is not None:
            msgs = [{"role": e.role, "content": e.text, "occurred_at": e.occurred_at, "id": e.id} for e in stored]
            try:
                extraction = await self._extractions.extract_reported(llm, msgs, list(stored), scope, dates.zone(timezone),
                                                          who, ticket)
                if extraction.error is not None:  # a model failure: its event is out already
                    errors.append(f"extraction: {extraction.error}")
            except Exception as exc:  # the database or anything else: reported, never raised into the void
                errors.append(f"extraction: {turn.describe(exc)}")
                self._store.events.emit("extraction_failed", ids, scope=scope, error=errors[-1],
                                  detail={"purpose": "after_turn"})
        ticket.done()  # what follows (a procedure) waits for no other turn, and none waits for it
        if calls:
            try:
                procedure = await self._procedures.induce(calls, ids, scope=scope, llm=llm, text=None, trigger=None, condition=None,
                                               priority=0, session_id=who["session_id"])
            except Exception as exc:
                errors.append(f"procedure: {turn.describe(exc)}")
                self._store.events.emit("extraction_failed", ids, scope=scope, error=errors[-1],
                                  detail={"purpose": "induce_procedure"})
        result = turn.TurnResult(episodes=stored, extraction=extraction, procedure=procedure, errors=tuple(errors))
        if result.ok:
            self._store.events.emit("extraction_done", ids, scope=scope, detail=turn.tally(result))
        return result

    async def context_for_turn(
        self,
        input: str,
        *,
        scope: str,
        session_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        max_tokens: int = 2_000,
        priorities: Mapping[str, int] | None = None,
        window: int = 20,
    ) -> str:
        """One prompt block for the turn that answers ``input``: the core notes of
        ``agent_id`` and ``user_id``, the profile of ``user_id``, the memories ``context``
        finds for ``input`` (facts, insights, procedures, and turns of earlier conversations
        with the exchange around them), the summaries of ``session_id`` and its newest
        ``window`` messages. ``max_tokens`` (characters / 4) is shared between the sections
        in proportion to ``priorities`` (notes 3, profile 2, memories 4, summaries 2,
        messages 4 unless given; 0 drops one); each section keeps what fits its share, and
        the memories take what the others leave unused. Every line says where it came from:
        a message or turn its date and who said it. Sections with nothing to show are left
        out, and a turn among the recent messages is not repeated among the memories (with
        ``messages`` at 0 the caller is taken to send the conversation itself, as agent
        frameworks do: its newest ``window`` messages are left out of the memories too). The
        same graph gives the same block."""
        check.text(input, "input")
        path = scopes.check_path(scope)
        budget = turn.shares(max_tokens, turn.priorities(priorities))
        check.identifier(session_id, "session_id", allow_none=True)
        check.identifier(user_id, "user_id", allow_none=True)
        check.identifier(agent_id, "agent_id", allow_none=True)
        blocks: dict[str, str] = {}
        if "notes" in budget:
            notes = [f"- [{n.label}] {turn.one_line(n.text)}"
                     for owner in (agent_id, user_id) if owner is not None
                     for n in await self._notes.notes(scope=path, owner=owner)]
            blocks["notes"] = turn.section("notes", notes, budget["notes"])
        shown: set[str] = set()  # records already in the block: the memories do not repeat them
        if "profile" in budget and user_id is not None:
            chosen = sorted(profile.chosen(await self._facts.facts(scope=path, subject=profile.subject(user_id))).items())
            fields = [f"- {name.replace('_', ' ')}: {turn.one_line(fact.object or '')} [{fact.provenance.value}]"
                      for name, fact in chosen]
            blocks["profile"] = turn.section("profile", fields, budget["profile"])
            shown |= {fact.id for (_, fact), text in zip(chosen, fields) if text in blocks["profile"].splitlines()}
        if session_id is not None and "summaries" in budget:
            summaries = [f"- [summary {_span(s)}] {turn.one_line(s.text, 2_000)}"
                         for s in await self._summaries.summaries(session_id, scope=path)]
            blocks["summaries"] = turn.section("summaries", summaries, budget["summaries"], newest_last=True)
        if session_id is not None and "messages" in budget:
            recent = await self._sessions.messages(session_id, scope=path, max_messages=window)
            said = [f"- {lines.said(m, 2_000)}" for m in recent]
            blocks["messages"] = turn.section("messages", said, budget["messages"], newest_last=True)
            shown |= {m.id for m, text in zip(recent, said) if text in blocks["messages"].splitlines()}
        elif session_id is not None and window > 0:
            # without its section the caller sends the conversation itself (an agent
            # framework's history): its newest messages are not shown again as memories
            shown |= {m.id for m in await self._sessions.messages(session_id, scope=path, max_messages=window)}
        room = turn.room(max_tokens, blocks.values())
        if "memories" in budget and room > 0:
            blocks["memories"] = await self._recall.context_block(input, scope=path, max_tokens=room, order=list(turn.MEMORIES),
                                                     shown=frozenset(shown))
        return turn.join(blocks.get(name, "") for name in turn.SECTIONS)


def _span(summary: Any) -> str:
    start, end = summary.covers_from, summary.covers_to
    if start is None or end is None:
        return "of earlier messages"
    return f"{start.date().isoformat()}..{end.date().isoformat()}"
