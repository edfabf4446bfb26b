"""Core notes without I/O: the checks, the character cap and the plan of an edit (contract
§10). A core note is one short entry an agent keeps in every prompt, filed under an
``owner`` (an agent or a user id) and a ``label`` ("persona", "user"); the entries of one
owner and label in one scope share a hard character cap. An edit never overwrites: it
writes a new version that supersedes the old one (reason ``edited``). The I/O is in
``_async/notes.py``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Note

DEFAULT_CAP = 2_000
"""Characters the current entries of one owner and label may hold together."""

MAX_CAP = 100_000
_LABEL = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")


class NoteEdit(BaseModel):
    """The outcome of a note edit. When ``ok`` is False nothing was written and ``error``
    says why (over the cap, no entry matched, more than one matched); ``usage`` is the
    characters the current entries hold (after the edit when it succeeded), ``cap`` the
    limit, ``entries`` the current texts, oldest first, so an agent can consolidate."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    error: str | None = None
    usage: int
    cap: int
    entries: list[str]
    note: Note | None = None
    """The version written (None for a removal or a refused edit)."""


def label(value: Any) -> str:
    if not isinstance(value, str) or not _LABEL.match(value):
        raise InvalidInputError("label", f"must be a lowercase name (a-z, 0-9, _ or -), got {value!r}")
    return value


def owner(value: Any) -> str:
    return check.identifier(value, "owner") or ""


def cap(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CAP:
        raise InvalidInputError("cap", f"must be an integer from 1 to {MAX_CAP}, got {value!r}")
    return value


def usage(entries: list[Note]) -> int:
    return sum(len(n.text) for n in entries)


def result(entries: list[Note], limit: int, *, error: str | None = None, note: Note | None = None) -> NoteEdit:
    return NoteEdit(ok=error is None, error=error, usage=usage(entries), cap=limit,
                    entries=[n.text for n in entries], note=note)


@dataclass(frozen=True)
class Plan:
    """What an edit would do: the entry it replaces or removes, and the new text."""

    target: Note | None
    text: str | None
    error: str | None = None


def find(entries: list[Note], old: str) -> tuple[Note | None, str | None]:
    """The one current entry that ``old`` names: an entry equal to it, else the only entry
    containing it; otherwise an error an agent can act on."""
    exact = [n for n in entries if n.text == old]
    if len(exact) == 1:
        return exact[0], None
    matches = [n for n in entries if old in n.text]
    if not matches:
        return None, f"no current entry contains {old!r}"
    if len(matches) > 1:
        return None, f"{len(matches)} entries contain {old!r}; quote more of the one to edit"
    return matches[0], None


def plan_add(entries: list[Note], text: str, limit: int) -> Plan:
    after = usage(entries) + len(text)
    if after > limit:
        return Plan(None, None, _over(after, limit))
    return Plan(None, text)


def plan_replace(entries: list[Note], old: str, new: str, limit: int) -> Plan:
    """Replace ``old`` with ``new`` inside the entry ``old`` names (the whole entry when
    ``old`` is all of it)."""
    target, error = find(entries, old)
    if target is None:
        return Plan(None, None, error)
    text = target.text.replace(old, new)
    if not text.strip():
        return Plan(None, None, "the edit would leave the entry empty; remove it with note_remove")
    if text == target.text:
        return Plan(None, None, "the edit changes nothing")
    after = usage(entries) - len(target.text) + len(text)
    if after > limit:
        return Plan(None, None, _over(after, limit))
    return Plan(target, text)


def plan_remove(entries: list[Note], old: str) -> Plan:
    target, error = find(entries, old)
    return Plan(target, None, error)


def _over(after: int, limit: int) -> str:
    return (f"the notes would hold {after} characters, over the cap of {limit}: "
            "replace or remove entries to make room first")
