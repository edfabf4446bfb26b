"""Events: what the memory did that a caller may want to log, count or trace, delivered to
one hook (``Memory(on_event=...)``) after the change is committed.

A write transaction collects its events while it runs; they are published only when it
commits, once, and an attempt that was rolled back and retried publishes nothing. A hook
that raises is logged and otherwise ignored: observing the memory never breaks it. Every
event is also logged on the ``graphmem`` logger (failures at WARNING, the rest at DEBUG),
so a failure in the background is never lost even without a hook."""

import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidInputError
from .observe import OFF, Observability

logger = logging.getLogger("graphmem")

EventKind = Literal["remembered", "recalled", "ingested", "corrected", "forgotten", "erased",
                    "extraction_done", "extraction_failed", "invalidated", "superseded", "pruned",
                    "demoted", "summary_created"]
_FAILURES = {"extraction_failed"}


class MemoryEvent(BaseModel):
    """One thing the memory did, published after it was committed.

    ``kind`` is one of these, for every write and recall (no text in any of them):

    - ``remembered``: a write created memories; ``ids`` are the new records, and
      ``detail["kinds"]`` counts them by kind (``{"fact": 2, "episode": 1}``); one event per
      committed transaction, whatever call made it;
    - ``recalled``: a recall answered; ``ids`` are the records returned, best first;
      ``detail`` holds ``k``, ``returned`` and ``candidates`` (how many each side brought:
      ``semantic``, ``lexical``, ``graph``, ``entity``); ``seconds`` is how long it took;
    - ``ingested``: ``ingest`` stored a conversation; ``ids`` are its episodes; ``detail``
      counts ``messages``, ``facts``, ``entities`` and ``model_requests``, and the tokens
      the model reported (``input_tokens``, ``output_tokens``); ``seconds`` as above;
    - ``corrected``: ``correct`` replaced a fact; ``ids`` are the correction, then the
      fact it corrected; ``detail["invalidated"]`` counts what it retired;
    - ``forgotten``: ``forget`` (or a store's delete) retired records at a caller's
      request; ``ids`` are those records (each also has its ``invalidated`` event);
    - ``erased``: ``erase`` deleted a person's or a scope's records for good, or a store's
      TTL sweep deleted expired items (``reason`` ``expired``); ``detail`` counts what went
      (no ids: they are gone);

    and these, for what the memory decides itself:

    - ``extraction_done``: a background extraction (``after_turn``) finished; ``detail``
      counts what it wrote;
    - ``extraction_failed``: a model or the database failed during extraction, after the
      messages were stored; ``error`` says why, ``ids`` are the episodes kept;
    - ``invalidated``: records retired as no longer believed (``reason``: corrected,
      contradicted, replaced, forgotten, edited, removed, merged, folded, duplicate);
    - ``superseded``: facts whose valid time a newer value ended (still believed as history);
    - ``pruned``: records retired by curation or the insight salience pass;
    - ``demoted``: a validated procedure sent back to quarantine by its failure rate;
    - ``summary_created``: a session summary was written (``ids``: the new summary first,
      then the one that folds older summaries, if any)."""

    model_config = ConfigDict(frozen=True)

    kind: EventKind
    tenant: str
    """The tenant of the memory that published it."""
    at: datetime
    """When it was published (the memory's clock)."""
    ids: tuple[str, ...] = ()
    """The records concerned."""
    scope: str | None = None
    """The scope the change was made in or for, when one call names one."""
    reason: str | None = None
    error: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
    seconds: float | None = None
    """How long the call took (``recalled``, ``ingested``), else None."""


Hook = Callable[[MemoryEvent], Any]
Pending = dict[str, Any]


def check_hook(hook: Any) -> Hook | None:
    if hook is not None and not callable(hook):
        raise InvalidInputError("on_event", f"must be a callable taking a MemoryEvent, got {type(hook).__name__}")
    return hook  # type: ignore[no-any-return]


def pending(kind: str, ids: Iterable[str] = (), **fields: Any) -> Pending | None:
    """An event to publish later, or None when it concerns nothing (an empty id list of a
    kind that is about records)."""
    ids = tuple(dict.fromkeys(ids))
    if not ids and kind in ("invalidated", "superseded", "pruned", "demoted", "forgotten", "remembered"):
        return None
    return {"kind": kind, "ids": ids, **fields}


class Emitter:
    """Delivers events to the hook (if any) and the ``graphmem`` logger."""

    def __init__(self, hook: Hook | None, *, tenant: str, clock: Callable[[], datetime],
                 observe: Observability = OFF) -> None:
        self.hook = hook
        self._tenant = tenant
        self._clock = clock
        self._observe = observe

    @property
    def listening(self) -> bool:
        """Whether an event would reach anyone (a hook, or the logger at DEBUG): events that
        carry only news (``recalled``) are not even built otherwise."""
        return self.hook is not None or logger.isEnabledFor(logging.DEBUG)

    def publish(self, events: Iterable[Pending]) -> None:
        for fields in events:
            try:  # metrics of a committed change: never a reason to fail the call that made it
                self._observe.event(fields["kind"], fields.get("ids", ()), fields.get("reason"),
                                    fields.get("detail") or {})
            except Exception:
                logger.exception("graphmem: could not count a %s event in the metrics", fields.get("kind"))
            if not self.listening and fields["kind"] not in _FAILURES:
                continue  # nobody to tell
            try:
                event = MemoryEvent(tenant=self._tenant, at=self._clock(), **fields)
            except Exception:  # a malformed event must not fail a write that has committed
                logger.exception("graphmem: could not build a %s event (dropped)", fields.get("kind"))
                continue
            level = logging.WARNING if event.kind in _FAILURES else logging.DEBUG
            if logger.isEnabledFor(level):
                logger.log(level, "graphmem event %s: %s", event.kind,
                           event.error or f"{len(event.ids)} record(s)" + (f" ({event.reason})" if event.reason else ""))
            if self.hook is None:
                continue
            try:
                self.hook(event)
            except Exception:
                logger.exception("graphmem: the on_event hook raised on a %s event (ignored)", event.kind)

    def emit(self, kind: str, ids: Iterable[str] = (), **fields: Any) -> None:
        """Publish one event now (for what is not part of a write transaction)."""
        event = pending(kind, ids, **fields)
        if event is not None:
            self.publish([event])
