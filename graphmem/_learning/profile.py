"""A user's profile without I/O: which facts hold it, the ``remember_many`` items that
write it, and how the current facts become a ``Profile`` (contract §10). Each field is a
single-valued fact about the literal subject ``user:<user_id>`` with the predicate
``profile_<field>``, so supersession gives it a history and both time axes for free. The
I/O is in ``_async/profile.py``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Fact, Provenance

STANDARD = ("name", "role", "timezone", "language", "location")
"""The fields every profile has (a custom field takes any other lowercase name)."""

PREFIX = "profile_"
MAX_VALUE_LENGTH = 1_000
_FIELD = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


class Profile(BaseModel):
    """What the memory believes about a user, each field the current value of one fact
    (None when never given). ``facts`` maps each field present to the id of the fact
    that holds it, so any value can be traced and its history read."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    """The user the profile describes."""
    name: str | None = None
    """The user's name."""
    role: str | None = None
    """Their job or role."""
    timezone: str | None = None
    """An IANA time zone (``Europe/Paris``)."""
    language: str | None = None
    """The language they prefer."""
    location: str | None = None
    """Where they live or are based."""
    custom: dict[str, str] = Field(default_factory=dict)
    """Other fields, by name (each a ``profile_<name>`` fact)."""
    facts: dict[str, str] = Field(default_factory=dict)


def subject(user_id: Any) -> str:
    """The literal subject of a user's profile facts."""
    return f"user:{check.identifier(user_id, 'user_id')}"


def field_name(name: Any, field: str = "field") -> str:
    """A profile field name: a standard one or a custom lowercase snake_case name."""
    if not isinstance(name, str) or not _FIELD.match(name):
        raise InvalidInputError(field, f"must be a lowercase snake_case name (a-z, 0-9, _), got {name!r}")
    return name


def predicate(name: Any, field: str = "field") -> str:
    return PREFIX + field_name(name, field)


def items(user_id: str, fields: Mapping[str, Any], *, scope: str, provenance: Any,
          valid_from: datetime | None, derived_from: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The ``remember_many`` items that set ``fields`` (checked here, so a bad value names
    its field before anything is written)."""
    if not fields:
        raise InvalidInputError("fields", "give at least one field to set")
    about = subject(user_id)
    out = []
    for name in sorted(fields):
        value = fields[name]
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(name, "must be a non-empty string")
        if len(value) > MAX_VALUE_LENGTH:
            raise InvalidInputError(name, f"is {len(value)} characters; the limit is {MAX_VALUE_LENGTH}")
        label = field_name(name).replace("_", " ")
        out.append({
            "text": f"{user_id}'s {label} is {value.strip()}", "scope": scope, "subject": about,
            "predicate": predicate(name), "object": value.strip(), "single_valued": True,
            "provenance": provenance, "user_id": user_id, "valid_from": valid_from,
            "derived_from": list(derived_from),
        })
    return out


class ProfileDraft(BaseModel):
    """What a conversation says about the user: leave out anything it does not state."""

    name: str | None = Field(default=None, description="the user's name, if they said it")
    role: str | None = Field(default=None, description="their job or role")
    timezone: str | None = Field(default=None, description="an IANA time zone such as Europe/Paris")
    language: str | None = Field(default=None, description="the language they prefer to be answered in")
    location: str | None = Field(default=None, description="where they live or are based")
    custom: dict[str, str] = Field(default_factory=dict, description="other lasting facts about the user, "
                                   "keyed by a short snake_case name (e.g. diet: vegetarian)")


LEARN_SYSTEM = (
    "You keep the profile of the user of an AI assistant. From the conversation below, "
    "report only what the user states about themself (name, role, time zone, preferred "
    "language, location and other lasting facts). Leave a field empty when the "
    "conversation does not say it; never guess."
)


def learned(draft: ProfileDraft, current: Mapping[str, Fact]) -> dict[str, str]:
    """The fields a model found that are worth writing: well-formed, not already the
    current value, and not a field whose value a person gave (extraction never replaces
    that)."""
    found = {name: getattr(draft, name) for name in STANDARD}
    found.update({k: v for k, v in draft.custom.items() if isinstance(k, str) and _FIELD.match(k)})
    out = {}
    for name, value in found.items():
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_VALUE_LENGTH:
            continue
        held = current.get(name)
        if held is not None and (held.object == value.strip() or not Provenance(held.provenance).automatic):
            continue
        out[name] = value.strip()
    return out


def field_of(fact: Fact) -> str:
    """The profile field a fact holds (its predicate without the prefix)."""
    return (fact.predicate or "")[len(PREFIX):]


def build(user_id: str, facts: Iterable[Fact]) -> Profile:
    """The profile the current ``facts`` about the user hold. Where two values are current
    for one field (a person's value and a later extracted one: extraction never ends a
    person's record), the more trusted provenance wins, then the narrower scope, then the
    later start."""
    best = chosen(facts)
    values: dict[str, Any] = {"user_id": user_id, "custom": {}, "facts": {}}
    for name, fact in sorted(best.items()):
        if name in STANDARD:
            values[name] = fact.object
        else:
            values["custom"][name] = fact.object
        values["facts"][name] = fact.id
    return Profile.model_validate(values)


def chosen(facts: Iterable[Fact]) -> dict[str, Fact]:
    """Each profile field's winning fact among ``facts`` (the rule ``build`` states)."""
    best: dict[str, Fact] = {}
    for fact in facts:
        if not fact.predicate or not fact.predicate.startswith(PREFIX) or fact.object is None:
            continue
        name = fact.predicate[len(PREFIX):]
        held = best.get(name)
        if held is None or _rank(fact) > _rank(held):
            best[name] = fact
    return best


def _rank(fact: Fact) -> tuple[int, int, datetime, datetime]:
    start = fact.valid_from or fact.created_at
    return (Provenance(fact.provenance).trust, fact.scope.count("/"), start, fact.created_at)
