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

import time
from collections.abc import Callable
from typing import Any

from .._base import dialect, layout
from .._base import validate as check
from .._base.embeddings import check_embedder
from .._base.errors import ConfigurationError, InvalidInputError, SchemaError
from .._base.observe import model_name
from .._memory import reembed
from .._memory.reembed import ReembedProgress, ReembedReport
from .host import Host
from .schema import forget_index
from .upgrade import tenants

PROBE = "dimension probe"  # the sentence whose vector tells one embedder from another
_CLEAR_BATCH = 10_000
_CATCH_UP_PASSES = 3  # passes for memories written on the old slot while the first ran
MAX_BATCH = 10_000
_SAMPLE, _SAMPLE_TENANTS = 256, 20  # what a dry run times the embedder on
Report = Callable[[ReembedProgress], None]


class ReembedMixin(Host):
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
        new = check_embedder(embedder, self._observe)
        assert new is not None
        started = time.monotonic()
        probe = check.embedding(new.embed_query(PROBE), "embedder output", None)
        label = model_name(getattr(new, "wrapped", new))
        if dry_run:
            return self._reembed_plan(new, names, probe, label, batch_size, started)
        self._upgrade_store()
        found = self._run.layout(fresh=True)
        state = found.reembed or {}
        embedded = resumed = remaining = 0
        switched = False
        if state.get("switchedAt"):  # switched already: only the old vectors are left to remove
            self._same_embedder(state, probe, restart=False)
            old = layout.other(found.slot)
            switched = True
        else:
            old = found.slot
            to = layout.other(old)
            if not state or not self._same_embedder(state, probe, restart=restart):
                # a fresh run starts from an empty slot: what an abandoned run (or a writer still
                # on the old slot after an earlier switch) left there goes, and its index
                self._clear(to, every=True)
                self._run.auto_in(to, "schema_vector_drop")
            else:
                resumed = (self._run.read_in(old, "reembed_filled", tenants=names))[0]["filled"]
            if not self._run.write_one("reembed_start", to=to, dimensions=len(probe), embedder=label,
                                             probe=probe, tenants=names, now=self._core.now()):
                raise SchemaError("the store's node is missing or already in the slot to fill: run setup() first")
            can_filter = dialect.filters_vectors((self._run.read("server_components"))[0]["version"])
            self._run.auto_in(to, dialect.template("schema_vector", can_filter), dimensions=len(probe))
            embedded = self._fill(old, new, names, len(probe), batch_size, progress, started)
            remaining = (self._run.read_in(old, "reembed_remaining", tenants=None))[0]["remaining"]
            for _ in range(_CATCH_UP_PASSES if names is None else 0):
                if not remaining:
                    break
                embedded += self._fill(old, new, None, len(probe), batch_size, progress, started)
                remaining = (self._run.read_in(old, "reembed_remaining", tenants=None))[0]["remaining"]
            if names is None or not remaining:
                self._switch(old, to, timeout, progress, started)
                switched = True
        cleaned = 0
        if switched:
            self._core.use_embedder(new)
            # written on the old slot after the last pass (a writer that had not yet seen the
            # switch): embedded now, then the old vectors go
            embedded += self._fill(old, new, None, len(probe), batch_size, progress, started)
            cleaned = self._clear(old, every=False)
            self._run.write_one("reembed_done")
            remaining = 0
        seconds = time.monotonic() - started
        return ReembedReport(dry_run=False, embedder=label, dimensions=len(probe), tenants=names, embedded=embedded,
                             resumed=resumed, remaining=remaining, switched=switched, cleaned=cleaned,
                             index=(self._run.layout(fresh=True)).index, seconds=seconds,
                             rate=embedded / seconds if seconds > 0 else 0.0)

    def _same_embedder(self, state: dict[str, Any], probe: list[float], *, restart: bool) -> bool:
        """Whether this run's embedder is the one the re-embedding under way started with;
        another one is refused unless ``restart``."""
        stored = (self._run.read("reembed_probe"))[0]["probe"]
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

    def _fill(self, old: str, new: Any, names: list[str] | None, dimensions: int, batch: int,
                    progress: Report | None, started: float) -> int:
        """Give every memory (of ``names``) that has a vector in slot ``old`` and none in the
        other its new one, a batch per transaction; return how many were written."""
        total = (self._run.read_in(old, "reembed_remaining", tenants=names))[0]["remaining"]
        done = 0
        for tenant in tenants(self._run, names):
            after = ""
            while rows := self._run.read_in(old, "reembed_page", tenant=tenant, afterId=after, limit=batch):
                kept, texts = reembed.texts(rows)
                if kept:
                    written = reembed.vectors(kept, new.embed_documents(texts), dimensions)
                    done += (self._run.write_one("reembed_write", slot=old, rows=written))[0]["written"]
                after = rows[-1]["id"]
                if progress is not None:
                    seconds = time.monotonic() - started
                    progress(ReembedProgress(phase="embed", done=done, total=max(total, done), seconds=seconds,
                                             rate=done / seconds if seconds > 0 else 0.0))
        return done

    def _switch(self, old: str, to: str, timeout: int, progress: Report | None, started: float) -> None:
        """Wait for the new slot's index, switch the store to it in one transaction, forget
        what this process knew of the old one and drop the old index."""
        self._run.auto("schema_await", timeout=timeout)
        self._run.write_one("reembed_switch", current=old, to=to, now=self._core.now())
        forget_index(self._run, self._core)
        self._run.auto_in(old, "schema_vector_drop")
        if progress is not None:
            seconds = time.monotonic() - started
            progress(ReembedProgress(phase="switch", done=1, total=1, seconds=seconds, rate=0.0))

    def _clear(self, slot: str, *, every: bool) -> int:
        """Remove the vectors of ``slot`` (``every``: all of them; else those of memories that
        have their vector in the other slot), a batch per transaction; return how many."""
        cleared = 0
        for tenant in tenants(self._run):
            after = ""
            while True:
                row = (self._run.write_one("reembed_clear", slot=slot, tenant=tenant, afterId=after, all=every,
                                                 limit=_CLEAR_BATCH))[0]
                cleared += row["cleared"]
                if row["cleared"] < _CLEAR_BATCH:
                    break
                after = row["last"]
        return cleared

    def _reembed_plan(self, new: Any, names: list[str] | None, probe: list[float], label: str, batch: int,
                            started: float) -> ReembedReport:
        """A dry run: how many memories a run would embed, and the embedder's rate on a
        sample of them (embedded twice, the first a warm-up)."""
        found = self._run.layout(fresh=True)
        state = found.reembed or {}
        old = layout.other(found.slot) if state.get("switchedAt") else found.slot
        todo = (self._run.read_in(old, "reembed_remaining", tenants=names))[0]["remaining"]
        resumed = 0
        if state and not state.get("switchedAt"):
            filled = (self._run.read_in(old, "reembed_filled", tenants=names))[0]["filled"]
            if reembed.same_embedder((self._run.read("reembed_probe"))[0]["probe"], probe):
                resumed = filled
            else:
                todo += filled
        texts: list[str] = []
        for tenant in (tenants(self._run, names))[:_SAMPLE_TENANTS]:
            rows = self._run.read_in(old, "reembed_page", tenant=tenant, afterId="", limit=_SAMPLE)
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
