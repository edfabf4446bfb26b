"""Re-embedding a store with another embedder, without I/O: what a run reports, how its
progress reads, and what each stored memory is given to embed (``_memory/embedded.py``).
The I/O, and the order of its phases, is ``_async/reembed.py`` (docs/operations.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from .._base import validate as check
from .._base.errors import InvalidInputError
from . import embedded

SAME_EMBEDDER = 0.999
"""Cosine of two probe vectors above which a run's embedder is the one a re-embedding under
way was started with (the same model gives the same vector, give or take arithmetic)."""


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


def texts(rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of a ``reembed_page`` that have something to embed, and what each is given."""
    kept, given = [], []
    for row in rows:
        text = embedded.text_of(row["kind"], row["props"], row.get("episodeText"))
        if text is not None:
            kept.append(row)
            given.append(text)
    return kept, given


def vectors(rows: Sequence[dict[str, Any]], got: Any, dimensions: int) -> list[dict[str, Any]]:
    """The ``reembed_write`` rows for ``rows`` and the embedder's answer, each vector checked."""
    if not isinstance(got, (list, tuple)) or len(got) != len(rows):
        count = len(got) if isinstance(got, (list, tuple)) else type(got).__name__
        raise InvalidInputError("embedder", f"returned {count} vectors for {len(rows)} texts")
    return [{"tenant": row["tenant"], "id": row["id"], "vector": check.embedding(vector, "embedder output", dimensions)}
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
