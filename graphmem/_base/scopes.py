"""Scope paths: validation and the visibility chain (contract §5)."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass

from .errors import InvalidInputError
from .records import Row

MAX_PATH_LENGTH = 512
MAX_DEPTH = 32


def check_path(path: object, field: str = "scope") -> str:
    """Return ``path`` if it is a well-formed scope path, else raise ``InvalidInputError``."""
    if not isinstance(path, str):
        raise InvalidInputError(field, f"must be a string like 'acme/support/alice', got {type(path).__name__}")
    if not path:
        raise InvalidInputError(field, "must not be empty")
    if len(path) > MAX_PATH_LENGTH:
        raise InvalidInputError(field, f"is longer than {MAX_PATH_LENGTH} characters")
    if path.startswith("/") or path.endswith("/"):
        raise InvalidInputError(field, f"{path!r} must not start or end with '/'")
    segments = path.split("/")
    if len(segments) > MAX_DEPTH:
        raise InvalidInputError(field, f"{path!r} is deeper than {MAX_DEPTH} levels")
    for segment in segments:
        if not segment:
            raise InvalidInputError(field, f"{path!r} has an empty segment")
        if segment in (".", ".."):
            raise InvalidInputError(field, f"{path!r} has a '{segment}' segment")
        if segment != segment.strip():
            raise InvalidInputError(field, f"{path!r} has a segment with leading or trailing spaces")
        if any(unicodedata.category(ch).startswith("C") for ch in segment):
            raise InvalidInputError(field, f"{path!r} contains a control character")
    return path


def chain(path: str) -> list[str]:
    """``a/b/c`` -> ``['a', 'a/b', 'a/b/c']``: the scopes visible from ``path``."""
    segments = path.split("/")
    return ["/".join(segments[: i + 1]) for i in range(len(segments))]


def within(path: str, root: str | None) -> bool:
    """True when ``path`` is ``root`` or below it (every path is within ``None``)."""
    return root is None or path == root or path.startswith(root + "/")


def parents(paths: list[str]) -> list[dict[str, object]]:
    """Every scope in the chains of ``paths`` with its parent, root first, no repeats, and
    ``n``: how many of ``paths`` are exactly that scope (new memories to count there)."""
    seen: dict[str, str | None] = {}
    counts: dict[str, int] = {}
    for path in paths:
        counts[path] = counts.get(path, 0) + 1
        for link in chain(path):
            if link not in seen:
                head, sep, _ = link.rpartition("/")
                seen[link] = head if sep else None
    return [{"path": p, "parent": parent, "name": p.rpartition("/")[2], "n": counts.get(p, 0)}
            for p, parent in seen.items()]


@dataclass(frozen=True, slots=True)
class ScopeRow(Row):
    """One scope of a tenant's tree: its path, its parent's (null at a root) and how many
    memories it holds."""

    TEMPLATES = ("scope_tree",)
    path: str
    parent: str | None
    memories: int


@dataclass(frozen=True, slots=True)
class ScopePrunedRow(Row):
    """How many scopes left empty were deleted."""

    TEMPLATES = ("scope_prune",)
    pruned: int


def lexical_key(tenant: str, scope: str) -> str:
    """One full-text token naming (tenant, scope) exactly, so a Lucene query can be narrowed
    to the visible scopes of one tenant inside the index (a letter, then hex digits)."""
    digest = hashlib.blake2b(f"{tenant}\x00{scope}".encode(), digest_size=10).hexdigest()
    return f"k{digest}"
