"""The records graphmem stores and returns (pydantic models; all timestamps UTC-aware)."""

from __future__ import annotations

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
        return _TRUST[self]

    @property
    def automatic(self) -> bool:
        """True for records a machine produced (never protected from automatic invalidation)."""
        return self in (Provenance.EXTRACTION, Provenance.REFLECTION, Provenance.INDUCTION)


_TRUST = {
    Provenance.HUMAN_CORRECTION: 5,
    Provenance.USER: 4,
    Provenance.MANUAL: 3,
    Provenance.EXTRACTION: 2,
    Provenance.REFLECTION: 1,
    Provenance.INDUCTION: 1,
}


class Status(str, Enum):
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
        return list(Sensitivity).index(self)


class Supersession(BaseModel):
    """One SUPERSEDES edge as seen from the older record: who replaced it, why, when."""

    model_config = ConfigDict(frozen=True)

    by: str
    reason: str
    at: datetime
    note: str | None = None


class MemoryRecord(BaseModel):
    """Properties every memory kind shares (contract §2)."""

    model_config = ConfigDict(frozen=True, use_enum_values=False)

    kind: str
    id: str
    tenant: str
    scope: str
    text: str
    created_at: datetime
    invalidated_at: datetime | None = None
    invalidation_reason: str | None = None
    provenance: Provenance = Provenance.MANUAL
    status: Status = Status.ACTIVE
    sensitivity: Sensitivity = Sensitivity.INTERNAL
    importance: float = 0.5
    tags: tuple[str, ...] = ()
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    status_changed_at: datetime | None = None
    status_log: tuple[str, ...] = ()
    """Each status change (validate, reject, demotion): when, from, to and why."""
    superseded_by: tuple[Supersession, ...] = ()
    """The SUPERSEDES edges pointing at this record (filled by ``get`` and ``history``)."""
    embedding: list[float] | None = Field(default=None, repr=False)

    @property
    def believed(self) -> bool:
        """Currently believed (not invalidated in transaction time)."""
        return self.invalidated_at is None


class Fact(MemoryRecord):
    kind: Literal["fact"] = "fact"
    subject: str | None = None
    """The subject: an entity id (see ``subject_name``) or a literal."""
    predicate: str | None = None
    object: str | None = None
    """The object: an entity id (see ``object_name``) or a literal value."""
    subject_name: str | None = None
    """The subject entity's name, when the subject is an entity."""
    object_name: str | None = None
    """The object entity's name, when the object is an entity."""
    valid_from: datetime | None = None
    """When it became true; None when only its end is known (see ``valid_from_stated``)."""
    valid_to: datetime | None = None
    valid_from_stated: bool = True
    """False when ``valid_from`` is only when the statement was observed ("true at least
    since"), not a start someone stated; a later change with an earlier stated start then
    ends it (contract §4, docs/time-model.md)."""
    observed_from: datetime | None = None
    """The observed start of a fact whose start became unknown (see ``valid_from_stated``)."""
    single_valued: bool = False

    def valid_at(self, instant: datetime) -> bool:
        starts = self.valid_from is None or self.valid_from <= instant
        return starts and (self.valid_to is None or self.valid_to > instant)


class Episode(MemoryRecord):
    kind: Literal["episode"] = "episode"
    occurred_at: datetime | None = None
    role: str = "user"
    source: str | None = None


class Entity(MemoryRecord):
    kind: Literal["entity"] = "entity"
    name: str = ""
    type: str = ""
    aliases: tuple[str, ...] = ()
    properties: dict[str, Any] = Field(default_factory=dict)


class Insight(MemoryRecord):
    kind: Literal["insight"] = "insight"
    salience: int = 2
    cites: tuple[str, ...] = ()
    last_corroborated_at: datetime | None = None


class Procedure(MemoryRecord):
    kind: Literal["procedure"] = "procedure"
    trigger: str | None = None
    condition: str | None = None
    priority: int = 0
    steps: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()
    success_criteria: str | None = None
    success_count: int = 0
    failure_count: int = 0
    last_used_at: datetime | None = None
    cites: tuple[str, ...] = ()


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

    @field_validator("path")
    @classmethod
    def _valid(cls, value: str) -> str:
        from ._scopes import check_path

        return check_path(value)

    @property
    def chain(self) -> list[str]:
        """This scope and its ancestors, root first: the scopes whose memories it sees."""
        from ._scopes import chain

        return chain(self.path)

    @property
    def parent(self) -> Scope | None:
        head, sep, _ = self.path.rpartition("/")
        return Scope(path=head) if sep else None


Record = Fact | Episode | Entity | Insight | Procedure | Note | Summary
