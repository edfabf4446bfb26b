"""The prompt-ready block ``context()`` renders from recall's results."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._base.errors import InvalidInputError
from .._base.kinds import REGISTRY
from .._base.models import Episode, Record
from .._base.records import Row, to_record
from . import lines
from .fusion import ScoredMemory, ScoreParts

DEFAULT_SECTIONS = ("corrections", "facts", "insights", "procedures", "episodes")
_SECTION_OF = {kind.name: kind.section for kind in REGISTRY}
SECTIONS = {kind.section: kind.title for kind in sorted(
    REGISTRY, key=lambda kind: (DEFAULT_SECTIONS.index(kind.section) if kind.section in DEFAULT_SECTIONS
                                else len(DEFAULT_SECTIONS)))}
"""Each kind's section and its heading, the default ones first (in their order), then the
rest in the registry's."""


CHARS_PER_TOKEN = 4
"""The model-independent token estimate's rule: one token per four characters."""


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: one token per four characters, rounded up."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def line(result: ScoredMemory) -> str:
    """One result as a line of the block (``_recall/lines.py``): an episode as a transcript
    line (its date and who said it), anything else with its provenance (and
    ``unvalidated`` while quarantined) before what it says; an insight's citations after it."""
    record = result.record
    if isinstance(record, Episode):
        return f"- {lines.body(record)}"
    marker = record.provenance.value + (", unvalidated" if result.quarantined else "")
    out = f"- [{marker}] {lines.body(record)}"
    if result.citations and record.kind == "insight":
        out += " [cites: " + "; ".join(lines.flat(c.text)[:80] for c in result.citations) + "]"
    return out


@dataclass(frozen=True, slots=True)
class ExchangeRow(Row):
    """A turn near an episode recall returned: the episode (``hit``), how many turns before
    (negative) or after it, and the turn's property map."""

    TEMPLATES = ("context_exchange",)
    hit: str
    offset: int
    node: dict[str, Any]


def with_exchange(results: list[ScoredMemory], rows: list[ExchangeRow], share: float) -> list[ScoredMemory]:
    """``results`` with the exchange around each episode among them (``rows`` of the
    ``context_exchange`` template: hit id, offset, record), best first. A turn of the
    exchange counts as ``share`` of its hit's score (or its own score, if higher) and only
    when someone other than the hit's speaker says a turn from the hit to it: in a
    conversation a topic one person opens ("I went to a poetry reading") is often answered
    two turns on, after the other asks; turns of one speaker in a row (a user's messages
    stored without the replies) are no exchange (docs/design-notes.md#context-exchange)."""
    if share <= 0 or not rows:
        return results
    near: dict[str, dict[int, Episode]] = {}
    for row in rows:
        record = to_record(row.node)
        if isinstance(record, Episode):
            near.setdefault(row.hit, {})[int(row.offset)] = record
    present = {r.record.id for r in results}
    own = {r.record.id: r.score for r in results}  # what recall scored
    scores = dict(own)  # raised by the exchanges
    found: dict[str, Episode] = {}  # turns of an exchange that recall did not return
    for hit in results:
        turns = near.get(hit.record.id)
        if not turns or not isinstance(hit.record, Episode):
            continue
        who = lines.speaker(hit.record)
        for offset, turn in sorted(turns.items(), key=lambda item: (item[0] < 0, abs(item[0]))):
            between = [turns.get(o) for o in ((-1,) if offset < 0 else range(1, offset + 1))]
            if not any(t is not None and lines.speaker(t) != who for t in between):
                continue  # no one else spoke: no exchange
            score = share * hit.score
            if score > scores.get(turn.id, -math.inf):
                scores[turn.id] = score
                if turn.id not in present:
                    found[turn.id] = turn
    merged = [r if r.score == scores[r.record.id] else r.model_copy(update={"score": scores[r.record.id]})
              for r in results]
    merged += [ScoredMemory.model_construct(record=turn, score=scores[i], parts=ScoreParts(), citations=(),
                                            quarantined=False, via_graph=True) for i, turn in found.items()]
    # ties (two turns of one exchange) go to the turn recall itself ranked higher, then to
    # the order found: the better hit's exchange first, the reply before the turn after it
    # and the turn before; never to ids, which differ each time a conversation is stored
    return sorted(merged, key=lambda r: (-r.score, -own.get(r.record.id, -math.inf)))


def sections(value: Iterable[str] | None) -> list[str]:
    if isinstance(value, str):
        raise InvalidInputError("sections", "must be a list of section names")
    chosen = list(DEFAULT_SECTIONS) if value is None else list(value)
    for name in chosen:
        if name not in SECTIONS:
            raise InvalidInputError("sections", f"{name!r} is not one of {', '.join(SECTIONS)}")
    return chosen


def check_budget(max_tokens: Any) -> int:
    """``max_tokens`` if it is a positive integer, else ``InvalidInputError`` naming it."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError("max_tokens", "must be a positive integer")
    return max_tokens


def render(results: list[ScoredMemory], *, max_tokens: int, order: list[str]) -> str:
    """Group results by kind into sections (in ``order``) and keep the best-scored lines
    that fit ``max_tokens`` (the whole block's ``estimate_tokens``, headings and line breaks
    included); episodes are then shown in the order they were said. The same results always
    render the same text."""
    check_budget(max_tokens)
    chosen: dict[str, list[tuple[ScoredMemory, str]]] = {name: [] for name in order}
    size = 0  # characters of the block as it would be rendered now
    for result in results:  # best first: what does not fit is the least relevant
        section = _SECTION_OF[result.record.kind]
        if section not in chosen:
            continue
        text = line(result)
        if chosen[section]:
            grown = size + 1 + len(text)  # a line break and the line
        else:  # a new section: its heading, and a blank line after the one before
            grown = size + (2 if size else 0) + len(f"## {SECTIONS[section]}\n") + len(text)
        if math.ceil(grown / CHARS_PER_TOKEN) > max_tokens:
            continue
        chosen[section].append((result, text))
        size = grown
    blocks = []
    for name, picked in chosen.items():
        if picked:
            if name == "episodes":  # what was said reads in the order it was said
                picked.sort(key=lambda pair: _said_at(pair[0].record))
            blocks.append(f"## {SECTIONS[name]}\n" + "\n".join(text for _, text in picked))
    return "\n\n".join(blocks)


def _said_at(record: Record) -> tuple[datetime, str, str]:
    episode = record if isinstance(record, Episode) else None
    moment = (episode.occurred_at if episode else None) or record.created_at
    return moment, record.session_id or "", record.id
