"""Session summaries without I/O: which messages a new summary covers, the prompt and the
schema of the model's answer, and the properties of the ``:Summary`` node (contract §10).
A summary CITES every episode it covers, so each one can be traced to its messages; at
most ``max_count`` are current per session: at the limit the two oldest are folded into
one that cites all their episodes and supersedes both (reason ``folded``), so nothing is
lost. The I/O is in ``_async/summaries.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from .._base import props as _props
from .._base import validate as check
from .._base.models import Episode, Provenance, Summary

DEFAULT_WINDOW = 20
DEFAULT_MAX_COUNT = 5
MAX_SUMMARY_LENGTH = 8_000
_MESSAGE_CHARS = 4_000  # of one message shown to the model


class SummaryDraft(BaseModel):
    """A summary of conversation messages, and, when asked, two older summaries merged."""

    text: str = Field(description="the summary of the new messages: who said what that matters later, "
                                  "decisions, facts about the user, open questions")
    folded: str | None = Field(default=None, description="only when two earlier summaries are given: one "
                                                         "summary that keeps everything important from both")


SUMMARIZE_SYSTEM = (
    "You keep the long-term memory of an AI assistant. Summarise the conversation messages "
    "below in at most {words} words: facts about the user, decisions, commitments, names, "
    "dates and open questions that later turns may need. Write plain prose in the third "
    "person, without greetings or filler, and invent nothing that the messages do not say."
)
FOLD_INSTRUCTION = (
    "Also merge the two earlier summaries given below into one text of at most {words} "
    "words in the field 'folded', oldest events first, keeping every fact that matters."
)


def uncovered(messages: list[Episode], window: int, covered: set[str]) -> list[Episode]:
    """The messages older than the newest ``window`` that no current summary cites yet."""
    overflow = messages[:-window] if len(messages) > window else []
    return [m for m in overflow if m.id not in covered]


def prompt(new: list[Episode], fold: list[Summary], *, words: int = 200) -> list[tuple[str, str]]:
    system = SUMMARIZE_SYSTEM.format(words=words)
    if fold:
        system += " " + FOLD_INSTRUCTION.format(words=words)
    lines = []
    for m in new:
        when = f"[{m.occurred_at.isoformat()}] " if m.occurred_at else ""
        text = " ".join(m.text.split())[:_MESSAGE_CHARS]
        lines.append(f"{when}{m.role}: {text}")
    user = "Messages:\n" + "\n".join(lines)
    if fold:
        user += "\n\nEarlier summaries to merge:\n" + "\n\n".join(f"- {s.text}" for s in fold)
    return [("system", system), ("human", user)]


def check_draft(draft: SummaryDraft, *, fold: bool) -> None:
    """Reject (so the call is retried) an empty summary, or a missing merge when asked."""
    if not draft.text.strip():
        raise ValueError("the summary is empty")
    if fold and not (draft.folded or "").strip():
        raise ValueError("the two earlier summaries were not merged into 'folded'")


def props(tenant: str, text: str, *, scope: str, session_id: str, covers: list[Any]) -> _props.Props:
    """The node properties of a summary covering episodes (or earlier summaries) ``covers``:
    who the session belongs to comes from what it covers, so erasing a user removes it."""
    users = {c.user_id for c in covers}
    agents = {c.agent_id for c in covers}
    out = _props.shared(
        tenant, id=None, scope=scope, text=text[:MAX_SUMMARY_LENGTH], provenance=Provenance.EXTRACTION,
        session_id=session_id, sensitivity=_most_sensitive(covers),
        user_id=users.pop() if len(users) == 1 else None, agent_id=agents.pop() if len(agents) == 1 else None,
    )
    # normalised to a fixed UTC offset (a value read back may carry a named zone)
    out["coversFrom"] = check.instant(min(_start(c) for c in covers), "covers_from")
    out["coversTo"] = check.instant(max(_end(c) for c in covers), "covers_to")
    return out


def _start(record: Any) -> datetime:
    if isinstance(record, Summary) and record.covers_from is not None:
        return record.covers_from
    moment: datetime = record.occurred_at or record.created_at
    return moment


def _end(record: Any) -> datetime:
    if isinstance(record, Summary) and record.covers_to is not None:
        return record.covers_to
    moment: datetime = record.occurred_at or record.created_at
    return moment


def _most_sensitive(records: list[Any]) -> str:
    level: str = max((r.sensitivity for r in records), key=lambda s: s.level).value
    return level
