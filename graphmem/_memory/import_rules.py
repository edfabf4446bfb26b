"""What an imported node or edge may hold: every property checked as the writes check it,
and the properties graphmem derives recomputed for the importing tenant (no I/O).

An export file is data from outside, so ``import_records`` trusts none of it: a property
graphmem does not write is refused, a value graphmem would refuse from ``remember`` (a
control character in a name, a lone surrogate, a 10 MB text, a NaN in a vector) is refused with the field that holds it,
and what graphmem derives (the tenant's full-text key ``lexKey``, the normalised ``textKey``,
an entity's lookup keys, a fact's ``subjectKey``, a procedure's ``stepsKey``) is computed
again from the record's own text, never taken from the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.kinds import KIND
from .._base.models import Provenance, Sensitivity, Status
from . import embedded, entities, store
from .episodes import ROLES

Checker = Callable[[Any, str], Any]

DERIVED = frozenset({"tenant", "lexKey", "textKey", "nameKey", "aliasKeys", "foldKeys", "subjectKey", "stepsKey"})
"""Properties computed from others: dropped from the file and computed again."""


def _text(value: Any, field: str) -> str:
    return check.text(value, field)


def _name(value: Any, field: str) -> str:
    return check.name(value, field)


def _instant(value: Any, field: str) -> Any:
    return check.instant(value, field, allow_none=False)


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(field, f"must be true or false, got {value!r}")
    return value


def _integer(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 2**53:
        raise InvalidInputError(field, f"must be an integer, got {value!r}")
    return value


def _count(value: Any, field: str) -> int:
    return check.count(_integer(value, field), field, least=0)


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(field, f"must be a finite number, got {value!r}")
    return float(value)


def _positive(value: Any, field: str) -> float:
    number = _number(value, field)
    if number <= 0:
        raise InvalidInputError(field, f"must be a positive number, got {value!r}")
    return number


def _unit(value: Any, field: str) -> float:
    return check.unit_interval(_number(value, field), field, 0.0)


def _ident(value: Any, field: str) -> str:
    return check.identifier(value, field)


def _choice(allowed: tuple[str, ...]) -> Checker:
    def checked(value: Any, field: str) -> str:
        if value not in allowed:
            raise InvalidInputError(field, f"{value!r} is not one of {', '.join(allowed)}")
        return str(value)
    return checked


def _predicate(value: Any, field: str) -> str:
    normal = check.predicate(value, field)
    if normal != value:
        raise InvalidInputError(field, f"{value!r} is not a stored predicate (graphmem stores {normal!r})")
    return str(normal)


def _properties(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(field, "must be the entity's properties as JSON text")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(field, f"is not JSON: {exc.msg} at position {exc.pos}") from None
    return check.properties_json(parsed, field)


def _value_json(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(field, "must be the item's value as JSON text")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(field, f"is not JSON: {exc.msg} at position {exc.pos}") from None
    try:
        return store.value_json(parsed)
    except InvalidInputError as exc:
        raise InvalidInputError(field + exc.field[len("value"):], exc.message) from None


def _instants(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInputError(field, "must be a list of datetimes")
    return [_instant(v, f"{field}[{i}]") for i, v in enumerate(value)]


def _offsets(value: Any, field: str) -> list[int]:
    if not isinstance(value, list):
        raise InvalidInputError(field, "must be a list of character offsets")
    return [_count(v, f"{field}[{i}]") for i, v in enumerate(value)]


def _strings(value: Any, field: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidInputError(field, "must be a list of strings")
    return check.tags(value, field)


def _texts(value: Any, field: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidInputError(field, "must be a list of texts")
    return check.texts(value, field)


_ENUMS = {
    "provenance": tuple(p.value for p in Provenance),
    "status": tuple(s.value for s in Status),
    "sensitivity": tuple(s.value for s in Sensitivity),
}

NODE_RULES: dict[str, Checker] = {
    **{key: _ident for key in ("id", "userId", "agentId", "sessionId", "subject", "type", "decisionType", "runId",
                               "owner", "label")},
    # free text, kept as given, and names, which refuse control characters, as the writes check them
    **{key: _text for key in ("reasoning", "context", "originalValue", "correctedValue", "reason", "originalInput",
                              "trigger", "condition", "successCriteria", "outcome", "invalidationReason")},
    **{key: _name for key in ("objectName", "subjectName", "field", "entityKey", "source", "quality")},
    **{key: _instant for key in ("createdAt", "invalidatedAt", "validFrom", "validTo", "closedAt", "observedFrom",
                                 "occurredAt", "lastUsedAt", "statusChangedAt", "promotedAt", "outcomeAt",
                                 "lastCorroboratedAt", "embeddingRemovedAt", "coversFrom", "coversTo",
                                 "storeCreatedAt")},
    **{key: _strings for key in ("tags", "aliases", "variables")},
    **{key: _texts for key in ("steps", "alternatives", "outcomeLog", "statusLog")},
    **{key: _choice(allowed) for key, allowed in _ENUMS.items()},
    "scope": lambda value, field: scopes.check_path(value, field),
    "name": lambda value, field: check.name(value, field, limit=entities.MAX_NAME_LENGTH),
    "speaker": lambda value, field: check.name(value, field, limit=entities.MAX_NAME_LENGTH),
    "refersTo": _instants,
    "object": lambda value, field: check.literal(value, field),
    "predicate": _predicate,
    "role": _choice(ROLES),
    "embeddedFrom": _choice((embedded.TEXT_ONLY,)),
    "singleValued": _flag,
    "validFromStated": _flag,
    "salience": _integer,
    "priority": _integer,
    "successCount": _count,
    "failureCount": _count,
    "position": _count,
    "importance": _unit,
    "confidence": _unit,
    "storeTtl": _positive,
    "storeKey": lambda value, field: store.check_key(value),
    "valueJson": _value_json,
    "propertiesJson": _properties,
}
"""Every property graphmem writes on a memory node (but ``text``, ``kind`` and
``embedding``, which depend on the kind and the vector index), with its check."""

EDGE_RULES: dict[str, Checker] = {
    "role": _choice(("subject", "object", "run")),
    "predicate": _predicate,
    "factId": _ident,
    **{key: _instant for key in ("validFrom", "validTo", "createdAt", "invalidatedAt", "at")},
    "reason": _text,
    "note": _text,
    "similarity": _number,
    "success": _flag,
    "status": _ident,
    "starts": _offsets,
    "ends": _offsets,
    "labels": _strings,
}
"""Every property graphmem writes on an edge between memories, with its check."""


def node(kind: str, props: Mapping[str, Any], field: str, *, tenant: str, dimension: int | None) -> dict[str, Any]:
    """The properties to store for an imported node of ``kind``: each checked (an unknown
    key, or a value the writes would refuse, raises ``InvalidInputError`` naming
    ``field.key``), the derived ones computed again for ``tenant``."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        where = f"{field}.{key}"
        if key in DERIVED or value is None:
            continue
        if key == "kind":
            if value != kind:
                raise InvalidInputError(where, f"{value!r} differs from the record's kind {kind!r}")
        elif key == "text":
            rules = KIND.get(kind)  # the registry's: an episode's text may be long, an entity's is its name
            limit = check.MAX_EPISODE_LENGTH if rules and rules.long_text else check.MAX_TEXT_LENGTH
            out[key] = (check.name if rules and rules.text_is_name else check.text)(value, where, limit=limit)
        elif key == "embedding":
            out[key] = list(check.embedding(value, where, dimension))
        elif key in NODE_RULES:
            out[key] = NODE_RULES[key](value, where)
        else:
            raise InvalidInputError(where, f"is not a property graphmem writes on a {kind}")
    for required in ("id", "scope", "createdAt"):
        if required not in out:
            raise InvalidInputError(f"{field}.{required}", "is required")
    for has, needs in (("invalidatedAt", "invalidationReason"), ("invalidationReason", "invalidatedAt")):
        if has in out and needs not in out:  # every invalidation graphmem writes sets both
            raise InvalidInputError(f"{field}.{needs}", f"is required with {has}: an invalidated memory says "
                                                        "when and why it stopped being believed")
    check.interval(out.get("validFrom"), out.get("validTo"), f"{field}.validTo")  # as remember refuses it
    if kind != "chunk":
        if "text" not in out:
            raise InvalidInputError(f"{field}.text", "is required")
        out["lexKey"] = scopes.lexical_key(tenant, out["scope"])
        out["textKey"] = check.text_key(out["text"])
    if kind == "entity":
        aliases = out.get("aliases", [])
        out["nameKey"] = out["textKey"]
        out["aliasKeys"] = sorted({check.text_key(a) for a in aliases})
        out["foldKeys"] = entities.fold_keys([out.get("name", out["text"]), *aliases])
    if "subject" in out:
        out["subjectKey"] = entities.fold_key(out["subject"])
    if "steps" in out:
        out["stepsKey"] = check.steps_key(out["steps"])
    return out


LOOPS = frozenset({"RELATES"})
"""The edge types graphmem may write from a memory to itself: RELATES, for a fact whose subject
and object are one entity. Any other (a fact that supersedes itself) is refused on import."""

EDGE_IDENTITY: dict[str, tuple[str, ...]] = {"ABOUT": ("role",), "RELATES": ("factId",), "OUTCOME": ("at",)}
"""What tells two edges of one type between the same two memories apart, where graphmem writes
more than one: a fact ABOUT one entity as subject and object, a RELATES per fact between two
entities, an OUTCOME per use of a procedure in one episode. Any other type has at most one edge
between two memories, and an import that would make a second is refused."""


def edge_ends(rel: str, source: str, target: str, field: str) -> None:
    """An edge from a memory to itself is refused unless graphmem writes such loops (``LOOPS``)."""
    if source == target and rel not in LOOPS:
        raise InvalidInputError(f"{field}.target", f"{target!r} is also the source: graphmem never writes a {rel} "
                                                   "edge from a memory to itself")


def edge_key(rel: str, source: str, target: str, props: Mapping[str, Any]) -> tuple[Any, ...]:
    """The identity of an edge: two edges with one key are the same edge twice (``EDGE_IDENTITY``)."""
    return (rel, source, target, *(_comparable(props.get(key)) for key in EDGE_IDENTITY.get(rel, ())))


def _comparable(value: Any) -> Any:
    """A property as a key: a time (the driver's or Python's) as its UTC ISO form."""
    if hasattr(value, "to_native"):
        value = value.to_native()
    return value.astimezone(timezone.utc).isoformat() if isinstance(value, datetime) else value


def edge(props: Mapping[str, Any], field: str) -> dict[str, Any]:
    """The checked properties of an imported edge."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None:
            continue
        if key not in EDGE_RULES:
            raise InvalidInputError(f"{field}.{key}", "is not a property graphmem writes on an edge")
        out[key] = EDGE_RULES[key](value, f"{field}.{key}")
    return out
