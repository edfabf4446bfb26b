"""The decision log (contract §10) without I/O: the properties of a ``:Decision``, tool
calls as decisions, outcomes and the quality summary."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base import props as _props
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Provenance, Status
from .._base.records import Row

QUALITIES = ("good", "bad", "neutral")
GROUPS = ("decision_type", "agent")
TOOL_CALL = "tool_call"


@dataclass(frozen=True, slots=True)
class QualityRow(Row):
    """One group's believed decisions (a decision type or an agent; None: not given) and
    how many outcomes were judged good, bad and neutral."""

    TEMPLATES = ("decision_quality",)
    key: str | None
    decisions: int
    good: int
    bad: int
    neutral: int


class DecisionQuality(BaseModel):
    """How one group's decisions turned out: ``bad_share`` is bad outcomes over decisions
    with an outcome (None while none has one)."""

    model_config = ConfigDict(frozen=True)

    key: str | None
    """The group: a decision type or an agent (None: not given)."""
    decisions: int
    """Decisions in the group."""
    with_outcome: int
    """Of them, with an outcome recorded."""
    good: int
    """Outcomes judged good."""
    bad: int
    """Outcomes judged bad."""
    neutral: int
    """Outcomes judged neutral."""
    bad_share: float | None


def decision_props(
    tenant: str, agent: Any, decision: Any, *, reasoning: Any, decision_type: Any, context: Any,
    alternatives: Any, confidence: Any, importance: Any, session_id: Any, user_id: Any, scope: Any,
) -> _props.Props:
    """A new decision: provenance manual (the application's own record of what its agent
    did), active, no outcome yet."""
    props = _props.shared(tenant, id=None, scope=scope, text=decision, text_field="decision",
                          provenance=Provenance.MANUAL, status=Status.ACTIVE, importance=importance,
                          user_id=user_id, agent_id=check.identifier(agent, "agent"), session_id=session_id)
    if isinstance(alternatives, (str, bytes, Mapping)):
        raise InvalidInputError("alternatives", "must be a list of texts")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                   or not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0):
        raise InvalidInputError("confidence", f"must be a number from 0 to 1, got {confidence!r}")
    props.update({
        "reasoning": check.text(reasoning, "reasoning"),
        "decisionType": check.identifier(decision_type, "decision_type"),
        "context": None if context is None else check.text(context, "context"),
        "alternatives": [check.text(a, f"alternatives[{i}]") for i, a in enumerate(alternatives or ())],
        "confidence": None if confidence is None else float(confidence),
        "outcomeLog": [],
    })
    return props


def tool_call(tool: Any, args: Any, result: Any) -> tuple[str, str | None]:
    """A tool call as a decision's text (``tool(args as JSON)``) and context (its result)."""
    name = check.identifier(tool, "tool")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise InvalidInputError("args", "must be a mapping of argument names to values")
    text = f"{name}({json.dumps(dict(args), sort_keys=True, default=str)})"
    context = None if result is None else (result if isinstance(result, str) else json.dumps(result, sort_keys=True, default=str))
    return text, context or None


def quality(value: Any) -> str:
    if value not in QUALITIES:
        raise InvalidInputError("quality", f"{value!r} is not one of {', '.join(repr(q) for q in QUALITIES)}")
    return str(value)


def outcome_entry(at: datetime, quality: str, outcome: str) -> str:
    return f"{at.isoformat()} {quality}: {outcome}"


def limit(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
        raise InvalidInputError("limit", f"must be an integer from 1 to 10,000, got {value!r}")
    return value


def group(value: Any) -> str:
    if value not in GROUPS:
        raise InvalidInputError("by", f"{value!r} is not one of {', '.join(repr(g) for g in GROUPS)}")
    return str(value)


def summary(rows: Iterable[QualityRow]) -> list[DecisionQuality]:
    out = []
    for r in rows:
        judged = r.good + r.bad + r.neutral
        out.append(DecisionQuality(key=r.key, decisions=r.decisions, with_outcome=judged, good=r.good,
                                   bad=r.bad, neutral=r.neutral, bad_share=r.bad / judged if judged else None))
    return out
