# Generated from graphmem/_async/reembed.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Re-embedding a store with another embedder on ``Memory`` (``graphmem reembed``).

The store's vectors live in one of two slots (``_base/layout.py``). A run fills the other
slot with the new embedder's vectors, a batch per transaction, while recall keeps answering
from the active slot's index; then, when no memory lacks its new vector, it waits for the
new slot's index, switches the store's slot in one transaction, drops the old index and
removes the old vectors. Progress is in the data (a memory with a new vector is done) and on
the store's node (the run under way, its embedder's probe vector, whether it switched), so a
run cut off anywhere continues where it stopped when started again with the same embedder.
The pure half is ``_memory/reembed.py``; docs/operations.md tells the story.
This file is generated from ``graphmem/_async/reembed.py`` by ``tools/unasync.py``."""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from .._base import dialect, layout
from .._base import validate as check
from .._base.dialect import ServerRow
from .._base.embeddings import check_embedder
from .._base.errors import ConfigurationError, InvalidInputError, SchemaError
from .._base.layout import SlotRow, VectorIndexRow
from .._base.observe import model_name
from .._base.retry import pause
from .._base.traced import instrument
from .._memory import reembed
from .._memory.reembed import (
    PROBE,
    ClaimRow,
    ClearedRow,
    FilledRow,
    OwnedRow,
    PageRow,
    ProbeRow,
    ReembedProgress,
    ReembedReport,
    ReembedWriteRow,
    RemainingRow,
    StrandedRow,
    StripesRow,
)
from .backend import Store
from .executor import Tx
from .guard import WRITER_STRIPES
from .schema import Schema
from .upgrade import tenants

_CLEAR_BATCH = 10_000
_CATCH_UP_PASSES = 3  # passes for memories written on the old slot while the first ran
MAX_BATCH = 10_000
_SAMPLE, _SAMPLE_TENANTS = 256, 20  # what a dry run times the embedder on
_INDEX_POLL = 1.0  # seconds between two looks at the new index while it is built
_TAKEN_OVER = ("this re-embedding's claim was taken over by another run (this one made no progress for "
               f"{reembed.LEASE_SECONDS // 60} minutes, or its claim was released): it stops; the other run continues")
Report = Callable[[ReembedProgress], None]


@dataclass
class _Run:
    """One re-embedding run: its id (its claim on the store's node), the new embedder, the
    tenants asked for, the vectors' dimension, the batch size, and its progress reporting."""

    id: str
    embedder: Any
    names: list[str] | None
    dimensions: int
    batch: int
    progress: Report | None
    started: float


@instrument("graphmem", names=("reembed",))
class Reembed:
    """Re-embedding a store with another embedder while it is in use: the other slot filled, the store switched in one transaction, the old vectors cleared (``Memory`` hands ``reembed`` to it)."""

    def __init__(self, store: Store, schema: Schema) -> None:
        self._store = store
        self._schema = schema

    def reembed(self, embedder: Any, *, tenants: Any = None, batch_size: int = 256, dry_run: bool = False,
                      restart: bool = False, progress: Report | None = None,
                      timeout: int = 3600) -> ReembedReport:
        """Move the store to ``embedder`` (any langchain-core ``Embeddings``): every memory of
        every tenant (or of ``tenants``) is embedded again, ``batch_size`` memories a call and
        a transaction, into a new vector index beside the old one, while recall keeps
        answering from the old one. When every memory of the store has its new vector the
        store switches to the new index in one transaction, the old index is dropped and
        the old vectors removed; this memory object embeds with ``embedder`` from then on
        (make every other one with it too: docs/operations.md). A run limited to ``tenants``
        leaves the switch to the run that completes the rest.

        Cut off anywhere (a crash, Ctrl-C), a run started again with the same embedder
        continues where it stopped; a run with another embedder is refused while one is
        under way, unless ``restart`` drops what that one wrote. ``dry_run`` changes
        nothing: it counts the memories to embed and times the embedder on a sample of
        them (``estimate_seconds``). ``progress`` is called after every batch with a
        ``ReembedProgress``; ``timeout`` bounds the wait for the new index (seconds).

        Memories are given what they were embedded with when written (``_memory/embedded.py``),
        so the store ends as one written with ``embedder`` from the start; a LangGraph store
        item with several indexed fields keeps one vector, of its joined texts (its fields'
        own vectors are not recomputed: put it again to have them)."""
        names = reembed.tenants(tenants)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= MAX_BATCH:
            raise InvalidInputError("batch_size", f"must be an integer from 1 to {MAX_BATCH}")
        if embedder is None:
            raise ConfigurationError("reembed needs an embedder (a langchain-core Embeddings)")
        new = check_embedder(embedder, self._store.observe)
        assert new is not None
        started = time.monotonic()
        probe = check.embedding(new.embed_query(PROBE), "embedder output", None)
        label = model_name(getattr(new, "wrapped", new))
        if dry_run:
            return self._reembed_plan(new, names, probe, label, batch_size, started)
        self._schema.upgrade_store()
        run = _Run(uuid.uuid4().hex, new, names, len(probe), batch_size, progress, started)
        self._claim(run)
        try:
            return self._reembed_claimed(run, probe, label, restart, timeout)
        except BaseException:
            # an error or Ctrl-C: the claim is given back (what the run wrote stays, for the next
            # run with this embedder to continue); a kill -9 leaves it to be taken over
            with contextlib.suppress(Exception):
                self._store.run.write_one_as(SlotRow, "reembed_release", run=run.id)
            raise

    def _reembed_claimed(self, run: _Run, probe: list[float], label: str, restart: bool,
                               timeout: int) -> ReembedReport:
        """``reembed`` once this process holds the claim (``run``)."""
        found = self._store.run.layout(fresh=True)
        state = found.reembed or {}
        embedded = resumed = remaining = 0
        switched = False
        if state.get("switchedAt"):  # switched already: the old index and vectors are left to remove
            self._same_embedder(state, probe, restart=False)
            old = layout.other(found.slot)
            self._store.run.auto_in(old, "schema_vector_drop")  # a run killed right after its switch left it
            switched = True
        else:
            old = found.slot
            to = layout.other(old)
            if not state or not self._same_embedder(state, probe, restart=restart):
                # a fresh run starts from an empty slot: a memory whose only vector is there (a writer
                # on the old slot after an earlier switch) is marked to be embedded from its text, then
                # what an abandoned run left there goes, and its index
                self._pages(old, StrandedRow, "reembed_strand")
                self._clear(to, every=True)
                self._store.run.auto_in(to, "schema_vector_drop")
            else:
                resumed = (self._store.run.read_in_as(FilledRow, old, "reembed_filled", tenants=run.names))[0].filled
            if not self._store.run.write_one_as(SlotRow, "reembed_start", to=to, dimensions=run.dimensions,
                                                      embedder=label, probe=probe, tenants=run.names,
                                                      now=self._store.core.now()):
                raise SchemaError("the store's node is missing or already in the slot to fill: run setup() first")
            can_filter = dialect.filters_vectors((self._store.run.read_as(ServerRow, "server_components"))[0].version)
            self._store.run.auto_in(to, dialect.template("schema_vector", can_filter), dimensions=run.dimensions)
            embedded = self._fill(old, run, run.names)
            remaining = self._remaining(old, None)
            for _ in range(_CATCH_UP_PASSES if run.names is None else 0):
                if not remaining:
                    break
                embedded += self._fill(old, run, None)
                remaining = self._remaining(old, None)
            if run.names is None or not remaining:
                self._switch(old, to, run, timeout)
                switched = True
        cleaned = 0
        if switched:
            self._store.use_embedder(run.embedder, probe)  # the new embedder's probe, asked at the start of the run
            # written on the old slot before the switch took the writers' locks, after the last
            # pass: embedded now (no write can reach the old slot after the switch), then the old
            # vectors go
            embedded += self._fill(old, run, None)
            cleaned = self._clear(old, every=False)
            self._store.run.write_one_as(SlotRow, "reembed_done")
            remaining = 0
        else:
            self._store.run.write_one_as(SlotRow, "reembed_release", run=run.id)  # the switch waits for another run
        seconds = time.monotonic() - run.started
        return ReembedReport(dry_run=False, embedder=label, dimensions=run.dimensions, tenants=run.names,
                             embedded=embedded, resumed=resumed, remaining=remaining, switched=switched,
                             cleaned=cleaned, index=(self._store.run.layout(fresh=True)).index, seconds=seconds,
                             rate=embedded / seconds if seconds > 0 else 0.0)

    def _claim(self, run: _Run) -> None:
        """Claim the re-embedding for ``run`` in the store's node, in one transaction under the
        node's lock: refused (``SchemaError`` naming the run under way) while another run holds
        it and is alive; a claim whose run is gone is taken over."""
        host = socket.gethostname()
        stale_before = self._store.core.now() - timedelta(seconds=reembed.LEASE_SECONDS)

        def work(tx: Tx) -> None:
            rows = tx.run_as(ClaimRow, "reembed_claim", staleBefore=stale_before)
            if not rows:
                raise SchemaError("the store's node is missing: run setup() first")
            if why := reembed.claim_refused(rows[0], host, reembed.process_alive):
                raise SchemaError(why)
            tx.run_as(StripesRow, "reembed_claimed", run=run.id, host=host, pid=os.getpid(),
                            now=self._store.core.now(), stripes=WRITER_STRIPES)

        self._store.run.write(work)

    def _same_embedder(self, state: dict[str, Any], probe: list[float], *, restart: bool) -> bool:
        """Whether this run's embedder is the one the re-embedding under way started with;
        another one is refused unless ``restart``."""
        stored = (self._store.run.read_as(ProbeRow, "reembed_probe"))[0].probe
        if reembed.same_embedder(stored, probe):
            return True
        if restart and not state.get("switchedAt"):
            return False
        raise SchemaError(
            f"a re-embedding with another embedder ({state.get('embedder')}, {state.get('dimensions')} dimensions, "
            f"started {state.get('startedAt')}) is under way"
            + (" and has switched the store: run it again with that embedder to finish it" if state.get("switchedAt")
               else ": run it again with that embedder to continue, or restart it (restart=True, graphmem reembed "
                    "--restart) to drop what it wrote"))

    def _fill(self, old: str, run: _Run, names: list[str] | None) -> int:
        """Give every memory (of ``names``) that has a vector in slot ``old`` (or is marked to
        be embedded from its text) and none in the other its new one, a batch per transaction
        that also notes the run's progress; return how many were written."""
        total = self._remaining(old, names)
        done = 0
        for tenant in tenants(self._store.run, names):
            after = ""
            while rows := self._store.run.read_in_as(PageRow, old, "reembed_page", tenant=tenant, afterId=after,
                                                           limit=run.batch):
                kept, texts = reembed.texts(rows)
                written = reembed.vectors(kept, run.embedder.embed_documents(texts), run.dimensions) if kept else []
                row = (self._store.run.write_one_as(ReembedWriteRow, "reembed_write", slot=old, rows=written,
                                                          run=run.id, now=self._store.core.now()))[0]
                if not row.owned:
                    raise SchemaError(_TAKEN_OVER)
                done += row.written or 0
                after = rows[-1].id
                if run.progress is not None:
                    seconds = time.monotonic() - run.started
                    run.progress(ReembedProgress(phase="embed", done=done, total=max(total, done), seconds=seconds,
                                                 rate=done / seconds if seconds > 0 else 0.0))
        return done

    def _switch(self, old: str, to: str, run: _Run, timeout: int) -> None:
        """Wait for the new slot's index (noting the run's progress meanwhile), switch the store
        to it in one transaction, forget what this process knew of the old one and drop the
        old index."""
        deadline = time.monotonic() + timeout
        while True:
            state = [r.state for r in self._store.run.read_in_as(VectorIndexRow, to, "schema_vector_info")
                     if r.name == layout.INDEXES[to]]
            if state == ["ONLINE"]:
                break
            if state == ["FAILED"] or time.monotonic() > deadline:
                raise SchemaError(f"the new vector index {layout.INDEXES[to]} is {state[0] if state else 'missing'} "
                                  f"after {timeout} s: run graphmem reembed again with this embedder to continue")
            if not (self._store.run.write_one_as(OwnedRow, "reembed_beat", run=run.id,
                                                       now=self._store.core.now()))[0].owned:
                raise SchemaError(_TAKEN_OVER)
            pause(_INDEX_POLL)
        if not self._store.run.write_one_as(SlotRow, "reembed_switch", current=old, to=to, run=run.id,
                                                  now=self._store.core.now()):
            raise SchemaError(_TAKEN_OVER)
        self._store.forget_index()
        self._store.run.auto_in(old, "schema_vector_drop")
        if run.progress is not None:
            seconds = time.monotonic() - run.started
            run.progress(ReembedProgress(phase="switch", done=1, total=1, seconds=seconds, rate=0.0))

    def _pages(self, slot: str, row_type: type[ClearedRow] | type[StrandedRow], name: str, **params: Any) -> int:
        """Run the paged template ``name`` (``reembed_clear``'s shape: $tenant, $afterId, $limit
        and ``params``; its ``row_type`` counts what it did and names the last id) in
        ``slot``'s version over every tenant, a page per transaction; the total."""
        total = 0
        for tenant in tenants(self._store.run):
            after: str | None = ""
            while True:
                row = (self._store.run.write_one_as(row_type, name, slot=slot, tenant=tenant, afterId=after,
                                                          limit=_CLEAR_BATCH, **params))[0]
                total += row.count
                if row.count < _CLEAR_BATCH:
                    break
                after = row.last
        return total

    def _remaining(self, slot: str, names: list[str] | None) -> int:
        """How many memories (of ``names``) a re-embedding replacing ``slot`` has still to embed."""
        return (self._store.run.read_in_as(RemainingRow, slot, "reembed_remaining", tenants=names))[0].remaining

    def _clear(self, slot: str, *, every: bool) -> int:
        """Remove the vectors of ``slot`` (``every``: all of them; else those of memories that
        have their vector in the other slot), a batch per transaction; return how many."""
        return self._pages(slot, ClearedRow, "reembed_clear", all=every)

    def _reembed_plan(self, new: Any, names: list[str] | None, probe: list[float], label: str, batch: int,
                            started: float) -> ReembedReport:
        """A dry run: how many memories a run would embed, and the embedder's rate on a
        sample of them (embedded twice, the first a warm-up)."""
        found = self._store.run.layout(fresh=True)
        state = found.reembed or {}
        old = layout.other(found.slot) if state.get("switchedAt") else found.slot
        todo = self._remaining(old, names)
        resumed = 0
        if state and not state.get("switchedAt"):
            filled = (self._store.run.read_in_as(FilledRow, old, "reembed_filled", tenants=names))[0].filled
            if reembed.same_embedder((self._store.run.read_as(ProbeRow, "reembed_probe"))[0].probe, probe):
                resumed = filled
            else:
                todo += filled
        texts: list[str] = []
        for tenant in (tenants(self._store.run, names))[:_SAMPLE_TENANTS]:
            rows = self._store.run.read_in_as(PageRow, old, "reembed_page", tenant=tenant, afterId="", limit=_SAMPLE)
            texts += reembed.texts(rows)[1]
            if len(texts) >= _SAMPLE:
                break
        texts = texts[:_SAMPLE]
        rate = 0.0
        if texts:
            new.embed_documents(texts[:4])
            timed = time.perf_counter()
            new.embed_documents(texts)
            rate = len(texts) / max(time.perf_counter() - timed, 1e-6)
        return ReembedReport(dry_run=True, embedder=label, dimensions=len(probe), tenants=names, embedded=todo,
                             resumed=resumed, remaining=0, switched=False, cleaned=0, index=found.index,
                             seconds=time.monotonic() - started, rate=rate,
                             estimate_seconds=todo / rate if rate > 0 else (0.0 if not todo else None))
