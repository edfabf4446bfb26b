"""Conversion between Neo4j node maps (camelCase properties) and graphmem's models."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, TypeVar

from neo4j.graph import Node

from .models import Correction, Decision, Entity, Episode, Fact, Insight, Note, Procedure, Record, Summary, Supersession

_KINDS: dict[str, type[Record]] = {
    "fact": Fact, "episode": Episode, "entity": Entity, "insight": Insight, "procedure": Procedure,
    "correction": Correction, "decision": Decision, "note": Note, "summary": Summary,
}

# Neo4j property -> model field, where the two differ.
_FIELDS = {
    "createdAt": "created_at",
    "invalidatedAt": "invalidated_at",
    "invalidationReason": "invalidation_reason",
    "userId": "user_id",
    "agentId": "agent_id",
    "sessionId": "session_id",
    "validFrom": "valid_from",
    "validTo": "valid_to",
    "singleValued": "single_valued",
    "validFromStated": "valid_from_stated",
    "subjectName": "subject_name",
    "objectName": "object_name",
    "observedFrom": "observed_from",
    "occurredAt": "occurred_at",
    "successCriteria": "success_criteria",
    "successCount": "success_count",
    "failureCount": "failure_count",
    "lastUsedAt": "last_used_at",
    "statusChangedAt": "status_changed_at",
    "statusLog": "status_log",
    "lastCorroboratedAt": "last_corroborated_at",
    "originalValue": "original_value",
    "correctedValue": "corrected_value",
    "entityKey": "entity_key",
    "originalInput": "original_input",
    "runId": "run_id",
    "decisionType": "decision_type",
    "outcomeAt": "outcome_at",
    "outcomeLog": "outcome_log",
    "coversFrom": "covers_from",
    "coversTo": "covers_to",
    "refersTo": "refers_to",
}
_INTERNAL = {"lexKey", "textKey", "nameKey", "aliasKeys", "closedAt", "propertiesJson", "kind", "stepsKey"}
_PROPERTY = {field: prop for prop, field in _FIELDS.items()}
# each kind's (property, model field) pairs, looked up once: recall builds some twenty
# records per call from maps that name every kind's properties, most of them null
_MODEL_PROPERTIES = {
    kind: tuple((_PROPERTY.get(field, field), field) for field in cls.model_fields
                if _PROPERTY.get(field, field) not in _INTERNAL)
    for kind, cls in _KINDS.items()
}


_PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Neo4j values to plain Python, recursively: temporal values to datetimes, nodes to
    their property maps. (Dispatched on the exact type first: recall converts some
    thousand values per call, nearly all of them plain.)"""
    if type(value) in _PLAIN or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, list):
        return [v if type(v) in _PLAIN else native(v) for v in value]
    if isinstance(value, (dict, Node)):
        return {k: v if type(v) in _PLAIN else native(v) for k, v in value.items()}
    if hasattr(value, "to_native"):
        return value.to_native()
    return value


def row(record: Any) -> dict[str, Any]:
    """One driver record as a plain dict (a single pass; ``Record.data()`` would walk the
    values once more)."""
    return {key: value if type(value) in _PLAIN else native(value) for key, value in record.items()}


R = TypeVar("R", Fact, Episode, Entity, Insight, Procedure, Correction, Decision, Note, Summary)


def record_of(kind: type[R], node: dict[str, Any], *, superseded_by: list[dict[str, Any]] | None = None) -> R:
    """``to_record`` for a node known to be of ``kind`` (a template that matched its label)."""
    record = to_record(node, superseded_by=superseded_by)
    if not isinstance(record, kind):
        raise TypeError(f"expected a {kind.__name__} record, got a {record.kind}")
    return record


def to_record(node: dict[str, Any], *, superseded_by: list[dict[str, Any]] | None = None) -> Record:
    """Build the model for a node map returned by a template (``kind`` names the model)."""
    kind = node["kind"]
    cls = _KINDS[kind]
    data: dict[str, Any] = {"kind": kind}
    for prop, field in _MODEL_PROPERTIES[kind]:
        value = node.get(prop)
        if value is not None:
            data[field] = value if type(value) in _PLAIN else native(value)
    if "cites" in data:
        data["cites"] = tuple(sorted(data["cites"]))
    if kind == "entity" and node.get("propertiesJson"):
        data["properties"] = json.loads(node["propertiesJson"])
    if superseded_by:
        data["superseded_by"] = tuple(
            Supersession(by=s["by"], reason=s["reason"], at=native(s["at"]), note=s.get("note"))
            for s in superseded_by if s.get("by")
        )
    return cls.model_validate(data)


def json_default(value: Any) -> Any:
    """What ``json.dumps`` cannot encode by itself: dates and times as ISO-8601 text, sets
    and tuples as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__}")
