"""Facts without I/O: what ``remember`` accepts, the rows ``fact_create`` writes, and the
order in which single-valued facts supersede each other. The I/O is in ``_async/facts.py``."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from .._base import props as _props
from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import AUTOMATIC as AUTOMATIC
from .._base.models import Provenance
from .._base.records import Row
from . import embedded, entities

DEFAULT_SINGLE_VALUED = frozenset({
    # where and who
    "lives_in", "located_in", "location", "home_city", "address", "home_address", "born_in", "born_on",
    "birthday", "age", "nationality", "gender", "pronouns", "height", "weight", "name", "full_name",
    # work
    "works_at", "works_for", "employer", "job_title", "title", "role", "occupation", "profession",
    "manager", "reports_to", "current_project", "salary", "team",
    # relations and status
    "married_to", "partner", "spouse", "relationship_status", "marital_status", "status",
    # how to reach them and talk to them
    "email", "email_address", "phone", "phone_number", "username", "prefers_contact", "contact_preference",
    "contact_method", "timezone", "time_zone", "language", "preferred_language",
    # preferences that replace each other
    "diet", "dietary_preference",
})
"""Predicates treated as single-valued when ``single_valued`` is not given (besides the
prefixes and suffixes in ``SINGLE_VALUED_PREFIXES`` / ``SINGLE_VALUED_SUFFIXES``)."""

SINGLE_VALUED_PREFIXES = ("preferred_", "favorite_", "favourite_", "current_", "prefers_")
SINGLE_VALUED_SUFFIXES = ("_preference",)


@dataclass(frozen=True)
class SingleValued:
    """Which predicates hold one value at a time: exact names, plus names with one of the
    prefixes or suffixes (``favorite_color``, ``milk_preference``). ``Memory(
    single_valued_predicates=...)`` replaces the whole rule with exact names only."""

    names: frozenset[str]
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()

    def __contains__(self, predicate: object) -> bool:
        if not isinstance(predicate, str):
            return False
        return (predicate in self.names or predicate.startswith(self.prefixes)
                or predicate.endswith(self.suffixes))


DEFAULT_RULE = SingleValued(DEFAULT_SINGLE_VALUED, SINGLE_VALUED_PREFIXES, SINGLE_VALUED_SUFFIXES)



class FactInput(TypedDict, total=False):
    """The arguments of ``remember`` (one item of ``remember_many``)."""

    text: str
    scope: str
    subject: str | None
    predicate: str | None
    object: str | None
    single_valued: bool | None
    valid_from: datetime | None
    valid_to: datetime | None
    observed_at: datetime | None
    provenance: Provenance | str
    importance: float | None
    sensitivity: str | None
    tags: Iterable[str]
    user_id: str | None
    agent_id: str | None
    session_id: str | None
    id: str | None
    embedding: list[float] | None
    derived_from: Iterable[str]


FIELDS = frozenset(FactInput.__annotations__)


class FactRow(TypedDict):
    """One fact as ``fact_create`` writes it."""

    props: _props.Props
    chain: list[str]
    derivedFrom: list[str]
    embedText: str
    explicitId: bool
    field: str


@dataclass(frozen=True)
class Superseded:
    """What contradiction rule 1 did to stored facts when new ones landed: the ids whose
    valid time it closed (``closed``) and those it invalidated (``replaced``)."""

    closed: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()

    @property
    def changed(self) -> set[str]:
        """Every id whose times changed."""
        return set(self.closed) | set(self.replaced)


@dataclass(frozen=True)
class Landed:
    """What a batch of fact rows landed as: per row, the node it landed as (None: a
    machine-made restatement of a forgotten fact, left out), and what it superseded."""

    nodes: list[dict[str, Any] | None]
    superseded: Superseded = Superseded()


@dataclass(frozen=True, slots=True)
class DuplicateRow(Row):
    """A new fact's id and the believed, current fact of its scope that already says it."""

    TEMPLATES = ("fact_duplicates",)
    id: str
    node: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SupersedeRow(Row):
    """What contradiction rule 1 did for one new fact: the ids whose valid time it closed
    and those it invalidated."""

    TEMPLATES = ("fact_supersede",)
    closed: list[str]
    replaced: list[str]


class Wave(TypedDict):
    """One single-valued fact for ``fact_supersede`` (which acts within the fact's own scope)."""

    id: str
    explicit: bool


def row(item: Mapping[str, Any], *, tenant: str, now: datetime, single_valued: Container[str],
        dimension: int | None, prefix: str = "") -> FactRow:
    """Check one ``remember`` call's arguments; return the row for ``fact_create``."""
    unknown = sorted(set(item) - FIELDS)
    if unknown:
        raise InvalidInputError(f"{prefix}{unknown[0]}", "is not a field of remember()")

    def field(name: str) -> str:
        return f"{prefix}{name}"

    props = _props.shared(
        tenant, id=item.get("id"), scope=item.get("scope"), text=item.get("text"),
        provenance=item.get("provenance"), sensitivity=item.get("sensitivity"),
        importance=item.get("importance"), tags=item.get("tags"), user_id=item.get("user_id"),
        agent_id=item.get("agent_id"), session_id=item.get("session_id"), field=field,
    )
    subject = check.identifier(item.get("subject"), field("subject"), allow_none=True)
    predicate = check.predicate(item.get("predicate"), field("predicate"))
    obj = check.literal(item.get("object"), field("object"))
    if (subject is None) != (predicate is None):
        raise InvalidInputError(field("predicate" if subject else "subject"), "subject and predicate go together: give both or neither")
    stated_from = check.instant(item.get("valid_from"), field("valid_from"))
    observed = check.instant(item.get("observed_at"), field("observed_at")) or now
    valid_from = stated_from or observed
    valid_to = check.instant(item.get("valid_to"), field("valid_to"))
    check.interval(valid_from, valid_to, field("valid_to"))
    single = item.get("single_valued")
    if single is None:
        single = predicate in single_valued
    elif not isinstance(single, bool):
        raise InvalidInputError(field("single_valued"), "must be True, False or None")
    if single and predicate is None:
        raise InvalidInputError(field("single_valued"), "needs a subject and predicate")
    embedding = item.get("embedding")
    # each episode once: a repeated id would be a second DERIVED_FROM edge (which an import refuses)
    derived = list(dict.fromkeys(check.identifier(e, field("derived_from"))
                                 for e in check.tags(item.get("derived_from") or (), field("derived_from"))))
    props.update({
        "subject": subject,
        "subjectKey": None if subject is None else entities.fold_key(subject),
        "predicate": predicate,
        "object": obj,
        "singleValued": single,
        "validFrom": valid_from,
        # a start that was stated, or only the time the statement was observed ("true at
        # least since"): a later change with an earlier stated start supersedes the latter
        "validFromStated": stated_from is not None,
        "validTo": valid_to,
        "closedAt": now if valid_to is not None else None,
        "embedding": None if embedding is None else check.embedding(embedding, field("embedding"), dimension),
    })
    # a structured fact is embedded with its predicate in words, so a question about the
    # attribute ("where does Carol live?") meets "Carol moved to Denver" (lives_in)
    embed_text = embedded.fact_text(props["text"], predicate)
    return {"props": props, "chain": scopes.chain(props["scope"]), "derivedFrom": derived, "embedText": embed_text,
            "explicitId": item.get("id") is not None, "field": prefix}


def rows(items: Any, *, tenant: str, now: datetime, single_valued: Container[str],
         dimension: int | None) -> list[FactRow]:
    """Check a ``remember_many`` batch; errors name the item (``items[3].valid_to``)."""
    if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
        raise InvalidInputError("items", "must be a list of remember() argument mappings")
    out: list[FactRow] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"items[{i}]", "must be a mapping of remember() arguments")
        planned = row(item, tenant=tenant, now=now, single_valued=single_valued, dimension=dimension,
                      prefix=f"items[{i}].")
        rid = planned["props"]["id"]
        if rid in seen:
            raise InvalidInputError(f"items[{i}].id", f"{rid!r} repeats items[{seen[rid]}].id in one batch")
        seen[rid] = i
        out.append(planned)
    return out


def supersede_waves(fresh: list[FactRow]) -> list[list[Wave]]:
    """New single-valued facts, split so that no wave has two on one subject/predicate; facts
    on the same key are ordered by valid time, so a batch reads like a timeline."""
    keyed: dict[tuple[str, str], list[FactRow]] = {}
    for fact in fresh:
        p = fact["props"]
        if p["singleValued"] and p["subject"] is not None:
            keyed.setdefault((p["subject"], p["predicate"]), []).append(fact)
    waves: list[list[Wave]] = []
    for group in keyed.values():
        group.sort(key=lambda r: r["props"]["validFrom"])
        for depth, fact in enumerate(group):
            if depth == len(waves):
                waves.append([])
            waves[depth].append({
                "id": fact["props"]["id"],
                "explicit": not Provenance(fact["props"]["provenance"]).automatic,
            })
    return waves


def duplicate_probe(new: list[FactRow]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """What ``fact_duplicates`` checks for new facts, and the rows of this batch that repeat
    an earlier row of it (id -> the earlier row's id): the same text, scope, provenance,
    triple, validity and owner (user, agent and session: two people saying the same thing
    are two records, so one's erase never takes the other's). A start that was only
    observed matches any start. A fact whose id the caller chose is never a duplicate: the
    caller decides what is one record."""
    probe: list[dict[str, Any]] = []
    repeats: dict[str, str] = {}
    first: dict[tuple[Any, ...], tuple[str, Any]] = {}  # key -> (id, start) of its first row
    for fact in new:
        if fact["explicitId"]:
            continue
        p = fact["props"]
        stated = p["validFrom"] if p["validFromStated"] else None
        key = (p["scope"], p["textKey"], p["provenance"], p["subject"], p["predicate"], p["object"], p["validTo"],
               *(p[owner] for owner in _props.OWNERS))
        if key in first and (stated is None or stated == first[key][1]):
            repeats[p["id"]] = first[key][0]
            continue
        first.setdefault(key, (p["id"], p["validFrom"]))
        probe.append({"id": p["id"], "scope": p["scope"], "key": p["textKey"], "provenance": p["provenance"],
                      "subject": p["subject"], "predicate": p["predicate"], "object": p["object"],
                      "validFrom": stated, "validTo": p["validTo"], **{owner: p[owner] for owner in _props.OWNERS}})
    return probe, repeats


def check_sources(fresh: list[FactRow], found: Mapping[str, Mapping[str, Any]]) -> None:
    """Every ``derived_from`` id of the new facts must name an episode of the tenant
    (``found``: id -> stored node), as an insight's citations must exist."""
    for fact in fresh:
        for i, eid in enumerate(fact["derivedFrom"]):
            node = found.get(eid)
            if node is None or node["kind"] != "episode":
                what = "names no memory in this tenant" if node is None else f"is a {node['kind']}, not an episode"
                raise InvalidInputError(f"{fact['field']}derived_from[{i}]", f"{eid!r} {what}")


def tombstone_probe(fresh: list[FactRow]) -> list[dict[str, Any]]:
    """What ``fact_tombstones`` checks for the machine-made facts of a batch."""
    return [
        {"id": p["id"], "key": p["textKey"], "subject": p["subject"], "predicate": p["predicate"],
         "object": p["object"], "chain": fact["chain"], "scope": p["scope"], "userId": p["userId"]}
        for fact in fresh if Provenance((p := fact["props"])["provenance"]).automatic
    ]
