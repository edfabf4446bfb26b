"""The prompts graphmem sends to chat models, and the pydantic schemas of their answers."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from .profile import ProfileDraft

if TYPE_CHECKING:  # insights imports this module's drafts
    from .insights import EvidenceRow


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


def evidence_block(rows: list[EvidenceRow]) -> str:
    lines = []
    for row in rows:
        when: object = row.at
        stamp = when.date().isoformat() if isinstance(when, datetime) else (
            when.isoformat() if isinstance(when, date) else "")
        lines.append(f"[{row.id}] ({row.kind}, {stamp}) {' '.join(row.text.split())}")
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


class EntityDraft(BaseModel):
    """A person, organisation, place, product... mentioned in the messages."""

    name: str = Field(description="the name as used in the conversation; reuse a known entity's exact name")
    type: str = Field(description="person, organization, place, product, project, event, ...")
    aliases: list[str] = Field(default_factory=list, description="other names used for it in these messages")


class FactDraft(BaseModel):
    """One statement the messages make about an entity."""

    subject: str = Field(description="name of the entity the fact is about (one of the entities)")
    predicate: str = Field(description="short attribute or relation in snake_case, e.g. lives_in, works_at, likes")
    object: str | None = Field(default=None, description="the value, or the name of another entity")
    object_is_entity: bool = Field(default=False, description="true when object names one of the entities")
    text: str = Field(description="the fact as a standalone sentence with names, no pronouns")
    single_valued: bool | None = Field(default=None, description="true if the subject has one value at a time (lives_in), false if many (likes)")
    valid_from: str | None = Field(default=None, description="when it became true, copied verbatim from the message ('yesterday', 'in 2019')")
    valid_to: str | None = Field(default=None, description="when it stopped being true, copied verbatim, if said")
    corrects: bool = Field(default=False, description="true when the speaker says an earlier statement was wrong (not a change in the world)")
    replaces: bool = Field(default=False, description="true when the statement replaces an earlier value: 'now prefers', 'switched to', 'no longer'")
    messages: list[int] = Field(default_factory=list, description="numbers of the messages that state it")


class Extraction(BaseModel):
    """Entities and facts stated in the messages (relations are facts whose object is an entity)."""

    entities: list[EntityDraft] = Field(description="every entity the facts mention")
    facts: list[FactDraft] = Field(description="the statements; empty when the messages state nothing lasting")
    profile: ProfileDraft | None = Field(default=None, description="what the user states about themself "
                                         "(name, role, time zone, language, location, other lasting facts); "
                                         "leave out what they do not say")


class Verdict(BaseModel):
    pair: int = Field(description="the pair number")
    contradicts: bool = Field(description="true when both cannot be true at the same time")


class Judgement(BaseModel):
    """For each numbered pair of statements about one subject: do they contradict?"""

    verdicts: list[Verdict]


EXTRACT_SYSTEM = (
    "You extract lasting knowledge from a conversation for an AI agent's long-term memory. "
    "List the entities mentioned and the facts stated about them: who lives, works, likes, "
    "owns or plans what. Use the known entities' exact names when the messages refer to them. "
    "Copy time expressions verbatim ('yesterday', 'last March'); do not compute dates. Mark "
    "a fact 'corrects' only when the speaker says an earlier statement was wrong, and "
    "'replaces' when it says a value changed ('now prefers', 'switched to', 'no longer'). Number "
    "the source messages of each fact. When the user says who they are (name, role, time zone, "
    "language, location), fill 'profile' too. Extract nothing from small talk."
)

JUDGE_SYSTEM = (
    "Each numbered pair holds an existing statement and a new one about the same subject. "
    "Say for each pair whether they contradict each other: both cannot be true at the same "
    "time. A change over time is not a contradiction only if the new one says it changed."
)


def messages_block(rows: list[tuple[str, str]]) -> str:
    return "\n".join(f"{i}. {role}: {' '.join(text.split())}" for i, (role, text) in enumerate(rows, 1))
