"""From conversation to graph, without I/O: messages in, the plan of what to write out.
The I/O (reads, model calls, the one write transaction) is in ``_async/landing.py``."""

from __future__ import annotations

import json
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base import dates
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Entity, Episode, Fact, Provenance
from .._memory.entities import MAX_NAME_LENGTH
from .prompts import EntityDraft, Extraction, FactDraft
from .usage import TokenUsage

ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant", "tool": "tool",
         "function": "tool", "system": "system", "developer": "system", "event": "event"}


class Skipped(BaseModel):
    """Something the model extracted that was not written, and why."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """``entity`` or ``fact``."""
    text: str
    """The name or statement as the model gave it."""
    reason: str
    """Why it was not written (invalid input, a restatement, forgotten by the user...)."""


class SameAsCandidate(BaseModel):
    """A new entity that may be an existing one (similarity in the grey band): recorded as a
    ``SAME_AS {status: 'candidate'}`` edge for a person to review, never merged by guess."""

    model_config = ConfigDict(frozen=True)

    entity: str
    """Id of the entity just written."""
    candidate: str
    """Id of the existing entity it may be."""
    similarity: float
    """Cosine similarity of their names' embeddings."""


@dataclass(frozen=True)
class PendingEntity:
    """Stands, in a planned fact's subject or object, for an extracted entity that resolved
    to no stored one at planning time: the write transaction creates it (or finds it, if
    another write created it since), so only the write knows its id. ``index`` is its place
    in the extracted entities. A type of its own, so no string can pass for one."""

    index: int


class IngestResult(BaseModel):
    """What ``ingest`` wrote: the episodes (always, even when the model failed), entities
    created and existing entities the batch resolved to, ``SAME_AS`` candidates, the facts
    created, the ids whose valid time was closed by a newer value (``superseded``) and those
    retired as wrong (``invalidated``: corrected or contradicted), what was skipped and why,
    notes (e.g. a time expression that was not understood), the number of model calls, and
    the model error if extraction failed after its retries (then nothing but the episodes
    was written)."""

    model_config = ConfigDict(frozen=True)

    episodes: tuple[Episode, ...] = ()
    """The episodes stored, one per message, in order (``episode_ids`` for their ids)."""
    entities_created: tuple[Entity, ...] = ()
    """Entities written by this call."""
    entities_merged: tuple[Entity, ...] = ()
    """Existing entities the extracted ones resolved to."""
    same_as: tuple[SameAsCandidate, ...] = ()
    """Possible duplicates left for a person to review."""
    facts: tuple[Fact, ...] = ()
    """Facts written by this call."""
    superseded: tuple[str, ...] = ()
    invalidated: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    """What the model extracted that was not written, and why."""
    notes: tuple[str, ...] = ()
    """Remarks on the extraction, e.g. a time expression that was not understood."""
    profile: tuple[str, ...] = ()
    """The profile fields of ``user_id`` this call filled (see ``Memory.profile``)."""
    model_calls: int = 0
    """How many chat-model requests the call made (retries included, as each is billed)."""
    usage: TokenUsage = TokenUsage()
    """The tokens the model reported for those requests (its ``usage_metadata``)."""
    error: str | None = None
    """The model's last error when extraction failed after its retries, else ``None`` (with
    several requests, the failed ones, each named; the others landed)."""

    @property
    def episode_ids(self) -> tuple[str, ...]:
        """The ids of ``episodes``, in message order."""
        return tuple(e.id for e in self.episodes)


def combined(results: Sequence[IngestResult], **fields: Any) -> IngestResult:
    """The results of the requests of one call as one, in order, with ``fields`` (episodes,
    calls, usage, error) set for the whole call."""
    joined: dict[str, Any] = {}
    for name in ("entities_created", "entities_merged", "same_as", "facts", "superseded", "invalidated", "skipped",
                 "notes", "profile"):
        values = [v for r in results for v in getattr(r, name)]
        if name == "entities_merged":  # one entity met by several requests: once, as it stands last
            values = list({e.id: e for e in values}.values())
        joined[name] = tuple(dict.fromkeys(values)) if name == "profile" else tuple(values)
    joined["notes"] = (*joined["notes"], *fields.pop("notes", ()))
    return IngestResult(**joined, **fields)


def messages(items: Any, occurred_at: datetime | None, now: datetime) -> list[dict[str, Any]]:
    """Normalise langchain-core messages or ``{"role", "content"[, "occurred_at", "name",
    "id"]}`` dicts to ``{role, content, occurred_at, id, speaker}``; messages without a time
    follow the batch's time, a microsecond apart so their order survives; a message's
    ``name`` (who said it) becomes its ``speaker``."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise InvalidInputError("messages", "must be a list of messages or {'role', 'content'} mappings")
    out = []
    base = occurred_at or now
    for i, item in enumerate(items):
        field = f"messages[{i}]"
        when = None
        if isinstance(item, Mapping):
            unknown = sorted(set(item) - {"role", "content", "occurred_at", "name", "id"})
            if unknown:
                raise InvalidInputError(f"{field}.{unknown[0]}", "is not a message field (role, content, occurred_at, name, id)")
            role, content, mid, name = item.get("role"), item.get("content"), item.get("id"), item.get("name")
            when = check.instant(item.get("occurred_at"), f"{field}.occurred_at")
        elif hasattr(item, "type") and hasattr(item, "content"):
            role, content, mid = item.type, _text(item.content), getattr(item, "id", None)
            name = getattr(item, "name", None)
            calls = getattr(item, "tool_calls", None) or []
            if calls and not (isinstance(content, str) and content.strip()):  # a turn that only calls tools
                content = "; ".join(f"calls {c.get('name')}({json.dumps(c.get('args'), sort_keys=True, default=str)})"
                                    for c in calls)
        else:
            raise InvalidInputError(field, f"must be a message or a mapping, got {type(item).__name__}")
        if role not in ROLES:
            raise InvalidInputError(f"{field}.role", f"{role!r} is not one of {', '.join(sorted(ROLES))}")
        out.append({"role": ROLES[role], "content": check.text(content, f"{field}.content", limit=check.MAX_EPISODE_LENGTH),
                    "occurred_at": when or base + timedelta(microseconds=i),
                    "id": check.identifier(mid, f"{field}.id", allow_none=True),
                    "speaker": speaker_name(name, f"{field}.name")})
    if not out:
        raise InvalidInputError("messages", "is empty")
    return out


def speaker_name(value: Any, field: str) -> str | None:
    """Who said a message, by name (spacing folded), or None when no name is given."""
    if value is None:
        return None
    return " ".join(check.name(value, field, limit=MAX_NAME_LENGTH).split())


def _text(content: Any) -> Any:
    """A message's text: plain content, or the text parts of multi-part content."""
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text", "") for p in content if isinstance(p, (str, dict))]
        return " ".join(p for p in parts if p)
    return content


def entity_key(draft: EntityDraft) -> tuple[str, str] | None:
    try:
        etype = check.predicate(draft.type, "type")
    except InvalidInputError:
        return None
    key = check.text_key(draft.name or "")
    return (etype, key) if key and etype else None


def unique_entities(extraction: Extraction) -> tuple[list[EntityDraft], list[Skipped]]:
    """The extracted entities with repeats (same type and normalised name or alias) folded
    together, aliases pooled."""
    kept: dict[tuple[str, str], EntityDraft] = {}
    by_alias: dict[tuple[str, str], tuple[str, str]] = {}
    skipped = []
    for draft in extraction.entities:
        key = entity_key(draft)
        if key is None or len(draft.name) > 512:
            skipped.append(Skipped(kind="entity", text=draft.name or "", reason="no usable name or type"))
            continue
        etype = key[0]
        names = [draft.name, *draft.aliases]
        home = next((by_alias[(etype, check.text_key(n))] for n in names if (etype, check.text_key(n)) in by_alias), None)
        if home is None:
            home = key
            kept[home] = EntityDraft(name=" ".join(draft.name.split()), type=etype, aliases=[])
        merged = kept[home]
        for name in names:
            name = " ".join(name.split())
            nkey = check.text_key(name)
            if not nkey:
                continue
            by_alias[(etype, nkey)] = home
            if nkey != check.text_key(merged.name) and nkey not in {check.text_key(a) for a in merged.aliases}:
                merged.aliases.append(name)
    return list(kept.values()), skipped


def name_index(entities: list[EntityDraft]) -> dict[str, int]:
    """Normalised name or alias -> position in ``entities`` (first one wins on a clash)."""
    index: dict[str, int] = {}
    for i, draft in enumerate(entities):
        for name in (draft.name, *draft.aliases):
            index.setdefault(check.text_key(name), i)
    return index


def fact_plan(
    draft: FactDraft, *, names: dict[str, int], entity_ids: Sequence[str | PendingEntity], episodes: list[dict[str, Any]],
    episode_ids: list[str], tz: Any, single_valued: Container[str],
) -> tuple[dict[str, Any] | None, list[str], Skipped | None]:
    """One extracted fact as ``remember()`` arguments (subject/object entity ids resolved,
    a ``PendingEntity`` for one not stored yet; time expressions resolved in code), with
    notes; or the reason it is skipped."""
    text = " ".join((draft.text or "").split())
    subject_index = names.get(check.text_key(draft.subject or ""))
    if subject_index is None:
        return None, [], Skipped(kind="fact", text=text, reason=f"subject {draft.subject!r} is not one of the extracted entities")
    try:
        predicate = check.predicate(draft.predicate)
        check.text(text, "text")
        check.literal(None if draft.object is None else " ".join(str(draft.object).split()) or None, "object")
    except InvalidInputError as exc:
        return None, [], Skipped(kind="fact", text=text, reason=f"{exc.field} {exc.message}")
    if predicate is None:
        return None, [], Skipped(kind="fact", text=text, reason="no predicate")
    obj = None if draft.object is None else " ".join(str(draft.object).split()) or None
    target: str | PendingEntity | None = obj  # a literal value, or the entity it names
    if draft.object_is_entity and obj is not None:
        object_index = names.get(check.text_key(obj))
        if object_index is None:
            return None, [], Skipped(kind="fact", text=text, reason=f"object {obj!r} is not one of the extracted entities")
        target = entity_ids[object_index]
    sources = sorted({n for n in draft.messages if 1 <= n <= len(episodes)}) or list(range(1, len(episodes) + 1))
    said_at = episodes[sources[0] - 1]["occurred_at"]
    notes = []
    valid_from = dates.resolve(draft.valid_from, said_at, tz)
    if draft.valid_from and valid_from is None:
        notes.append(f"{text!r}: time {draft.valid_from!r} not understood; valid from the message time")
    valid_to = dates.resolve(draft.valid_to, said_at, tz)
    if draft.valid_to and valid_to is None:
        notes.append(f"{text!r}: end time {draft.valid_to!r} not understood; left open")
    start = valid_from or said_at
    if valid_to is not None and valid_to < start:
        notes.append(f"{text!r}: end time {draft.valid_to!r} is before its start; left open")
        valid_to = None
    single = draft.replaces or (draft.single_valued if draft.single_valued is not None else predicate in single_valued)
    return {
        "text": text,
        "subject": entity_ids[subject_index],
        "predicate": predicate,
        "object": target,
        "single_valued": single,
        "valid_from": valid_from,  # None: only observed, at the message's time
        "observed_at": said_at,
        "valid_to": valid_to,
        "provenance": Provenance.EXTRACTION,
        "derived_from": [episode_ids[n - 1] for n in sources],
    }, notes, None


def resolved(plan: Mapping[str, Any], entity_ids: Sequence[str | None]) -> dict[str, Any] | None:
    """``plan`` with each pending entity replaced by the id the write transaction gave it
    (``entity_ids``, one per extracted entity); None if one of them was not written."""
    item = dict(plan)
    for key in ("subject", "object"):
        value = item.get(key)
        if isinstance(value, PendingEntity):
            if entity_ids[value.index] is None:
                return None
            item[key] = entity_ids[value.index]
    return item


def mentions(entities: list[EntityDraft], entity_ids: list[str | None], episodes: list[dict[str, Any]],
             episode_ids: list[str], facts: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Episode -> entity MENTIONS: the episode names the entity (name or alias, as words), or
    a fact derived from it is about the entity."""
    pairs = set()
    for i, ep in enumerate(episodes):
        words = f" {check.text_key(ep['content'])} "
        for draft, eid in zip(entities, entity_ids):
            if eid is not None and any(f" {check.text_key(n)} " in words for n in (draft.name, *draft.aliases) if check.text_key(n)):
                pairs.add((episode_ids[i], eid))
    for fact in facts:
        for ep in fact["derived_from"]:
            for eid in (fact["subject"], fact["object"]):
                if eid is not None and eid in entity_ids:
                    pairs.add((ep, eid))
    return [{"episode": a, "entity": b} for a, b in sorted(pairs)]
