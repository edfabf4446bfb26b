"""What an erase removed, by kind (``EraseReport``), without I/O. The batches that find
and delete it are in ``_async/records.py``; docs/design-notes.md#erase-follows-derivations
says what an erase takes with it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base.kinds import KINDS
from .._base.records import Row

PERSONAL = ["user", "human-correction"]
"""Provenances of what a person entered: an entity with one of them is never erased for
being left unreferenced."""


@dataclass(frozen=True, slots=True)
class SelectedRow(Row):
    """How many memories a batch marked for erasing: those the selectors name, and the
    orphans (derived from nothing left) it took along."""

    TEMPLATES = ("erase_mark_selected",)
    selected: int
    orphans: int


@dataclass(frozen=True, slots=True)
class DerivedRow(Row):
    """How many records derived only from marked ones were marked too."""

    TEMPLATES = ("erase_mark_derived",)
    derived: int


@dataclass(frozen=True, slots=True)
class EntitiesRow(Row):
    """How many entities nothing else refers to were marked."""

    TEMPLATES = ("erase_mark_entities",)
    entities: int


@dataclass(frozen=True, slots=True)
class RestoredRow(Row):
    """The surviving facts an erased fact had superseded, given back their times."""

    TEMPLATES = ("erase_restore",)
    restored: list[str]


@dataclass(frozen=True, slots=True)
class ScrubbedRow(Row):
    """How many properties of surviving records had an erased id taken out."""

    TEMPLATES = ("erase_scrub",)
    scrubbed: int


@dataclass(frozen=True, slots=True)
class DeletedRow(Row):
    """What one batch deleted: episode windows, and memories per kind (``[{kind, n}]``)."""

    TEMPLATES = ("erase_delete",)
    windows: int
    kinds: list[dict[str, Any]]


class EraseReport(BaseModel):
    """What one ``erase`` call deleted, by kind. ``total`` (also ``int(report)``, and what a
    format spec such as ``f"{report:,}"`` formats) counts the memories, as the integer
    ``erase`` returned before; the windows of long episodes (``chunk``) and the emptied
    ``:Scope`` nodes (``scope``) are counted apart. A report is true when anything was
    deleted, and reports add up (``a + b``, ``sum(reports)``). A kind of the registry
    (``_base/kinds.py``) without a field of its own here is counted all the same, as an
    extra field of its name."""

    model_config = ConfigDict(frozen=True, extra="allow")

    fact: int = 0
    """Facts: the ones named, and those derived only from erased episodes (profile fields and
    LangGraph store items are facts too)."""
    episode: int = 0
    """Episodes: messages, tool calls and events of the user, scope or id named."""
    entity: int = 0
    """Entities named, and those only erased records created or mentioned."""
    insight: int = 0
    """Insights named, and those citing erased records only."""
    procedure: int = 0
    """Procedures named, and induced ones whose trajectory was all erased."""
    summary: int = 0
    """Session summaries named, and those whose episodes were all erased."""
    note: int = 0
    """Core notes in the scope, or filed under the erased user as owner."""
    correction: int = 0
    """Corrections named (by their user, scope or id)."""
    decision: int = 0
    """Decisions named, and those derived only from erased episodes."""
    other: int = 0
    """Memories of a kind this version does not know."""
    chunk: int = 0
    """Windows of long episodes (not memories)."""
    scope: int = 0
    """``:Scope`` nodes left empty and deleted."""
    restored: int = 0
    """Surviving facts an erased fact had superseded, given back their times (not deletions)."""

    @property
    def total(self) -> int:
        """How many memories were deleted (every kind but ``chunk`` and ``scope``)."""
        return sum(int(getattr(self, kind, 0)) for kind in KINDS) + self.other

    @property
    def by_kind(self) -> dict[str, int]:
        """The kinds with at least one deletion, and how many."""
        return {kind: n for kind, n in self.model_dump().items() if n and kind != "restored"}

    def __int__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        return bool(self.by_kind)

    def __format__(self, spec: str) -> str:
        return format(self.total, spec) if spec else str(self)

    def __add__(self, other: EraseReport) -> EraseReport:
        if not isinstance(other, EraseReport):
            return NotImplemented
        mine, theirs = self.model_dump(), other.model_dump()
        return EraseReport(**{k: mine.get(k, 0) + theirs.get(k, 0) for k in {**mine, **theirs}})

    def __radd__(self, other: object) -> EraseReport:
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:  # sum()'s start
            return self
        return NotImplemented

    def __str__(self) -> str:
        parts = ", ".join(f"{kind}: {n}" for kind, n in self.by_kind.items())
        back = f"; {self.restored} superseded facts current again" if self.restored else ""
        return f"{self.total} memories erased" + (f" ({parts})" if parts else "") + back


def batch_report(row: DeletedRow | None) -> EraseReport:
    """The report of one ``erase_delete`` row (None when the batch deleted nothing)."""
    if row is None:
        return EraseReport()
    return counted(row.kinds, chunk=int(row.windows))


def counted(kinds: Iterable[Mapping[str, Any]], **extra: int) -> EraseReport:
    """A report from ``[{kind, n}]`` rows; unknown kinds go to ``other``."""
    counts: dict[str, int] = dict(extra)
    for row in kinds:
        kind = row["kind"] if row["kind"] in KINDS else "other"
        counts[kind] = counts.get(kind, 0) + int(row["n"])
    return EraseReport(**counts)
