"""The prompts graphmem sends to chat models, and the pydantic schemas of their answers."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field


class InsightDraft(BaseModel):
    """One higher-order observation and the evidence ids it rests on."""

    text: str = Field(description="the observation, one or two sentences")
    cites: list[str] = Field(description="ids of the memories (from the list given) that support it")
    importance: float | None = Field(default=None, description="0..1, how useful this is for future turns")


class Reflection(BaseModel):
    """Observations that follow from the memories shown, each with its evidence."""

    insights: list[InsightDraft] = Field(description="the observations; an empty list when nothing follows")


class ProcedureDraft(BaseModel):
    """A reusable workflow abstracted from one successful trajectory."""

    text: str = Field(description="what the procedure achieves, one sentence")
    trigger: str | None = Field(default=None, description="the kind of task it applies to")
    steps: list[str] = Field(description="ordered steps, concrete values replaced by {variable} placeholders")
    variables: list[str] = Field(description="the placeholder names used in the steps")
    success_criteria: str | None = Field(default=None, description="how to tell the procedure succeeded")


REFLECT_SYSTEM = (
    "You maintain the long-term memory of an AI agent. From the memories below, write at most "
    "{max_insights} higher-order observations (patterns, preferences, lasting conclusions) that "
    "are not already stated by a single memory. Every observation must cite the ids of the "
    "memories it rests on, copied exactly from the list. Cite nothing that is not listed. "
    "Write no observation you cannot support."
)

INDUCE_SYSTEM = (
    "You turn a successful agent trajectory (ordered tool calls with arguments and results) "
    "into a reusable procedure. Replace every concrete value (names, ids, quantities, "
    "queries) with a {variable} placeholder, list the variables, and state how success is "
    "recognised. Keep the steps in order, one action per step."
)


def evidence_block(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        when = row.get("at")
        stamp = when.date().isoformat() if hasattr(when, "date") else ""
        lines.append(f"[{row['id']}] ({row['kind']}, {stamp}) {' '.join(row['text'].split())}")
    return "\n".join(lines)


def trajectory_block(calls: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{i}. {call['tool']} {json.dumps(call['args'], sort_keys=True, default=str)}"
        f" -> {json.dumps(call.get('result'), sort_keys=True, default=str)}"
        for i, call in enumerate(calls, 1)
    )


def json_instructions(schema: type[BaseModel]) -> str:
    """For models without tool calling: answer with one JSON object fitting the schema."""
    return (
        "Answer with one JSON object and nothing else. It must validate against this JSON "
        f"schema:\n{json.dumps(schema.model_json_schema(), sort_keys=True)}"
    )
