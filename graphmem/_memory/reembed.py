"""Re-embedding a store with another embedder, without I/O: what a run reports, how its
progress reads, and what each stored memory is given to embed (``_memory/embedded.py``).
The I/O, and the order of its phases, is ``_async/reembed.py`` (docs/operations.md)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.records import Row
from . import embedded

PROBE = "dimension probe"
"""The sentence whose vector tells one embedder from another (recorded with a re-embedding)."""
LEASE_SECONDS = 600
"""How long a run's claim holds without progress (a batch written, or a wait for the index
noted) before another process may take it over: a run killed on another host."""
SAME_EMBEDDER = 0.999
"""Cosine of two probe vectors above which a run's embedder is the one a re-embedding under
way was started with (the same model gives the same vector, give or take arithmetic)."""


@dataclass(frozen=True, slots=True)
class ClaimRow(Row):
    """The run holding the re-embedding's claim, if any (its id, host, process id and last
    progress as text), whether that progress is stale, the store's slot, and whether a
    re-embedding is recorded."""

    TEMPLATES = ("reembed_claim",)
    run: str | None
    host: str | None
    pid: int | None
    beat_at: str | None
    stale: bool
    slot: str | None
    recorded: bool


@dataclass(frozen=True, slots=True)
class StripesRow(Row):
    """The writers' lock stripes a claim made sure of."""

    TEMPLATES = ("reembed_claimed",)
    stripes: int


@dataclass(frozen=True, slots=True)
class PageRow(Row):
    """A memory a re-embedding has still to embed: what it is given to embed is read from
    ``kind``, ``props`` and, for a long episode's window, ``episode_text``."""

    TEMPLATES = ("reembed_page",)
    tenant: str
    id: str
    kind: str
    props: dict[str, Any]
    episode_text: str | None


@dataclass(frozen=True, slots=True)
class ClearedRow(Row):
    """One page of vectors removed: how many, and the last id looked at (None: the tenant is done)."""

    TEMPLATES = ("reembed_clear",)
    cleared: int
    last: str | None

    @property
    def count(self) -> int:
        return self.cleared


@dataclass(frozen=True, slots=True)
class StrandedRow(Row):
    """One page of memories marked to be embedded from their text: how many, and the last id looked at."""

    TEMPLATES = ("reembed_strand",)
    marked: int
    last: str | None

    @property
    def count(self) -> int:
        return self.marked


@dataclass(frozen=True, slots=True)
class FilledRow(Row):
    """Memories that already have a vector in the slot a re-embedding fills."""

    TEMPLATES = ("reembed_filled",)
    filled: int


@dataclass(frozen=True, slots=True)
class RemainingRow(Row):
    """Memories a re-embedding has still to embed."""

    TEMPLATES = ("reembed_remaining",)
    remaining: int


@dataclass(frozen=True, slots=True)
class ProbeRow(Row):
    """The probe vector of the embedder the re-embedding under way started with (None: none recorded)."""

    TEMPLATES = ("reembed_probe",)
    probe: list[float] | None


@dataclass(frozen=True, slots=True)
class OwnedRow(Row):
    """Whether the run still holds the claim (its progress noted)."""

    TEMPLATES = ("reembed_beat",)
    owned: bool


@dataclass(frozen=True, slots=True)
class ReembedWriteRow(Row):
    """Whether the run still holds the claim, and how many new vectors it wrote."""

    TEMPLATES = ("reembed_write",)
    owned: bool
    written: int | None


class ReembedProgress(BaseModel):
    """Where a re-embedding is, after each batch (``reembed(progress=...)``)."""

    phase: str
    """``embed`` (new vectors beside the old), ``switch``, ``clean`` (old vectors removed)."""
    done: int
    """Memories done in this phase so far."""
    total: int
    """Memories the phase has to do (as counted when it began, or more if writers added some)."""
    seconds: float
    """Since the run began."""
    rate: float
    """Memories embedded per second so far in this run."""

    @property
    def left_seconds(self) -> float | None:
        """About how long the phase has left at this rate (None before a rate is known)."""
        if self.rate <= 0:
            return None
        return max(self.total - self.done, 0) / self.rate

    def line(self) -> str:
        """One line for a terminal: ``embed: 12,000 / 40,000 (30%), 820/s, about 35 s left``."""
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = self.left_seconds
        about = "" if left is None or self.phase != "embed" else f", about {_duration(left)} left"
        return f"{self.phase}: {self.done:,} / {self.total:,}{share}, {self.rate:,.0f}/s{about}"


class ReembedReport(BaseModel):
    """What ``reembed`` did, or with ``dry_run`` what it would do and about how long it takes."""

    dry_run: bool
    """Whether nothing was changed (``dry_run=True``)."""
    embedder: str
    """The new embedder's model name (or class)."""
    dimensions: int
    """The dimension of its vectors: the new vector index's."""
    tenants: list[str] | None
    """The tenants asked for (None: every tenant)."""
    embedded: int
    """Memories given a new vector by this run (a dry run: that would be)."""
    resumed: int
    """Memories that already had one from an earlier, interrupted run."""
    remaining: int
    """Memories of other tenants still without a new vector: the switch waits for them."""
    switched: bool
    """Whether the store now answers from the new vectors (its slot switched)."""
    cleaned: int
    """Old vectors removed after the switch."""
    index: str
    """The vector index recall uses after the run."""
    seconds: float
    """How long the run took."""
    rate: float
    """Memories embedded per second (a dry run: measured on a sample of the store)."""
    estimate_seconds: float | None = None
    """A dry run: about how long embedding the memories takes at that rate. The run adds the
    writes (about 1,900 memories a second on two cores with a fast embedder, bench/reembed.py)
    and the new index's build."""


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{math.ceil(seconds)} s"
    if seconds < 5400:
        return f"{math.ceil(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def texts(rows: Sequence[PageRow]) -> tuple[list[PageRow], list[str]]:
    """The rows of a ``reembed_page`` that have something to embed, and what each is given."""
    kept, given = [], []
    for row in rows:
        text = embedded.text_of(row.kind, row.props, row.episode_text)
        if text is not None:
            kept.append(row)
            given.append(text)
    return kept, given


def vectors(rows: Sequence[PageRow], got: Any, dimensions: int) -> list[dict[str, Any]]:
    """The ``reembed_write`` rows for ``rows`` and the embedder's answer, each vector checked."""
    if not isinstance(got, (list, tuple)) or len(got) != len(rows):
        count = len(got) if isinstance(got, (list, tuple)) else type(got).__name__
        raise InvalidInputError("embedder", f"returned {count} vectors for {len(rows)} texts")
    return [{"tenant": row.tenant, "id": row.id, "vector": check.embedding(vector, "embedder output", dimensions)}
            for row, vector in zip(rows, got)]


def same_embedder(probe: Sequence[float] | None, other: Sequence[float]) -> bool:
    """Whether two embedders' vectors of the same probe sentence say they are one embedder."""
    if probe is None or len(probe) != len(other):
        return False
    dot = sum(a * b for a, b in zip(probe, other))
    norms = math.sqrt(sum(a * a for a in probe)) * math.sqrt(sum(b * b for b in other))
    return norms > 0 and dot / norms >= SAME_EMBEDDER


def tenants(value: Any) -> list[str] | None:
    """The ``tenants`` argument checked: None (every tenant) or tenant ids."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInputError("tenants", "must be a list of tenant ids, or None for every tenant")
    names = sorted({check.identifier(t, "tenants") for t in value})
    if not names:
        raise InvalidInputError("tenants", "must name at least one tenant, or be None for every tenant")
    return names


def stale_embedder(active: dict[str, Any] | None, dimensions: int | None, own: Sequence[float]) -> str | None:
    """Why a memory object whose embedder gives ``own`` for ``PROBE`` may not write or recall
    in a store whose active slot holds ``active``'s vectors (``Layout.active``: a re-embedding
    put them there) in an index of ``dimensions``; None when it may. Without a recorded
    embedder only the dimension can tell."""
    if active and active.get("probe"):
        if same_embedder(active["probe"], own):
            return None
        return (f"this store was re-embedded (graphmem reembed) to {active.get('embedder')}, vectors of "
                f"{active.get('dimensions')} dimensions, on {active.get('at')}, and this memory object's embedder "
                f"gives other vectors ({len(own)} dimensions): make the memory object with the new embedder "
                "(docs/operations.md#while-a-run-is-under-way-what-is-guaranteed)")
    if dimensions is not None and dimensions != len(own):
        return (f"this store was re-embedded (graphmem reembed) to vectors of {dimensions} dimensions while this "
                f"memory object's embedder gives {len(own)}: make the memory object with the new embedder")
    return None


def claim_refused(holder: ClaimRow | None, host: str, alive: Callable[[int], bool]) -> str | None:
    """Why a run may not claim the re-embedding: another run holds it (``holder``, the
    ``reembed_claim`` row) and is alive as far as this process can tell: it made progress in
    the last ``LEASE_SECONDS``, and when it ran on this ``host``, its process is ``alive``.
    None when the claim is free (or its holder is gone: the caller takes it over)."""
    if not holder or not holder.run or holder.stale:
        return None
    pid = holder.pid
    if holder.host == host and isinstance(pid, int) and not alive(pid):
        return None
    return (f"a re-embedding is under way (run {holder.run}, process {pid} on {holder.host}, last progress "
            f"{holder.beat_at}): only one runs at a time. Wait for it to finish; if that process is gone, run "
            f"graphmem reembed again with its embedder to continue it (at once on {holder.host}, elsewhere "
            f"{LEASE_SECONDS // 60} minutes after its last progress), or with restart=True (graphmem reembed "
            "--restart) to drop what it wrote")


def process_alive(pid: int) -> bool:
    """Whether a process of this host has the id ``pid``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError among them: it exists, owned by someone else
        return True
    return True
