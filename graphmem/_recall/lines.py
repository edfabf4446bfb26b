"""How one record reads in an agent's prompt: the same words in ``context()``,
``context_for_turn()``, the MCP tools and the LangChain tools (docs/recall.md#the-prompt-block).

An episode names who said it and when, as a transcript does: ``2023-05-08 Deborah: I went
to a yoga retreat in Bali.`` (the speaker's name, else the role: ``user``, ``assistant``,
``tool``). A fact reads as its statement, its subject named as people know it rather than by
an entity id, and when it holds. Nothing here does I/O."""

from __future__ import annotations

from datetime import datetime

from .._base.models import Correction, Decision, Episode, Fact, MemoryRecord


def flat(text: str) -> str:
    """``text`` on one line (runs of whitespace, newlines included, as one space)."""
    return " ".join(text.split())


def day(moment: datetime | None) -> str:
    """A moment's date as YYYY-MM-DD (UTC, as graphmem stores it), or "" without one."""
    return moment.date().isoformat() if moment is not None else ""


def speaker(episode: Episode) -> str:
    """Who said an episode: the speaker's name when the message carried one, else its role."""
    return flat(episode.speaker or "") or episode.role


def said(episode: Episode, limit: int | None = None) -> str:
    """An episode as a transcript line: its date, who said it, and what was said (at most
    ``limit`` characters of it, cut with "..."). A text that already opens with the
    speaker's name ("Deborah: ...", as chat exports and some benchmarks write a turn) is
    not prefixed with it a second time."""
    who = speaker(episode)
    text = flat(episode.text)
    if text.startswith(f"{who}:"):
        text = text[len(who) + 1:].lstrip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 3] + "..."
    when = day(episode.occurred_at or episode.created_at)
    return f"{when} {who}: {text}" if when else f"{who}: {text}"


def statement(fact: Fact) -> str:
    """A fact's text with its subject and object named as people know them: an entity id the
    text repeats is replaced by the entity's name."""
    text = flat(fact.text)
    for value, name in ((fact.subject, fact.subject_name), (fact.object, fact.object_name)):
        if value and name and value != name and value in text:
            text = text.replace(value, flat(name))
    return text


def triple(fact: Fact) -> str | None:
    """A structured fact's subject, predicate and object with entities by name, or None."""
    if not (fact.subject and fact.predicate):
        return None
    subject = fact.subject_name or fact.subject
    target = fact.object_name or fact.object
    return f"{flat(subject)} {fact.predicate} {flat(target or '')}".rstrip()


def validity(record: MemoryRecord) -> str:
    """When a fact holds, in words a model reads right: a stated interval ("valid
    2023-03-01..2024-01-01"), a stated start ("since 2023-03-01"), a statement only noted at
    a time ("noted 2026-11-30"), an end with an unknown start ("until 2026-10-01"); "" for
    other kinds (an episode's date opens its line)."""
    if not isinstance(record, Fact):
        return ""
    start, end = day(record.valid_from) or None, day(record.valid_to) or None
    if start is None:
        return f"until {end}" if end else ""
    if end is not None:
        return f"valid {start}..{end}"
    return f"since {start}" if record.valid_from_stated else f"noted {start}"


def body(record: MemoryRecord) -> str:
    """What a record's line says: an episode as a transcript line, a fact as its statement
    and validity, a correction what was wrong, a decision its outcome, anything else its
    text."""
    if isinstance(record, Episode):
        return said(record)
    if isinstance(record, Fact):
        held = validity(record)
        return statement(record) + (f" ({held})" if held else "")
    if isinstance(record, Correction):
        what = f"{record.field}: " if record.field else ""
        return flat(f"{what}not {record.original_value!r} but {record.corrected_value!r}" + (
            f" ({record.reason})" if record.reason else ""))
    if isinstance(record, Decision) and record.outcome is not None:
        return f"{flat(record.text)} -> {record.quality}: {flat(record.outcome)}"
    return flat(record.text)
