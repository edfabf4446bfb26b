"""Insights (contract §2, §3, §7.3) without I/O: the checks on their citations, the filtering
of model drafts, and the node properties written for them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base import props as _props
from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Insight, MemoryRecord, Provenance, Sensitivity, Status
from .._base.records import Row
from .prompts import InsightDraft

CITABLE = ("fact", "episode")


@dataclass(frozen=True, slots=True)
class TwinRow(Row):
    """The insight a new one restates (believed, or rejected by a person): its id, status
    and the ids it cites."""

    TEMPLATES = ("insight_twin",)
    id: str
    status: str
    cites: list[str]


@dataclass(frozen=True, slots=True)
class EvidenceRow(Row):
    """One recent fact or episode reflection shows the model: when it happened (or became
    true, or was written) and how sensitive it is."""

    TEMPLATES = ("reflect_evidence",)
    id: str
    kind: str
    text: str
    at: datetime
    sensitivity: str


@dataclass(frozen=True, slots=True)
class CorroboratedRow(Row):
    """An insight ``maintain`` raised, and by how many salience points."""

    TEMPLATES = ("insight_fact_corroboration",)
    id: str
    points: int


@dataclass(frozen=True, slots=True)
class InsightPrunedRow(Row):
    """An insight ``maintain`` invalidated, and whether none of its evidence is believed."""

    TEMPLATES = ("insight_prune",)
    id: str
    unsupported: bool


class DroppedInsight(BaseModel):
    """A model draft ``reflect`` did not write, and why."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The draft's text (empty when the model gave none)."""
    reason: str
    """Why it was dropped: no text, no citation from the evidence shown, a repeat, or over ``max_insights``."""
    invented: tuple[str, ...] = ()
    """Citations the model gave that were not among the evidence it was shown."""


class ReflectionReport(BaseModel):
    """What one ``reflect`` call wrote (insights created or corroborated) and what it
    dropped, and why."""

    model_config = ConfigDict(frozen=True)

    insights: tuple[Insight, ...] = ()
    """The insights written or corroborated."""
    dropped: tuple[DroppedInsight, ...] = ()
    """The drafts not written, each with its reason."""

    @property
    def written(self) -> tuple[str, ...]:
        """The ids of ``insights``."""
        return tuple(i.id for i in self.insights)


class MaintenanceReport(BaseModel):
    """What ``maintain`` changed: salience raised by corroborating facts (insight id ->
    points), insights pruned, and insights pruned because no believed evidence is left."""

    model_config = ConfigDict(frozen=True)

    corroborated: dict[str, int] = {}
    """Insight id -> salience points added by corroborating facts."""
    pruned: tuple[str, ...] = ()
    """Ids of insights pruned because their salience fell to 0 or below."""
    unsupported: tuple[str, ...] = ()
    """Ids of insights pruned because none of their evidence is believed any more."""

    @property
    def changed(self) -> bool:
        """Whether the pass changed anything."""
        return bool(self.corroborated or self.pruned or self.unsupported)


def cite_ids(cites: Any, field: str = "cites") -> list[str]:
    """Ids from records or strings, in order, without repeats; at least one."""
    if isinstance(cites, (str, bytes, MemoryRecord)) or not isinstance(cites, Iterable):
        raise InvalidInputError(field, "must be a list of fact or episode ids (or records)")
    out: list[str] = []
    for i, item in enumerate(cites):
        rid = item.id if isinstance(item, MemoryRecord) else item
        check.identifier(rid, f"{field}[{i}]")
        if rid not in out:
            out.append(rid)
    if not out:
        raise InvalidInputError(field, "an insight must cite at least one fact or episode")
    return out


def check_evidence(wanted: list[str], found: list[dict[str, Any]], scope: str, field: str = "cites") -> list[dict[str, Any]]:
    """Each cited id must be an existing, visible, currently believed, non-rejected Fact or
    Episode; return the rows found, in the order cited."""
    chain = set(scopes.chain(scope))
    rows = {r["id"]: r for r in found}
    for i, rid in enumerate(wanted):
        row = rows.get(rid)
        if row is None:
            problem = "names no memory in this tenant"
        elif row["kind"] not in CITABLE:
            problem = f"is an {row['kind']}; insights cite facts and episodes"
        elif row["scope"] not in chain:
            problem = f"lives in scope {row['scope']!r}, which is not visible from {scope!r}"
        elif row.get("invalidatedAt") is not None:
            problem = f"is no longer believed ({row.get('invalidationReason')})"
        elif row.get("status") == Status.REJECTED.value:
            problem = "was rejected"
        else:
            continue
        raise InvalidInputError(f"{field}[{i}]", f"{rid!r} {problem}")
    return [rows[rid] for rid in wanted]


def insight_props(
    tenant: str, text: Any, *, scope: Any, importance: Any, sensitivity: Any, tags: Any, id: Any,
    user_id: Any, agent_id: Any, session_id: Any,
) -> dict[str, Any]:
    """A new insight: machine-made (``reflection``), quarantined until validated, salience 2."""
    props = _props.shared(
        tenant, id=id, scope=scope, text=text, provenance=Provenance.REFLECTION, status=Status.QUARANTINED,
        sensitivity=sensitivity, importance=importance, tags=tags, user_id=user_id, agent_id=agent_id,
        session_id=session_id,
    )
    props["salience"] = 2
    return props


def at_least_as_sensitive(props: dict[str, Any], evidence: list[dict[str, Any]]) -> None:
    """An insight is at least as sensitive as the most sensitive record it cites, so
    reflection never launders a restricted fact into an internal one."""
    levels = [Sensitivity(props["sensitivity"]), *(Sensitivity(r["sensitivity"]) for r in evidence)]
    props["sensitivity"] = max(levels, key=lambda s: s.level).value


def usable_drafts(
    drafts: list[InsightDraft], evidence_ids: set[str], max_insights: int,
) -> tuple[list[tuple[InsightDraft, list[str]]], list[DroppedInsight]]:
    """Keep drafts with text and at least one citation from the evidence shown; citations
    the model invented are removed, and a draft left with none is dropped."""
    kept: list[tuple[InsightDraft, list[str]]] = []
    dropped: list[DroppedInsight] = []
    seen: set[str] = set()
    for draft in drafts:
        text = " ".join((draft.text or "").split())
        cites = list(dict.fromkeys(c for c in draft.cites if c in evidence_ids))
        invented = tuple(c for c in draft.cites if c not in evidence_ids)
        if not text:
            dropped.append(DroppedInsight(text="", reason="empty text", invented=invented))
        elif not cites:
            dropped.append(DroppedInsight(text=text, reason="no citation from the evidence shown", invented=invented))
        elif check.text_key(text) in seen:
            dropped.append(DroppedInsight(text=text, reason="repeats another draft", invented=invented))
        elif len(kept) >= max_insights:
            dropped.append(DroppedInsight(text=text, reason=f"over max_insights={max_insights}", invented=invented))
        else:
            seen.add(check.text_key(text))
            kept.append((draft.model_copy(update={"text": text}), cites))
    return kept, dropped


def since_instant(since: Any, now: datetime) -> datetime | None:
    value = check.instant(since, "since")
    if value is not None and value > now:
        raise InvalidInputError("since", "is in the future")
    return value


def clamp(importance: float | None) -> float | None:
    """A model's importance estimate, forced into 0..1 (None stays the default)."""
    if importance is None or not isinstance(importance, (int, float)) or importance != importance:
        return None
    return min(1.0, max(0.0, float(importance)))


def status_entry(now: datetime, old: str, new: str, verb: str, note: str | None) -> str:
    """One statusLog line: ``2026-11-29T22:00:00+00:00 quarantined -> active (validated: note)``."""
    why = verb if note is None else f"{verb}: {' '.join(note.split())}"
    return f"{now.isoformat()} {old} -> {new} ({why})"


def trail_graph(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> Any:
    """A networkx DiGraph of an evidence trail (see ``Memory.evidence``)."""
    import networkx

    from .._base.records import to_record

    graph: networkx.DiGraph[str] = networkx.DiGraph()
    for node in nodes:
        graph.add_node(node["id"], record=to_record(node), kind=node["kind"], text=node["text"])
    for edge in edges:
        graph.add_edge(edge["source"], edge["target"], type=edge["type"], reason=edge.get("reason"), at=edge.get("at"))
    return graph
