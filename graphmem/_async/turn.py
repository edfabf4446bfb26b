"""The context for an agent's next turn on ``AsyncMemory``: one prompt block with core
notes, the user's profile, relevant memories, summaries and recent messages, each trimmed
to its share of a token budget. ``graphmem/_sync/turn.py`` is generated from this file by
``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _profile, _scopes, _turn
from .. import _validate as check
from .host import AsyncHost


class AsyncTurnMixin(AsyncHost):
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
        finds for ``input`` (facts, insights, procedures), the summaries of ``session_id``
        and its newest ``window`` messages. ``max_tokens`` (characters / 4) is shared
        between the sections in proportion to ``priorities`` (notes 3, profile 2, memories
        4, summaries 2, messages 4 unless given; 0 drops one); each section keeps what fits
        its share, every line marked with where it came from. Sections with nothing to
        show are left out. The same graph gives the same block."""
        check.text(input, "input")
        path = _scopes.check_path(scope)
        budget = _turn.shares(max_tokens, _turn.priorities(priorities))
        check.identifier(session_id, "session_id", allow_none=True)
        check.identifier(user_id, "user_id", allow_none=True)
        check.identifier(agent_id, "agent_id", allow_none=True)
        blocks: list[str] = []
        if "notes" in budget:
            lines = [f"- [{n.label}] {_turn.one_line(n.text)}"
                     for owner in (agent_id, user_id) if owner is not None
                     for n in await self.notes(scope=path, owner=owner)]
            blocks.append(_turn.section("notes", lines, budget["notes"]))
        if "profile" in budget and user_id is not None:
            facts = await self.facts(scope=path, subject=_profile.subject(user_id))
            lines = [f"- {name.replace('_', ' ')}: {_turn.one_line(fact.object or '')} [{fact.provenance.value}]"
                     for name, fact in sorted(_profile.chosen(facts).items())]
            blocks.append(_turn.section("profile", lines, budget["profile"]))
        if "memories" in budget and budget["memories"] > 1:
            blocks.append(await self.context(input, scope=path, max_tokens=budget["memories"] - 1,
                                             sections=["facts", "insights", "procedures"]))
        if session_id is not None and "summaries" in budget:
            lines = [f"- [summary {_span(s)}] {_turn.one_line(s.text, 2_000)}"
                     for s in await self.summaries(session_id, scope=path)]
            blocks.append(_turn.section("summaries", lines, budget["summaries"], newest_last=True))
        if session_id is not None and "messages" in budget:
            lines = [f"- [{m.role}] {_turn.one_line(m.text, 2_000)}"
                     for m in await self.messages(session_id, scope=path, max_messages=window)]
            blocks.append(_turn.section("messages", lines, budget["messages"], newest_last=True))
        return _turn.join(blocks)


def _span(summary: Any) -> str:
    start, end = summary.covers_from, summary.covers_to
    if start is None or end is None:
        return "of earlier messages"
    return f"{start.date().isoformat()}..{end.date().isoformat()}"
