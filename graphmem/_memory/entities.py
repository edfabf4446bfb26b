"""Entities without I/O: the properties of a person, place or thing, and what resolving a
new mention to an existing entity adds to it. The I/O is in ``_async/entities.py``."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._base import props as _props
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Status
from .._base.records import Row

MAX_NAME_LENGTH = 512


@dataclass(frozen=True, slots=True)
class KnownRow(Row):
    """An entity already known in a scope, as an extraction prompt lists it."""

    TEMPLATES = ("entity_known",)
    name: str
    type: str
    aliases: list[str]


def props(name: Any, *, tenant: str, type: Any, scope: Any, aliases: Any, properties: Any, id: Any,
          importance: Any, sensitivity: Any, provenance: Any) -> _props.Props:
    """The properties of a new entity (its ``text`` is its name)."""
    name = check.name(name, "name")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidInputError("name", f"is longer than {MAX_NAME_LENGTH} characters")
    etype = check.identifier(type, "type")
    alias_list = [check.name(a, f"aliases[{i}]") for i, a in enumerate(check.tags(aliases or (), "aliases"))]
    properties_json = check.properties_json(properties)
    out = _props.shared(tenant, id=id, scope=scope, text=name, text_field="name", provenance=provenance,
                        status=Status.ACTIVE, sensitivity=sensitivity, importance=importance)
    for owner in _props.OWNERS:
        del out[owner]
    out.update({
        "name": name,
        "nameKey": out["textKey"],
        "type": etype,
        "aliases": alias_list,
        "aliasKeys": sorted({check.text_key(a) for a in alias_list}),
        "foldKeys": fold_keys([name, *alias_list]),
        "propertiesJson": properties_json,
    })
    return out


def fold_key(name: str) -> str:
    """A name as people type it, for lookups: ``text_key`` without accents (``José`` and
    ``jose`` fold alike)."""
    stripped = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return check.text_key(stripped)


def subject_params(subject: Any, *, required: bool) -> dict[str, Any]:
    """The ``$subject`` / ``$subjectKey`` parameters of the ``subject_match`` fragment: the
    name as given and its folded key (None for both when no subject is asked for)."""
    if subject is None and not required:
        return {"subject": None, "subjectKey": None}
    name = check.identifier(subject, "subject")
    return {"subject": name, "subjectKey": fold_key(name)}


def fold_keys(names: Iterable[str]) -> list[str]:
    return sorted({key for key in (fold_key(n) for n in names) if key})


def lookup_keys(entity: Mapping[str, Any]) -> list[str]:
    """The normalised name and aliases an entity is found by."""
    return sorted({entity["nameKey"], *entity["aliasKeys"]})


def merged(existing: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    """Aliases and properties to record on ``existing`` after resolving ``new`` to it,
    or None when nothing changes."""
    aliases = list(existing.get("aliases") or [])
    keys = set(existing.get("aliasKeys") or []) | {existing["nameKey"]}
    for alias in [new["name"], *new["aliases"]]:
        key = check.text_key(alias)
        if key not in keys:
            aliases.append(alias)
            keys.add(key)
    properties = json.loads(existing.get("propertiesJson") or "{}")
    properties.update(json.loads(new["propertiesJson"]))
    out = {
        "aliases": aliases,
        "aliasKeys": sorted(keys - {existing["nameKey"]}),
        "foldKeys": fold_keys([existing.get("name") or existing["text"], *aliases]),
        "propertiesJson": check.properties_json(properties),
    }
    unchanged = (out["aliases"] == list(existing.get("aliases") or [])
                 and out["propertiesJson"] == (existing.get("propertiesJson") or "{}"))
    return None if unchanged else out
