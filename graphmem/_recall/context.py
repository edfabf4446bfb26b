"""The prompt-ready block ``context()`` renders from recall's results."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .._base.errors import InvalidInputError
from .._base.models import Correction, Decision, Episode, Fact, Record
from .fusion import ScoredMemory

SECTIONS = {"corrections": "Corrections", "facts": "Facts", "insights": "Insights", "procedures": "Procedures",
            "episodes": "Recent episodes", "entities": "Entities", "decisions": "Decisions", "notes": "Core notes",
            "summaries": "Summaries"}
DEFAULT_SECTIONS = ("corrections", "facts", "insights", "procedures", "episodes")
_SECTION_OF = {"fact": "facts", "insight": "insights", "procedure": "procedures", "episode": "episodes",
               "entity": "entities", "correction": "corrections", "decision": "decisions", "note": "notes",
               "summary": "summaries"}


CHARS_PER_TOKEN = 4
"""The model-independent token estimate's rule: one token per four characters."""


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: one token per four characters, rounded up."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def _validity(record: Record) -> str:
    """When a record holds, in words a model reads right: a stated interval ("valid
    2023-03-01..2024-01-01", "since 2023-03-01"), a statement only noted at a time ("noted
    2026-11-30"), an end with an unknown start ("until 2026-10-01"), or an episode's date."""
    if isinstance(record, Fact):
        start = record.valid_from.date().isoformat() if record.valid_from else None
        end = record.valid_to.date().isoformat() if record.valid_to else None
        if start is None:
            return f" (until {end})" if end else ""
        if end is not None:
            return f" (valid {start}..{end})"
        return f" (since {start})" if record.valid_from_stated else f" (noted {start})"
    occurred = getattr(record, "occurred_at", None)
    return f" ({occurred.date().isoformat()})" if occurred else ""


def _shown(record: Record) -> str:
    """What a line says: a correction names what was wrong, a decision its outcome."""
    if isinstance(record, Correction):
        what = f"{record.field}: " if record.field else ""
        return f"{what}not {record.original_value!r} but {record.corrected_value!r}" + (
            f" ({record.reason})" if record.reason else "")
    if isinstance(record, Decision) and record.outcome is not None:
        return f"{record.text} -> {record.quality}: {record.outcome}"
    return record.text


def line(result: ScoredMemory) -> str:
    record = result.record
    # an episode is labelled by who spoke (its provenance says user or manual for everyone else)
    source = record.role if isinstance(record, Episode) else record.provenance.value
    marker = source + (", unvalidated" if result.quarantined else "")
    text = " ".join(_shown(record).split())
    out = f"- [{marker}] {text}{_validity(record)}"
    if result.citations and record.kind == "insight":
        out += " [cites: " + "; ".join(" ".join(c.text.split())[:80] for c in result.citations) + "]"
    return out


def sections(value: Iterable[str] | None) -> list[str]:
    if isinstance(value, str):
        raise InvalidInputError("sections", "must be a list of section names")
    chosen = list(DEFAULT_SECTIONS) if value is None else list(value)
    for name in chosen:
        if name not in SECTIONS:
            raise InvalidInputError("sections", f"{name!r} is not one of {', '.join(SECTIONS)}")
    return chosen


def render(results: list[ScoredMemory], *, max_tokens: int, order: list[str]) -> str:
    """Group results by kind into sections (in ``order``) and keep the best-scored lines
    that fit ``max_tokens``; the same results always render the same text."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError("max_tokens", "must be a positive integer")
    chosen: dict[str, list[str]] = {name: [] for name in order}
    used = 0
    for result in results:  # best first: what does not fit is the least relevant
        section = _SECTION_OF[result.record.kind]
        if section not in chosen:
            continue
        text = line(result)
        # each piece is costed with its separator, so the sum bounds the whole block
        cost = estimate_tokens(text + "\n")
        if not chosen[section]:
            cost += estimate_tokens(f"## {SECTIONS[section]}\n\n\n")
        if used + cost > max_tokens:
            continue
        chosen[section].append(text)
        used += cost
    blocks = [f"## {SECTIONS[name]}\n" + "\n".join(lines) for name, lines in chosen.items() if lines]
    return "\n\n".join(blocks)
