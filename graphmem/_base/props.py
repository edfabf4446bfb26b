"""The node properties every memory kind shares, built and checked in one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import scopes
from . import validate as check
from .errors import InvalidInputError
from .kinds import REGISTRY
from .models import Provenance, Sensitivity, Status

Props = dict[str, Any]
"""A node's properties as a write template sets them (camelCase keys, no tenant)."""

OWNERS = ("userId", "agentId", "sessionId")
"""Whose a record is. Every "is this the same record" decision (write-time dedupe, curation,
twins, ids derived from content) compares all three, so two people saying the same thing
are two records and one's erase never takes the other's (docs/design-notes.md#owners)."""


def _same(name: str) -> str:
    return name


def shared(
    tenant: str,
    *,
    id: Any,
    scope: Any,
    text: Any,
    provenance: Any,
    status: Status | None = None,
    sensitivity: Any = None,
    importance: Any = None,
    tags: Any = (),
    user_id: Any = None,
    agent_id: Any = None,
    session_id: Any = None,
    text_field: str = "text",
    max_length: int = check.MAX_TEXT_LENGTH,
    field: Callable[[str], str] = _same,
) -> Props:
    """The shared properties of a new memory (``field`` names an argument in errors, e.g.
    ``items[3].scope``). ``status`` defaults to quarantined for machine-made provenances
    that need review (reflection, induction) and active otherwise."""
    checked_text = check.text(text, field(text_field), limit=max_length)
    path = scopes.check_path(scope, field("scope"))
    source = check.choice(provenance or Provenance.MANUAL, Provenance, field("provenance"))
    if status is None:
        reviewed = source in (Provenance.REFLECTION, Provenance.INDUCTION)
        status = Status.QUARANTINED if reviewed else Status.ACTIVE
    return {
        "id": check.new_id() if id is None else check.identifier(id, field("id")),
        "scope": path,
        "lexKey": scopes.lexical_key(tenant, path),
        "text": checked_text,
        "textKey": check.text_key(checked_text),
        "provenance": source.value,
        "status": status.value,
        "sensitivity": check.choice(sensitivity or Sensitivity.INTERNAL, Sensitivity, field("sensitivity")).value,
        "importance": check.unit_interval(importance, field("importance"), 0.5),
        "tags": check.tags(tags or (), field("tags")),
        "userId": check.identifier(user_id, field("user_id"), allow_none=True),
        "agentId": check.identifier(agent_id, field("agent_id"), allow_none=True),
        "sessionId": check.identifier(session_id, field("session_id"), allow_none=True),
        "embedding": None,
    }


def expect_kind(node: Mapping[str, Any], kind: str, field: str = "id") -> None:
    """An id that is already written must name a record of the kind being written."""
    if node["kind"] != kind:
        raise InvalidInputError(field, f"{node['id']!r} is already used by a {node['kind']}")


def expect_record(node: Mapping[str, Any], kind: str, props: Mapping[str, Any], field: str = "id") -> None:
    """An id that is already written must name a record of the kind being written and of
    the same owner: writing it again is idempotent only for the same user, agent and session."""
    expect_kind(node, kind, field)
    for owner, name in zip(OWNERS, ("user_id", "agent_id", "session_id")):
        if owner in props and node.get(owner) != props[owner]:
            raise InvalidInputError(field, f"{node['id']!r} is already used by a record of another {name} "
                                           "(a record has one owner: choose another id)")


def stored(props: Mapping[str, Any], *, tenant: str, kind: str, now: Any) -> Props:
    """The node map a template would return for a record just written with ``props``."""
    return {**props, "tenant": tenant, "kind": kind, "createdAt": now, "embedding": None}


CREATES: dict[str, str | None] = {**{kind.create: kind.name for kind in REGISTRY}, "import_nodes": None}
"""The write templates that create memories, and the kind each creates (``import_nodes``:
each row's own); their parameters carry the new ids (``props.id``, or ``rows[].props.id``)."""


def created_by(template: str, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(kind, id) of each memory a run of the create ``template`` with ``params`` wrote."""
    kind = CREATES[template]
    rows = params.get("rows")
    if rows is None:
        return [(str(kind), params["props"]["id"])]
    return [(kind or row["kind"], row["props"]["id"]) for row in rows if (kind or row.get("kind")) != "chunk"]
