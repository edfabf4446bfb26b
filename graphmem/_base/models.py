"""The records graphmem stores and returns (pydantic models; all timestamps UTC-aware)."""

from datetime import datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Provenance(str, Enum):
    """Where a memory came from. ``trust`` orders them for ranking and conflicts."""

    HUMAN_CORRECTION = "human-correction"
    USER = "user"
    MANUAL = "manual"
    EXTRACTION = "extraction"
    REFLECTION = "reflection"
    INDUCTION = "induction"

    @property
    def trust(self) -> int:
        """Rank in ranking and conflicts: 5 for ``human-correction`` down to 1 for ``reflection`` and ``induction``."""
        return _TRUST[self]

    @property
    def automatic(self) -> bool:
        """True for records a machine produced (never protected from automatic invalidation)."""
        return self in (Provenance.EXTRACTION, Provenance.REFLECTION, Provenance.INDUCTION)


AUTOMATIC = [p.value for p in Provenance if p.automatic]
"""Provenances of machine-made records (the only ones automatic invalidation may touch, and
the ones that never outrank a person's record in a scope chain's view)."""

_TRUST = {
    Provenance.HUMAN_CORRECTION: 5,
    Provenance.USER: 4,
    Provenance.MANUAL: 3,
    Provenance.EXTRACTION: 2,
    Provenance.REFLECTION: 1,
    Provenance.INDUCTION: 1,
}


class Status(str, Enum):
    """Whether a record may drive actions: ``active``; ``quarantined`` (machine-made, left out of
    ``purpose="act"`` recall until validated); ``rejected`` (kept, never recalled)."""

    ACTIVE = "active"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"


class Sensitivity(str, Enum):
    """How carefully a memory must be handled, from least to most sensitive."""

    PUBLIC = "public"
    INTERNAL = "internal"
    CONFIDENTIAL = "confidential"
    RESTRICTED = "restricted"

    @property
    def level(self) -> int:
        """Position from 0 (``public``) to 3 (``restricted``)."""
        return list(Sensitivity).index(self)


class Supersession(BaseModel):
    """One SUPERSEDES edge as seen from the older record: who replaced it, why, when."""

    model_config = ConfigDict(frozen=True)

    by: str
    """Id of the newer record that took this one's place."""
    reason: str
    """Why: ``changed`` (the world changed), ``corrected``, ``contradicted``, ``merged``..."""
    at: datetime
    """When the newer record was written (transaction time)."""
    note: str | None = None
    """The free-text reason given with a correction, if any."""


class MemoryRecord(BaseModel):
    """Properties every memory kind shares (contract §2)."""

    model_config = ConfigDict(frozen=True, use_enum_values=False)

    kind: str
    """``fact``, ``episode``, ``entity``, ``insight``, ``procedure``, ``correction``,
    ``decision``, ``note`` or ``summary`` (``_base/kinds.py``'s registry)."""
    id: str
    """Stable id, given by the caller or generated; writing the same id again is idempotent."""
    tenant: str
    """The tenant it belongs to; nothing is ever shared across tenants."""
    scope: str
    """The scope path it is stored at; visible from there and from every scope below."""
    text: str
    """The memory in words: the statement, message, entity name, observation or rule."""
    created_at: datetime
    """When graphmem recorded it (start of transaction time)."""
    invalidated_at: datetime | None = None
    """When the memory stopped believing it; ``None`` while it is believed."""
    invalidation_reason: str | None = None
    """Why it stopped being believed: ``corrected``, ``contradicted``, ``forgotten``, ``pruned``, ``merged``."""
    provenance: Provenance = Provenance.MANUAL
    """Who produced it, which sets how far it is trusted (see ``Provenance``)."""
    status: Status = Status.ACTIVE
    """Whether it may drive actions (see ``Status``)."""
    sensitivity: Sensitivity = Sensitivity.INTERNAL
    """How carefully it must be handled; ``recall(max_sensitivity=...)`` filters on it."""
    importance: float = 0.5
    """From 0 to 1 (default 0.5); one of recall's ranking signals."""
    tags: tuple[str, ...] = ()
    """Free labels given by the writer."""
    user_id: str | None = None
    """The user it concerns or came from, when known."""
    agent_id: str | None = None
    """The agent that wrote or observed it, when known."""
    session_id: str | None = None
    """The conversation or run it came from, when known."""
    status_changed_at: datetime | None = None
    """When ``status`` last changed (validate, reject, demotion); ``None`` if never."""
    status_log: tuple[str, ...] = ()
    """Each status change (validate, reject, demotion): when, from, to and why."""
    superseded_by: tuple[Supersession, ...] = ()
    """The SUPERSEDES edges pointing at this record (filled by ``get`` and ``history``)."""
    embedding: list[float] | None = Field(default=None, repr=False)
    """Always ``None`` on returned records: vectors stay in Neo4j. Writers may pass one in."""

    @property
    def believed(self) -> bool:
        """Currently believed (not invalidated in transaction time)."""
        return self.invalidated_at is None


class Fact(MemoryRecord):
    """A single statement, optionally structured as subject, predicate and object, with its
    valid time (when it held in the world) beside the transaction time every record has."""

    kind: Literal["fact"] = "fact"
    """Always ``fact``."""
    subject: str | None = None
    """The subject: an entity id (see ``subject_name``) or a literal, if structured."""
    predicate: str | None = None
    """The normalised attribute name, such as ``lives_in``, if structured."""
    object: str | None = None
    """The object: an entity id (see ``object_name``) or a literal value."""
    subject_name: str | None = None
    """The subject entity's name, when the subject is an entity."""
    object_name: str | None = None
    """The object entity's name, when the object is an entity."""
    valid_from: datetime | None = None
    """When it became true; None when only its end is known (see ``valid_from_stated``)."""
    valid_to: datetime | None = None
    """When it stopped holding; ``None`` while it still holds."""
    valid_from_stated: bool = True
    """False when ``valid_from`` is only when the statement was observed ("true at least
    since"), not a start someone stated; a later change with an earlier stated start then
    ends it (contract §4, docs/time-model.md)."""
    observed_from: datetime | None = None
    """The observed start of a fact whose start became unknown (see ``valid_from_stated``)."""
    single_valued: bool = False
    """Whether the predicate has one value at a time, so a new value supersedes the old."""

    def valid_at(self, instant: datetime) -> bool:
        """Whether the statement held at ``instant`` (valid time; start included, end excluded)."""
        starts = self.valid_from is None or self.valid_from <= instant
        return starts and (self.valid_to is None or self.valid_to > instant)


class Episode(MemoryRecord):
    """Something observed as it happened (a message, a tool call, an event); never changed."""

    kind: Literal["episode"] = "episode"
    """Always ``episode``."""
    occurred_at: datetime | None = None
    """When it happened (the message time), as opposed to when it was recorded."""
    role: str = "user"
    """``user``, ``assistant``, ``tool``, ``system`` or ``event``."""
    source: str | None = None
    """Where it came from (a channel, file or tool name), when given."""
    speaker: str | None = None
    """Who said it, by name, when the message carried one (a message's ``name``); the
    speaker's entity has a ``SPOKE`` edge to the episode."""
    refers_to: tuple[datetime, ...] = ()
    """The moments its time expressions name, resolved against ``occurred_at`` ("last
    week" said on 2023-05-08 is 2023-05-01), in the order they are said."""


class Entity(MemoryRecord):
    """A person, organisation, place or other thing that facts are about; one node per real thing."""

    kind: Literal["entity"] = "entity"
    """Always ``entity``."""
    name: str = ""
    """The canonical name."""
    type: str = ""
    """What it is, such as ``person`` or ``organisation``; names are resolved per type."""
    aliases: tuple[str, ...] = ()
    """Other names it is known by; resolution matches them too."""
    properties: dict[str, Any] = Field(default_factory=dict)
    """Free key-value attributes, merged on every upsert."""


class Insight(MemoryRecord):
    """An observation drawn from other memories (``reflect``, ``add_insight``), citing its evidence."""

    kind: Literal["insight"] = "insight"
    """Always ``insight``."""
    salience: int = 2
    """Starts at 2, +1 per corroboration; at 0 or below the insight is pruned."""
    cites: tuple[str, ...] = ()
    """Ids of the facts and episodes it rests on (at least one)."""
    last_corroborated_at: datetime | None = None
    """When a fact last corroborated it."""


class Procedure(MemoryRecord):
    """A standing rule or a reusable workflow, written by an author or induced from a trajectory."""

    kind: Literal["procedure"] = "procedure"
    """Always ``procedure``."""
    trigger: str | None = None
    """The situation that calls for it, in words."""
    condition: str | None = None
    """A further condition under which it applies."""
    priority: int = 0
    """Any integer; a higher one ranks a procedure higher in ``suggest_procedures``."""
    steps: tuple[str, ...] = ()
    """The steps in order, with ``{variable}`` placeholders for concrete values."""
    variables: tuple[str, ...] = ()
    """The placeholder names ``bind`` fills in."""
    success_criteria: str | None = None
    """How to tell the procedure worked."""
    success_count: int = 0
    """Uses recorded as successful by ``record_outcome``."""
    failure_count: int = 0
    """Uses recorded as failed by ``record_outcome``."""
    last_used_at: datetime | None = None
    """When an outcome was last recorded."""
    cites: tuple[str, ...] = ()
    """Ids of the episodes it was induced from."""


class Correction(MemoryRecord):
    """A person's correction of something an agent produced (provenance human-correction;
    ``text`` is the corrected value, ``agent_id`` the agent corrected)."""

    kind: Literal["correction"] = "correction"
    original_value: str = ""
    """What the agent produced."""
    corrected_value: str = ""
    """What a person said it should have been."""
    field: str | None = None
    """The part of the output that was wrong, if named (e.g. ``amount``)."""
    reason: str | None = None
    """Why, in the person's words."""
    entity_key: str | None = None
    """What the output was about (e.g. ``invoice:42``), for statistics and regression cases."""
    original_input: str | None = None
    """The input the agent answered, which turns the correction into a regression case."""
    run_id: str | None = None
    """The episode of the run that produced the output (an ``ABOUT`` edge points to it)."""


class Decision(MemoryRecord):
    """A decision an agent took, why, and (once recorded) how it turned out."""

    kind: Literal["decision"] = "decision"
    reasoning: str = ""
    """Why the agent decided so."""
    decision_type: str = ""
    """A category to compare decisions by (e.g. ``refund``)."""
    context: str | None = None
    """What the agent knew when deciding."""
    alternatives: tuple[str, ...] = ()
    """The options it did not take."""
    confidence: float | None = None
    """The agent's confidence, 0..1, if given."""
    outcome: str | None = None
    """What happened, once recorded."""
    quality: str | None = None
    """``good``, ``bad`` or ``neutral``, once an outcome is recorded."""
    outcome_at: datetime | None = None
    """When the outcome was recorded."""
    outcome_log: tuple[str, ...] = ()
    """Earlier outcomes, each replaced by a later one: when, quality and outcome."""


class Note(MemoryRecord):
    """A core note: a short entry an agent keeps in its prompt, per ``owner`` and ``label``
    (contract §10); an edit is a new version that supersedes this one."""

    kind: Literal["note"] = "note"
    owner: str = ""
    label: str = "default"


class Summary(MemoryRecord):
    """A summary of a session's older messages; ``cites`` the episodes it covers (contract §10)."""

    kind: Literal["summary"] = "summary"
    cites: tuple[str, ...] = ()
    covers_from: datetime | None = None
    """When the first message it covers happened."""
    covers_to: datetime | None = None
    """When the last message it covers happened."""


class Scope(BaseModel):
    """A scope path inside a tenant, e.g. ``acme/support/alice``."""

    model_config = ConfigDict(frozen=True)

    path: str
    """Segments joined by ``/``, checked when the model is built."""

    @field_validator("path")
    @classmethod
    def _valid(cls, value: str) -> str:
        from .scopes import check_path

        return check_path(value)

    @property
    def chain(self) -> list[str]:
        """This scope and its ancestors, root first: the scopes whose memories it sees."""
        from .scopes import chain

        return chain(self.path)

    @property
    def parent(self) -> "Scope | None":
        """The enclosing scope, or ``None`` at the root."""
        head, sep, _ = self.path.rpartition("/")
        return Scope(path=head) if sep else None


Record = Fact | Episode | Entity | Insight | Procedure | Correction | Decision | Note | Summary
