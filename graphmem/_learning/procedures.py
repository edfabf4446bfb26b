"""Procedures (contract §2) without I/O: tool-call trajectories, the deterministic inducer,
step placeholders and binding, the node properties written, and suggestion ranking."""

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._base import props as _props
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Episode, Procedure, Provenance, Status
from .._base.records import Row
from .prompts import ProcedureDraft

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME_JUNK = re.compile(r"[^0-9a-zA-Z]+")
_MIN_LITERAL = 4  # string values at least this long must not survive into induced steps


@dataclass(frozen=True, slots=True)
class OutcomeRow(Row):
    """A procedure after one recorded use, and whether that use demoted it to quarantined."""

    TEMPLATES = ("procedure_outcome",)
    node: dict[str, Any]
    demoted: bool


class ToolCall(BaseModel):
    """One step of a trajectory: the tool called, its arguments and what it returned."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str = Field(min_length=1)
    """The tool's name."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The arguments it was called with."""
    result: Any = None
    """What it returned (any JSON-serialisable value)."""

    def content(self) -> str:
        """The episode text this call is stored as (canonical JSON, read back by ``parse``)."""
        return json.dumps(self.model_dump(), sort_keys=True, default=str)


class SuggestedProcedure(BaseModel):
    """A procedure ``suggest_procedures`` proposes for a task, with the parts of its rank:
    ``relevance`` (similarity of the task to its text, trigger and condition, 0..1),
    ``success_rate`` (smoothed: (successes + 1) / (outcomes + 2)) and ``priority``."""

    model_config = ConfigDict(frozen=True)

    procedure: Procedure
    """The procedure proposed."""
    score: float
    """The rank: 0.6 relevance + 0.25 success rate + 0.15 a priority term in 0..1."""
    relevance: float
    success_rate: float
    quarantined: bool = False
    """True when it awaits validation (only with ``purpose="inform"``)."""


def tool_call(item: Any, field: str) -> ToolCall:
    if isinstance(item, ToolCall):
        return item
    if not isinstance(item, Mapping):
        raise InvalidInputError(field, "must be a tool call mapping {'tool', 'args', 'result'}, an Episode or an episode id")
    try:
        return ToolCall.model_validate(dict(item))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InvalidInputError(f"{field}.{where}" if where else field, err["msg"]) from None


def parse_episode(episode: Episode, field: str) -> ToolCall:
    """A tool-call episode's content back as a ``ToolCall`` (JSON written by graphmem or by
    the application); any other episode becomes a step with no arguments."""
    try:
        data = json.loads(episode.text)
    except ValueError:
        data = None
    if isinstance(data, dict) and "tool" in data:
        return tool_call(data, field)
    return ToolCall(tool=" ".join(episode.text.split()))


def split_trajectory(trajectory: Any) -> tuple[list[ToolCall], list[str]]:
    """The trajectory's tool calls, or the ids of the stored episodes that make it up (one
    of the two lists is empty)."""
    if isinstance(trajectory, (str, bytes, Mapping)) or not isinstance(trajectory, Iterable):
        raise InvalidInputError("trajectory", "must be a list of tool calls, Episodes or episode ids")
    calls: list[ToolCall] = []
    ids: list[str] = []
    for i, item in enumerate(trajectory):
        if isinstance(item, Episode):
            item = item.id
        if isinstance(item, str):
            ids.append(check.identifier(item, f"trajectory[{i}]"))
        else:
            calls.append(tool_call(item, f"trajectory[{i}]"))
    if not calls and not ids:
        raise InvalidInputError("trajectory", "is empty")
    if ids and calls:
        raise InvalidInputError("trajectory", "mixes tool calls with episodes; give one or the other")
    return calls, ids


def _name(key: str, taken: set[str]) -> str:
    base = _NAME_JUNK.sub("_", key).strip("_").lower() or "value"
    if base[0].isdigit():
        base = f"v_{base}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != ""


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def induce(calls: list[ToolCall]) -> ProcedureDraft:
    """The deterministic inducer: every scalar argument value becomes a ``{variable}``
    named after its argument; a value that recurs across steps (as an argument or in an
    earlier result) is one variable, so the steps keep their data flow."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    steps = []
    for call in calls:
        parts = []
        for key, value in call.args.items():
            if _scalar(value) or (isinstance(value, (list, dict)) and value):
                vk = _key(value)
                if vk not in names:
                    names[vk] = _name(key, taken)
                parts.append(f"{key}={{{names[vk]}}}")
            else:  # booleans, null and empty values are part of the workflow, not data
                parts.append(f"{key}={json.dumps(value, sort_keys=True, default=str)}")
        steps.append(f"{call.tool}({', '.join(parts)})")
    last = calls[-1]
    criteria = f"{last.tool} completes"
    if last.result is not None:
        shown = json.dumps(_abstract(last.result, names), sort_keys=True, default=str)
        if len(shown) <= 120:
            criteria += f" and returns {shown}"
    tools = list(dict.fromkeys(c.tool for c in calls))
    return ProcedureDraft(
        text=" -> ".join(c.tool for c in calls),
        trigger=None,
        steps=steps,
        variables=list(dict.fromkeys(names.values())),
        success_criteria=criteria if tools else None,
    )


def _abstract(value: Any, names: dict[str, str]) -> Any:
    if _scalar(value) and _key(value) in names:
        return "{" + names[_key(value)] + "}"
    if isinstance(value, dict):
        return {k: _abstract(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_abstract(v, names) for v in value]
    return value


def check_draft(draft: ProcedureDraft, calls: list[ToolCall]) -> None:
    """Reject a model's procedure that is not value-abstracted or whose placeholders and
    variables disagree (raises ValueError, so the model is asked again)."""
    if not draft.steps or not all(s.strip() for s in draft.steps):
        raise ValueError("the procedure has no steps or an empty step")
    used = {m for s in draft.steps for m in PLACEHOLDER.findall(s)}
    declared = set(draft.variables)
    if used - declared:
        raise ValueError(f"steps use undeclared variables {sorted(used - declared)}")
    in_criteria = set(PLACEHOLDER.findall(draft.success_criteria or ""))
    if in_criteria - declared:
        raise ValueError(f"success_criteria uses undeclared variables {sorted(in_criteria - declared)}")
    if declared - used:
        raise ValueError(f"variables {sorted(declared - used)} are not used by any step")
    literals = {str(v) for c in calls for v in c.args.values() if isinstance(v, str) and len(v) >= _MIN_LITERAL}
    steps = PLACEHOLDER.sub(" ", "\n".join([*draft.steps, draft.success_criteria or ""])).casefold()
    leaked = sorted(v for v in literals if re.search(rf"(?<!\w){re.escape(v.casefold())}(?!\w)", steps))
    if leaked:
        raise ValueError(f"steps keep concrete values {leaked}; replace them with variables")


def procedure_props(
    tenant: str, text: Any, *, scope: Any, trigger: Any, condition: Any, priority: Any, steps: Any,
    variables: Any, success_criteria: Any, provenance: Any, importance: Any, sensitivity: Any,
    tags: Any, id: Any,
) -> dict[str, Any]:
    """A new procedure: author-defined ones are active, machine-made ones quarantined."""
    source = check.choice(provenance, Provenance, "provenance")
    props = _props.shared(tenant, id=id, scope=scope, text=text, provenance=source,
                          status=Status.QUARANTINED if source.automatic else Status.ACTIVE,
                          sensitivity=sensitivity, importance=importance, tags=tags)
    for owner in _props.OWNERS:
        del props[owner]
    trigger = None if trigger is None else check.text(trigger, "trigger")
    condition = None if condition is None else check.text(condition, "condition")
    criteria = None if success_criteria is None else check.text(success_criteria, "success_criteria")
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise InvalidInputError("priority", f"must be an integer, got {priority!r}")
    step_list = check.texts(steps or (), "steps")
    used = list(dict.fromkeys(m for s in [*step_list, criteria or ""] for m in PLACEHOLDER.findall(s)))
    if variables is None:
        var_list = used
    else:
        var_list = check.tags(variables, "variables")
        for i, name in enumerate(var_list):
            if not PLACEHOLDER.fullmatch("{" + name + "}"):
                raise InvalidInputError(f"variables[{i}]", f"{name!r} is not a valid name (letters, digits, _)")
            if name not in used:
                raise InvalidInputError(f"variables[{i}]", f"{name!r} is not used by any step")
        for i, step in enumerate(step_list):
            for name in PLACEHOLDER.findall(step):
                if name not in var_list:
                    raise InvalidInputError(f"steps[{i}]", f"uses {{{name}}}, which is not in variables")
    props.update({
        "trigger": trigger,
        "condition": condition,
        "priority": priority,
        "steps": step_list,
        "stepsKey": check.steps_key(step_list),
        "variables": list(dict.fromkeys(var_list)),
        "successCriteria": criteria,
        "successCount": 0,
        "failureCount": 0,
    })
    return props


def bind(procedure: Procedure, values: Mapping[str, Any]) -> list[str]:
    """The procedure's steps with every ``{variable}`` replaced by its value. A missing or
    unknown variable is refused."""
    declared = list(procedure.variables)
    for name in declared:
        if name not in values or values[name] is None:
            raise InvalidInputError(name, f"is a variable of procedure {procedure.id!r} and needs a value")
    for name in values:
        if name not in declared:
            raise InvalidInputError(name, f"is not a variable of procedure {procedure.id!r} (its variables: {', '.join(declared) or 'none'})")
    return [PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), step) for step in procedure.steps]


def success_rate(procedure: Procedure) -> float:
    return (procedure.success_count + 1) / (procedure.success_count + procedure.failure_count + 2)


def rank_suggestions(results: list[Any], *, k: int, min_similarity: float) -> list[SuggestedProcedure]:
    """Rank recall results for a task: 0.6 relevance + 0.25 success rate + 0.15 priority
    (``0.5 + 0.5 tanh(priority / 5)``). A procedure with no lexical match and a cosine
    similarity below ``min_similarity`` does not match the task."""
    out = []
    for r in results:
        proc = r.record
        if not isinstance(proc, Procedure):
            continue
        cosine = 2.0 * r.parts.semantic - 1.0
        if r.parts.lexical <= 0.0 and cosine < min_similarity:
            continue
        relevance = 0.7 * max(cosine, 0.0) + 0.3 * r.parts.lexical
        rate = success_rate(proc)
        score = 0.6 * relevance + 0.25 * rate + 0.15 * (0.5 + 0.5 * math.tanh(proc.priority / 5.0))
        out.append(SuggestedProcedure(procedure=proc, score=score, relevance=relevance, success_rate=rate,
                                      quarantined=proc.status == Status.QUARANTINED))
    out.sort(key=lambda s: (-s.score, s.procedure.id))
    return out[:k]


def carried_over(old: Mapping[str, Any], now: Any) -> dict[str, Any]:
    """What a re-learned procedure keeps from the one it supersedes: outcome counts, last
    use and, if a person had validated it, its active status."""
    out: dict[str, Any] = {
        "successCount": int(old.get("successCount") or 0),
        "failureCount": int(old.get("failureCount") or 0),
        "lastUsedAt": old.get("lastUsedAt"),
    }
    validated = any("(validated" in line for line in old.get("statusLog") or [])
    if old.get("status") == Status.ACTIVE.value and validated:
        out["status"] = Status.ACTIVE.value
        out["statusChangedAt"] = now
        out["statusLog"] = [f"{now.isoformat()} quarantined -> active (validated: carried over from {old['id']}, merged)"]
    return out
