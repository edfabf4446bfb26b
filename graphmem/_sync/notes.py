# Generated from graphmem/_async/notes.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Core notes: short entries an agent keeps in every prompt, per owner
and label, under a hard character cap; every version kept (contract §10).
This file is generated from ``graphmem/_async/notes.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from .._base import props as _props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.models import Note, Provenance
from .._base.records import HistoryRow, IdRow, NodeRow, record_of
from .._base.traced import instrument
from .._working import notes as _notes
from .._working.notes import DEFAULT_CAP, NoteEdit, Plan
from .backend import Store
from .executor import Tx


@instrument("graphmem", names=("note_add", "note_replace", "note_remove", "notes", "note_history"))
class Notes:
    """A tenant's core notes, each edit checked against its cap and kept as a version (``Memory`` hands these calls to it)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    """The notes of one ``owner`` and ``label`` live in one scope (exactly that scope: a
    child scope has notes of its own). An edit that would take their text past ``cap``
    characters is refused, nothing written, and the result shows usage and entries."""

    def note_add(self, text: str, *, scope: str, owner: str, label: str = "default",
                       cap: int = DEFAULT_CAP, provenance: Provenance | str = Provenance.MANUAL) -> NoteEdit:
        """Add an entry, unless the notes would then exceed ``cap`` characters."""
        check.text(text, "text")
        return self._note_edit(scope, owner, label, cap, provenance,
                                     lambda entries, limit: _notes.plan_add(entries, text, limit))

    def note_replace(self, old: str, new: str, *, scope: str, owner: str, label: str = "default",
                           cap: int = DEFAULT_CAP, provenance: Provenance | str = Provenance.MANUAL) -> NoteEdit:
        """Replace ``old`` with ``new`` in the one entry that ``old`` names (equal to it, or
        the only entry containing it): a new version supersedes the entry (reason
        'edited'). Refused when no entry or several match, or over the cap."""
        check.text(old, "old")
        if not isinstance(new, str):
            check.text(new, "new")  # raises: an empty string is allowed (deletes ``old``)
        return self._note_edit(scope, owner, label, cap, provenance,
                                     lambda entries, limit: _notes.plan_replace(entries, old, new, limit))

    def note_remove(self, old: str, *, scope: str, owner: str, label: str = "default",
                          cap: int = DEFAULT_CAP) -> NoteEdit:
        """Remove the one entry that ``old`` names: it is invalidated (reason 'removed')
        and stays in ``note_history``."""
        check.text(old, "old")
        return self._note_edit(scope, owner, label, cap, None,
                                     lambda entries, limit: _notes.plan_remove(entries, old))

    def notes(self, *, scope: str, owner: str, label: str | None = None,
                    as_of: datetime | None = None) -> list[Note]:
        """The current entries of ``owner`` in ``scope`` (of ``label`` when given; as the
        memory held them at ``as_of``), by label, oldest first."""
        as_of_t, _ = self._store.core.as_of_valid_at(as_of, None)
        rows = self._store.run.read_as(NodeRow, "note_list", tenant=self._store.core.tenant,
                                             scope=_scopes.check_path(scope), owner=_notes.owner(owner),
                                             label=None if label is None else _notes.label(label), asOf=as_of_t)
        return [record_of(Note, r.node) for r in rows]

    def note_history(self, *, scope: str, owner: str, label: str | None = None) -> list[Note]:
        """Every version of the entries, current or not, oldest first, each with the
        version that superseded it."""
        rows = self._store.run.read_as(HistoryRow, "note_history", tenant=self._store.core.tenant,
                                             scope=_scopes.check_path(scope), owner=_notes.owner(owner),
                                             label=None if label is None else _notes.label(label))
        return [record_of(Note, r.node, superseded_by=r.superseded_by) for r in rows]

    def _note_edit(self, scope: str, owner: str, label: str, cap: int, provenance: Any,
                         plan_of: Callable[[list[Note], int], Plan]) -> NoteEdit:
        """Plan on the current entries, embed the new text (outside any transaction), then
        in one transaction re-read the entries under the scope's lock, re-plan and write:
        the cap holds even when edits race, and a refused edit writes nothing."""
        tenant = self._store.core.tenant
        path = _scopes.check_path(scope)
        who, block, limit = _notes.owner(owner), _notes.label(label), _notes.cap(cap)
        source = provenance or Provenance.MANUAL
        _props.shared(tenant, id=None, scope=path, text="-", provenance=source)  # checks it before any read
        seen = self.notes(scope=path, owner=who, label=block)
        first = plan_of(seen, limit)
        if first.error is not None:
            return _notes.result(seen, limit, error=first.error)
        row: dict[str, Any] | None = None
        if first.text is not None:
            props = _props.shared(tenant, id=None, scope=path, text=first.text, provenance=source)
            props.update({"owner": who, "label": block})
            row = {"props": props}
            self._store.embed([row], ["text"])
        now = self._store.core.now()

        def work(tx: Tx) -> NoteEdit:
            tx.run("scope_ensure", tenant=tenant, scopes=[{**s, "n": 0} for s in _scopes.parents([path])])
            entries = [record_of(Note, r.node) for r in tx.run_as(
                NodeRow, "note_current", tenant=tenant, scope=path, owner=who, label=block)]
            plan = plan_of(entries, limit)
            if plan.error is not None:
                return _notes.result(entries, limit, error=plan.error)
            if plan.text != first.text:
                return _notes.result(entries, limit, error="the notes changed during the edit; try again")
            kept = [n for n in entries if plan.target is None or n.id != plan.target.id]
            if row is None:  # a removal
                assert plan.target is not None
                tx.run_as(IdRow, "memory_invalidate", tenant=tenant, ids=[plan.target.id], reason="removed",
                                by=None, note=None, now=now)
                tx.emit("invalidated", [plan.target.id], reason="removed", scope=path)
                return _notes.result(kept, limit)
            tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([path]))
            created = record_of(Note, (tx.run_as(NodeRow, "note_create", tenant=tenant, props=row["props"],
                                                       now=now))[0].node)
            if plan.target is not None:
                tx.run_as(IdRow, "memory_invalidate", tenant=tenant, ids=[plan.target.id], reason="edited",
                                by=created.id, note=None, now=now)
                tx.emit("invalidated", [plan.target.id], reason="edited", scope=path)
            return _notes.result([*kept, created], limit, note=created)

        return self._store.run.write(work)
