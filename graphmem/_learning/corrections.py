"""Corrections of agent output (contract §10) without I/O: the properties of a
``:Correction``, the relevance floor for finding them, regression cases and counts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base import props as _props
from .._base import validate as check
from .._base.models import Correction, Provenance, Status
from .._base.records import Row
from .._recall.fusion import ScoredMemory

MIN_RELEVANCE = 0.35
"""The relevance floor of ``corrections(query)``: a correction with no full-text match on
the query and a cosine similarity below this is not relevant (docs/learning.md#corrections)."""

CONTRADICTABLE = ["fact", "insight", "procedure"]
"""The kinds a correction can contradict: claims. Episodes record what happened, entities
name things, corrections and decisions are a person's or an agent's own record."""


@dataclass(frozen=True, slots=True)
class CorrectionStatsRow(Row):
    """How many believed corrections one (entity key, field) pair received (None: recorded
    without one)."""

    TEMPLATES = ("correction_stats",)
    entity_key: str | None
    field: str | None
    n: int


class CorrectionStats(BaseModel):
    """How many corrections an agent received, by entity key and by field (``None`` counts
    those recorded without one)."""

    model_config = ConfigDict(frozen=True)

    total: int = 0
    """Corrections counted."""
    by_entity_key: dict[str | None, int] = {}
    """Counts per entity key."""
    by_field: dict[str | None, int] = {}
    """Counts per corrected field."""


class EvalCase(BaseModel):
    """A regression case for the agent: given ``input`` it should produce ``expected``."""

    model_config = ConfigDict(frozen=True)

    input: str
    expected: str
    field: str | None = None
    correction_id: str


def _optional_text(value: Any, field: str) -> str | None:
    return None if value is None else check.text(value, field)


def correction_props(
    tenant: str, agent: Any, original_value: Any, corrected_value: Any, *, field: Any, reason: Any,
    entity_key: Any, original_input: Any, run_id: Any, session_id: Any, user_id: Any, scope: Any,
    importance: Any = None,
) -> _props.Props:
    """A new correction: provenance human-correction, active, its text the corrected value
    (what it is embedded as, so it meets the records that say otherwise)."""
    agent_id = check.identifier(agent, "agent")
    original = check.text(original_value, "original_value")
    props = _props.shared(tenant, id=None, scope=scope, text=corrected_value, text_field="corrected_value",
                          provenance=Provenance.HUMAN_CORRECTION, status=Status.ACTIVE, importance=importance,
                          user_id=user_id, agent_id=agent_id, session_id=session_id)
    props.update({
        "originalValue": original,
        "correctedValue": props["text"],
        "field": None if field is None else check.name(field, "field"),
        "reason": _optional_text(reason, "reason"),
        "entityKey": None if entity_key is None else check.name(entity_key, "entity_key"),
        "originalInput": _optional_text(original_input, "original_input"),
        "runId": check.identifier(run_id, "run_id", allow_none=True),
    })
    return props


def since(value: Any) -> datetime | None:
    return check.instant(value, "since")


def relevant(results: Iterable[ScoredMemory], *, agent: str | None, entity_key: str | None,
             since_t: datetime | None, k: int, floor: float = MIN_RELEVANCE) -> list[Correction]:
    """Recall's corrections that pass the filters and the relevance floor, best first."""
    out = []
    for result in results:
        record = result.record
        if not isinstance(record, Correction):
            continue
        if agent is not None and record.agent_id != agent:
            continue
        if entity_key is not None and record.entity_key != entity_key:
            continue
        if since_t is not None and record.created_at < since_t:
            continue
        cosine = 2.0 * result.parts.semantic - 1.0
        if result.parts.lexical <= 0.0 and cosine < floor:
            continue
        out.append(record)
    return out[:k]


def eval_cases(corrections: Iterable[Correction]) -> list[dict[str, Any]]:
    return [
        EvalCase(input=c.original_input, expected=c.corrected_value, field=c.field, correction_id=c.id).model_dump()
        for c in corrections if c.original_input is not None
    ]


def stats(rows: Iterable[CorrectionStatsRow]) -> CorrectionStats:
    by_key: dict[str | None, int] = {}
    by_field: dict[str | None, int] = {}
    total = 0
    for r in rows:
        n = int(r.n)
        total += n
        by_key[r.entity_key] = by_key.get(r.entity_key, 0) + n
        by_field[r.field] = by_field.get(r.field, 0) + n
    return CorrectionStats(total=total, by_entity_key=by_key, by_field=by_field)
