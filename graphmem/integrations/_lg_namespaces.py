"""LangGraph namespace labels as scope segments, reversibly (``GraphMemStore``).

LangGraph accepts any non-empty label without ``.``; a scope segment may not hold ``/``, a
control character or leading/trailing whitespace. Those characters are written as
``%XX`` (``%uXXXX``, ``%UXXXXXXXX`` beyond Latin-1) and a ``%`` that would read as such an
escape as ``%25``; every other label is its own segment, so the scopes of labels that were
valid segments before are unchanged (``("users", "42")`` is still ``users/42``)."""

from __future__ import annotations

import re
import unicodedata

_ESCAPE = re.compile(r"%(?:([0-9A-F]{2})|u([0-9A-F]{4})|U([0-9A-F]{8}))")


def _escaped(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"%{code:02X}"
    return f"%u{code:04X}" if code < 0x10000 else f"%U{code:08X}"


def _unsafe(ch: str) -> bool:
    return ch == "/" or unicodedata.category(ch).startswith("C")


def to_segment(label: str) -> str:
    """The scope segment of a namespace label (a label that is a valid segment is itself)."""
    out = []
    lead = len(label) - len(label.lstrip())
    trail = len(label.rstrip())
    for i, ch in enumerate(label):
        if ch == "%" and _ESCAPE.match(label, i):
            out.append("%25")
        elif _unsafe(ch) or i < lead or i >= trail:
            out.append(_escaped(ch))
        else:
            out.append(ch)
    return "".join(out)


def to_label(segment: str) -> str:
    """The namespace label a scope segment stands for (``to_segment`` undone)."""
    return _ESCAPE.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), segment)
