"""Input checks shared by every write: each failure names the field, before anything is sent."""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Literal, TypeVar, overload

from .errors import InvalidInputError
from .vectors import Vector

MAX_TEXT_LENGTH = 32_000
"""The longest ``text`` a fact, insight, procedure or entity may have, in characters."""

MAX_EPISODE_LENGTH = 1_048_576
"""The longest ``content`` an episode (a message, a pasted document or log) may have."""

MAX_ID_LENGTH = 256
"""The longest id, user/agent/session id, entity type or subject, in characters."""

MAX_OBJECT_LENGTH = 4_096
"""The longest fact ``object`` (an entity id or a literal value), in characters."""

MAX_PROPERTIES_BYTES = 65_536
"""The largest entity ``properties``, as JSON (non-ASCII characters escaped), in bytes."""

# (most items, longest item in characters) of each list field, by the field's last name;
# any other list of strings gets the default
LIST_LIMITS = {
    "tags": (64, 128),
    "aliases": (64, 512),
    "derived_from": (1_000, MAX_ID_LENGTH),
    "steps": (100, 2_000),
    "variables": (64, 128),
}
_DEFAULT_LIST_LIMIT = (1_000, 2_000)

# One rule for text (docs/limits.md#characters; design note text-verbatim): free text (what a
# memory says, what a message said, a question) is stored exactly as given, control
# characters and NUL included (they round-trip through Bolt, Neo4j strings and the full-text
# index); only a lone surrogate, which has no UTF-8 form and so no stored form, is refused.
# Names and labels (an entity's name, a speaker, tags, aliases, an object) also refuse C0 and
# C1 control characters other than tab, newline and carriage return; ids refuse every
# control and format character (``identifier``). Nothing is ever replaced or stripped.
_UNSTORABLE = re.compile("[\ud800-\udfff]")
_NOT_IN_NAMES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_E = TypeVar("_E", bound=Enum)
_PREDICATE_JUNK = re.compile(r"[^0-9a-z]+")


def new_id() -> str:
    return uuid.uuid4().hex


@overload
def identifier(value: Any, field: str) -> str: ...
@overload
def identifier(value: Any, field: str, *, allow_none: Literal[False]) -> str: ...
@overload
def identifier(value: Any, field: str, *, allow_none: bool) -> str | None: ...
def identifier(value: Any, field: str, *, allow_none: bool = False) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(field, "must be a non-empty string")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidInputError(field, f"is longer than {MAX_ID_LENGTH} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in value):
        raise InvalidInputError(field, "contains a control character")
    if value != value.strip():
        # 'maria' and 'maria ' would be two tenants, two users: an erase would miss one
        raise InvalidInputError(field, f"{value!r} starts or ends with a space")
    return value


def blank(value: str) -> bool:
    """True when ``value`` shows nothing: only spaces, control characters and invisible
    format characters (zero-width space and joiners, word joiner, byte-order mark: Unicode
    categories Cc and Cf)."""
    return all(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") for ch in value)


def text(value: Any, field: str = "text", *, limit: int = MAX_TEXT_LENGTH) -> str:
    """Free text (a memory's text, a message's content, a question, a reason): a string that
    shows something, at most ``limit`` characters, kept exactly as given (``storable``)."""
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string, got {type(value).__name__}")
    if blank(value):
        raise InvalidInputError(field, "must not be empty")
    if len(value) > limit:
        raise InvalidInputError(field, f"is {len(value)} characters; the limit is {limit}")
    return storable(value, field)


def name(value: Any, field: str = "name", *, limit: int = MAX_TEXT_LENGTH) -> str:
    """A name or label (an entity's name, a speaker, an alias, a source): ``text`` that also
    holds no control character (``plain``)."""
    return plain(text(value, field, limit=limit), field)


def storable(value: str, field: str) -> str:
    """``value`` if Neo4j can store it: every character but a lone surrogate (no UTF-8 form),
    which is refused with its position, never replaced."""
    bad = _UNSTORABLE.search(value)
    if bad is not None:
        raise InvalidInputError(field, f"contains a lone surrogate (U+{ord(bad.group()):04X}) at position {bad.start()}: "
                                       "it has no UTF-8 form, so it cannot be stored")
    return value


def plain(value: str, field: str) -> str:
    """``value`` if it holds no control character (tab, newline and carriage return aside)
    and no lone surrogate: the rule of names and labels. Such characters are refused, never
    silently stripped."""
    bad = _NOT_IN_NAMES.search(value)
    if bad is not None:
        ch = bad.group()
        if "\ud800" <= ch <= "\udfff":
            storable(value, field)
        raise InvalidInputError(field, f"contains a control character (U+{ord(ch):04X}) at position {bad.start()}")
    return value


def nameable(value: str) -> bool:
    """Whether ``value`` may be a name (``plain`` would pass it): what an extractor found in
    free text is no name when it holds a control character."""
    return _NOT_IN_NAMES.search(value) is None


def literal(value: Any, field: str = "object") -> str | None:
    """A fact's ``object``: None, or a string of at most ``MAX_OBJECT_LENGTH`` plain characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string (an entity id or a literal), got {type(value).__name__}")
    if len(value) > MAX_OBJECT_LENGTH:
        raise InvalidInputError(field, f"is {len(value)} characters; the limit is {MAX_OBJECT_LENGTH}")
    return plain(value, field)


def properties_json(value: Any, field: str = "properties") -> str:
    """An entity's ``properties`` as sorted JSON, at most ``MAX_PROPERTIES_BYTES`` of UTF-8.
    Every key and text value is checked as text is (no control character, no lone
    surrogate), the error naming its path (``properties.address.city``)."""
    import json

    if value is not None and not isinstance(value, Mapping):
        raise InvalidInputError(field, "must be a mapping of JSON values")
    plain_json(dict(value or {}), field)
    try:
        encoded = json.dumps(dict(value or {}), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(field, f"must be JSON-serialisable: {exc}") from None
    size = len(encoded)  # ASCII: one byte a character
    if size > MAX_PROPERTIES_BYTES:
        raise InvalidInputError(field, f"is {size:,} bytes as JSON; the limit is {MAX_PROPERTIES_BYTES:,}")
    return encoded


def plain_json(value: Any, field: str, depth: int = 0) -> None:
    """The text inside a JSON value (keys and strings, at any depth) holds only plain characters."""
    if depth > 32:
        raise InvalidInputError(field, "is nested more than 32 levels deep")
    if isinstance(value, str):
        plain(value, field)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                plain(key, f"{field} key {key!r}")
            plain_json(item, f"{field}.{key}", depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            plain_json(item, f"{field}[{i}]", depth + 1)


_KEY_HEAD = 960
_KEPT_PUNCTUATION = frozenset("#&@%_\u200d")  # C#, AT&T, @handle, 100%, snake_case, emoji joiner


def _kept(ch: str) -> bool:
    """Letters, digits, marks and symbols of every script (``+``, ``$``, emoji) are kept."""
    return unicodedata.category(ch)[0] in "LNMS" or ch in _KEPT_PUNCTUATION


def _key_token(token: str) -> str:
    """One whitespace-separated token: ordinary punctuation around and inside it becomes a
    space, except a dot that joins two alphanumerics (``node.js``, ``3.14``) or opens a
    name (``.net``)."""
    out: list[str] = []
    opened = False  # a kept character was seen
    for i, ch in enumerate(token):
        if _kept(ch):
            out.append(ch)
            opened = True
        elif ch == "." and i + 1 < len(token) and token[i + 1].isalnum() and (
                out[-1].isalnum() if opened else i == 0 or token[i - 1] != "."):
            out.append(ch)
        else:
            out.append(" ")
    return "".join(out)


def steps_key(steps: list[str]) -> str:
    """Normalised form of a procedure's steps (case and spacing folded), the key by which an
    induced procedure finds the same workflow learned before; also checked on import."""
    return " | ".join(" ".join(s.lower().split()) for s in steps)


def text_key(value: str) -> str:
    """Normalised form of a statement or name, for tombstones and entity resolution.

    Case (``casefold``), Unicode compatibility forms (NFKC), spacing and ordinary
    punctuation are folded, so ``"Bob codes in C++."`` and ``"bob  codes in c++"`` share a
    key; what tells names apart is kept: symbols (``C``, ``C++``, ``C#``, ``F#``, ``.NET``,
    ``AT&T``), letters and marks of every script, and emoji. (Keys before this rule folded
    every non-word character; see docs/limits.md for stored keys.)

    Range indexes hold values of at most ~8 KB, so a long key keeps its first 960
    characters and replaces the rest with a hash of the whole: equal texts still have
    equal keys, and any text up to ``MAX_TEXT_LENGTH`` can be stored."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    key = " ".join(" ".join(_key_token(token) for token in folded.split()).split())
    if len(key) > _KEY_HEAD + 64:
        key = f"{key[:_KEY_HEAD]} #{hashlib.blake2b(key.encode(), digest_size=16).hexdigest()}"
    return key


@overload
def instant(value: Any, field: str, *, allow_none: Literal[False]) -> datetime: ...
@overload
def instant(value: Any, field: str, *, allow_none: bool = True) -> datetime | None: ...
def instant(value: Any, field: str, *, allow_none: bool = True) -> datetime | None:
    """A timezone-aware datetime, converted to UTC; naive datetimes are rejected."""
    if value is None:
        if allow_none:
            return None
        raise InvalidInputError(field, "is required")
    if not isinstance(value, datetime):
        raise InvalidInputError(field, f"must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise InvalidInputError(field, "must be timezone-aware (e.g. datetime(..., tzinfo=timezone.utc)); naive datetimes are ambiguous")
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:  # year 1 at +23:59, or year 9999 at -23:59: no UTC form
        raise InvalidInputError(field, f"{value.isoformat()} is outside the years 1-9999 once converted to UTC") from None


def interval(start: datetime | None, end: datetime | None, field: str = "valid_to") -> None:
    if start is not None and end is not None and end < start:
        raise InvalidInputError(field, f"{end.isoformat()} is before valid_from {start.isoformat()}")


def choice(value: Any, enum: type[_E], field: str) -> _E:
    try:
        return value if isinstance(value, enum) else enum(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum)
        raise InvalidInputError(field, f"{value!r} is not one of {allowed}") from None


def count(value: Any, field: str, *, least: int = 1, most: int | None = None) -> int:
    """An integer count from ``least`` (to ``most``, when given)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least or (most is not None and value > most):
        bound = f"from {least} to {most}" if most is not None else f"of at least {least}"
        raise InvalidInputError(field, f"must be an integer {bound}, got {value!r}")
    return value


def unit_interval(value: Any, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(field, f"must be a number between 0 and 1, got {value!r}")
    return float(value)


def texts(value: Iterable[Any], field: str) -> list[str]:
    """A list of free texts (a procedure's steps, a decision's alternatives), each checked as
    ``text`` checks its characters, within ``LIST_LIMITS`` for ``field``."""
    return tags(value, field, free=True)


def tags(value: Iterable[Any], field: str = "tags", *, free: bool = False) -> list[str]:
    """A list of non-empty plain strings (``free``: of free text), within ``LIST_LIMITS`` for
    ``field`` (by its last name)."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):  # a dict's keys are no list
        raise InvalidInputError(field, "must be a list of strings")
    most, longest = LIST_LIMITS.get(field.rsplit(".", 1)[-1], _DEFAULT_LIST_LIMIT)
    out = []
    for i, tag in enumerate(value or ()):
        if i == most:
            raise InvalidInputError(field, f"has more than {most} items")
        if not isinstance(tag, str) or blank(tag):
            raise InvalidInputError(f"{field}[{i}]", "must be a non-empty string")
        if len(tag) > longest:
            raise InvalidInputError(f"{field}[{i}]", f"is {len(tag)} characters; the limit is {longest}")
        out.append(storable(tag, f"{field}[{i}]") if free else plain(tag, f"{field}[{i}]"))
    return out


def predicate(value: Any, field: str = "predicate") -> str | None:
    """Normalise a predicate to snake_case (``Lives In`` -> ``lives_in``); it is stored as data."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string, got {type(value).__name__}")
    split = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", value)
    folded = unicodedata.normalize("NFKD", split).encode("ascii", "ignore").decode().lower()
    normal = _PREDICATE_JUNK.sub("_", folded).strip("_")
    if not normal:
        raise InvalidInputError(field, f"{value!r} has no letters or digits")
    if len(normal) > 128:
        raise InvalidInputError(field, "is longer than 128 characters")
    return normal


_PLAIN_NUMBERS = {float, int}
MIN_VECTOR_NORM = 1e-6
"""The smallest Euclidean norm an embedding may have (Neo4j's cosine squares each element in
32-bit floats: elements of 1e-20 underflow to zero and the vector has no direction)."""
MAX_VECTOR_NORM = 1e6
"""The largest Euclidean norm an embedding may have (elements of 1e20 overflow 32-bit squares)."""


EMBEDDER_OUTPUT = "embedder output"
"""The field an embedder's own vector is checked as (its errors say which embedder to use)."""


def embedding(value: Any, field: str, dimension: int | None, *, embedded: bool = False) -> Vector:
    """``value`` as a vector of ``dimension`` numbers (any when None). ``embedded``: the
    embedder made it (not the caller), so a wrong dimension says the embedder is not the
    store's, as the embedder's own output always does."""
    if not isinstance(value, (list, tuple)) or not value:
        raise InvalidInputError(field, "must be a non-empty list of numbers")
    # checked element by element only when some element is not a plain float or int (a
    # float subclass such as numpy's float64 passes; bool, an int subclass, does not):
    # remember_many checks a 256-d vector per row, and the loop cost 0.25 ms of each
    if not set(map(type, value)) <= _PLAIN_NUMBERS and not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        raise InvalidInputError(field, "must contain only numbers")
    vector = Vector(map(float, value))
    if not all(map(math.isfinite, vector)):
        raise InvalidInputError(field, "contains NaN or infinity")
    if dimension is not None and len(vector) != dimension:
        hint = ("; the store's vectors come from another embedder (the one it was written or re-embedded with: "
                "docs/operations.md)" if embedded or field == EMBEDDER_OUTPUT else "")
        raise InvalidInputError(field, f"has {len(vector)} dimensions; the vector index has {dimension}{hint}")
    if not any(vector):
        raise InvalidInputError(field, "is all zeros (cosine similarity is undefined)")
    norm = math.hypot(*vector)  # no overflow or underflow on the way (it scales internally)
    if not MIN_VECTOR_NORM <= norm <= MAX_VECTOR_NORM:
        raise InvalidInputError(
            field, f"has norm {norm:.3g}, outside [{MIN_VECTOR_NORM:g}, {MAX_VECTOR_NORM:g}]: Neo4j computes "
                   "cosine similarity in 32-bit floats, where such a vector overflows or vanishes")
    return vector
