"""The curator (contract §10) without I/O: which records it may touch, the reports it
returns, the model's merge of near-duplicates and the fact that merge becomes.

Trust rule: records with provenance ``user``, ``manual`` or ``human-correction`` are never
invalidated, merged away, pruned or purged by a curation step; only machine-made ones
(``extraction``, ``reflection``, ``induction``) are."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Provenance, Sensitivity, Status
from .._base.records import Row
from .._memory import facts

CURATED = ["fact", "insight", "procedure"]
"""The kinds dedupe and prune look at (claims; episodes, entities, corrections and
decisions are records of what happened and are left alone)."""

MERGEABLE = ["fact"]
"""The kinds consolidate merges (insights and procedures merge their twins as they are
written: corroboration, and merging at induction)."""

MAX_CLUSTER = 8
"""At most this many near-duplicates go to the model in one merge."""


@dataclass(frozen=True, slots=True)
class CurationStatsRow(Row):
    """How many memories of a subtree share a kind, a provenance, whether they are believed
    and the reason they were invalidated (null where a node has none)."""

    TEMPLATES = ("curation_stats",)
    kind: str | None
    provenance: str | None
    believed: bool
    reason: str | None
    n: int


@dataclass(frozen=True, slots=True)
class DedupeRow(Row):
    """An exact duplicate ``dedupe`` invalidated, and the record it kept."""

    TEMPLATES = ("curation_dedupe",)
    id: str
    kept: str


@dataclass(frozen=True, slots=True)
class NearRow(Row):
    """A record and its near-duplicates, most similar first."""

    TEMPLATES = ("curation_near",)
    id: str
    near: list[str]


@dataclass(frozen=True, slots=True)
class PurgedRow(Row):
    """How many invalidated records one purge batch deleted."""

    TEMPLATES = ("curation_purge",)
    purged: int


class CurationStats(BaseModel):
    """What a scope subtree holds: memories in all, believed and invalidated, by kind, by
    provenance (believed ones) and by invalidation reason."""

    model_config = ConfigDict(frozen=True)

    total: int = 0
    """Memories in the subtree."""
    believed: int = 0
    """Of them, currently believed."""
    invalidated: int = 0
    """Of them, invalidated."""
    by_kind: dict[str, int] = Field(default_factory=dict)
    """Memories per kind."""
    by_provenance: dict[str, int] = Field(default_factory=dict)
    """Believed memories per provenance (``unknown`` for a node written outside graphmem
    without one)."""
    by_reason: dict[str, int] = Field(default_factory=dict)
    """Invalidated memories per reason."""


class CurationReport(BaseModel):
    """What one ``curate`` run changed: ``deduplicated`` (records invalidated as exact
    duplicates), ``merged`` (near-duplicates merged away) into ``consolidated`` new
    records, ``pruned`` (invalidated as stale), ``purged`` (hard-deleted), with the
    statistics before and after and the seconds each step took."""

    model_config = ConfigDict(frozen=True)

    scope: str
    """The scope curated (with everything below it)."""
    deduplicated: int = 0
    merged: int = 0
    consolidated: int = 0
    pruned: int = 0
    purged: int = 0
    model_calls: int = 0
    """Chat-model calls made by ``consolidate``."""
    before: CurationStats
    """Statistics before the run."""
    after: CurationStats
    """Statistics after the run."""
    seconds: dict[str, float] = Field(default_factory=dict)
    """Seconds each step took, by step name."""


class MergedMemory(BaseModel):
    """One statement that says everything the near-duplicate memories say."""

    text: str = Field(description="the merged statement, one or two sentences, no new information")


CONSOLIDATE_SYSTEM = (
    "You curate the long-term memory of an AI agent. The memories below say nearly the same "
    "thing. Write one statement that keeps every piece of information they hold, adds "
    "nothing, and is no longer than it needs to be."
)


def merge_messages(nodes: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    listed = "\n".join(f"- {' '.join(str(n['text']).split())}" for n in nodes)
    return [("system", CONSOLIDATE_SYSTEM), ("human", "Memories:\n" + listed)]


def check_merged(draft: MergedMemory) -> None:
    if not draft.text.strip():
        raise ValueError("the merged statement is empty")
    check.text(draft.text, "text")


def subtree(scope: str) -> dict[str, str]:
    """Template parameters naming a scope and every scope below it."""
    return {"scope": scope, "prefix": scope + "/"}


def provenances(value: Any) -> list[str]:
    """The provenances prune may touch: machine-made ones only (the default: all three)."""
    if value is None:
        return list(facts.AUTOMATIC)
    if isinstance(value, (str, Provenance)):
        value = [value]
    out = []
    for item in value:
        source = check.choice(item, Provenance, "provenance")
        if not source.automatic:
            raise InvalidInputError("provenance", f"{source.value!r} is a person's provenance; curation never prunes it")
        out.append(source.value)
    if not out:
        raise InvalidInputError("provenance", "names no provenance")
    return sorted(set(out))


def similarity(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
        raise InvalidInputError("threshold", f"must be a cosine similarity in (0, 1], got {value!r}")
    return float(value)


def clusters(rows: Iterable[NearRow], taken: set[str]) -> list[list[str]]:
    """Groups of near-duplicate ids from ``curation_near`` rows (each id and its
    neighbours), joined where they share a member; ids in ``taken`` are left out and the
    ids used are added to it. A group holds at most ``MAX_CLUSTER`` ids."""
    out = []
    for r in rows:
        if r.id in taken:
            continue
        group = [r.id, *[n for n in r.near if n not in taken and n != r.id]][:MAX_CLUSTER]
        if len(group) < 2:
            continue
        taken.update(group)
        out.append(group)
    return out


def merged_fact(nodes: Sequence[Mapping[str, Any]], text: str, *, tenant: str, now: datetime,
                single_valued: Container[str]) -> facts.FactRow:
    """The fact a merge writes: the model's text; subject, predicate and object where the
    originals agree; the earliest start of their valid time and its (common) end; the least trusted provenance among them (all
    machine-made), the highest importance and sensitivity, their tags; quarantined if any
    of them was."""

    def same(prop: str) -> Any:
        values = {n.get(prop) for n in nodes}
        return values.pop() if len(values) == 1 else None

    subject, predicate = same("subject"), same("predicate")
    if subject is None or predicate is None:
        subject = predicate = None
    sources = [Provenance(n["provenance"]) for n in nodes]
    sensitivity = max((Sensitivity(n["sensitivity"]) for n in nodes), key=lambda s: s.level)
    row = facts.row({
        "text": text, "scope": nodes[0]["scope"], "subject": subject, "predicate": predicate,
        "object": same("object") if subject else None,
        "single_valued": bool(same("singleValued")) if subject else False,
        "valid_from": min((n["validFrom"] for n in nodes if n.get("validFrom") is not None), default=None),
        "valid_to": nodes[0].get("validTo"),
        "provenance": min(sources, key=lambda p: p.trust),
        "importance": max(float(n.get("importance") or 0.5) for n in nodes),
        "sensitivity": sensitivity, "tags": sorted({t for n in nodes for t in n.get("tags") or []}),
        "user_id": same("userId"), "agent_id": same("agentId"), "session_id": same("sessionId"),
    }, tenant=tenant, now=now, single_valued=single_valued, dimension=None)
    if any(n.get("status") == Status.QUARANTINED.value for n in nodes):
        row["props"]["status"] = Status.QUARANTINED.value
    return row


def stats(rows: Iterable[CurationStatsRow]) -> CurationStats:
    total = believed = 0
    by_kind: dict[str, int] = {}
    by_provenance: dict[str, int] = {}
    by_reason: dict[str, int] = {}
    for r in rows:
        n = int(r.n)
        total += n
        kind = r.kind or "unknown"
        by_kind[kind] = by_kind.get(kind, 0) + n
        if r.believed:
            believed += n
            provenance = r.provenance or "unknown"
            by_provenance[provenance] = by_provenance.get(provenance, 0) + n
        else:
            reason = r.reason or "unknown"
            by_reason[reason] = by_reason.get(reason, 0) + n
    return CurationStats(total=total, believed=believed, invalidated=total - believed, by_kind=by_kind,
                         by_provenance=by_provenance, by_reason=by_reason)
