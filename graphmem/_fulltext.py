"""The full-text side of recall: the Lucene query sent to the ``memory_text`` index."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Sequence

from . import _dates, _scopes

_WORD = re.compile(r"\w+", re.UNICODE)
_LUCENE_WORDS = 64


def lucene_query(query: str, tenant: str | None, chain: Sequence[str]) -> str | None:
    """A Lucene query for the full-text index: the query's words (lower-cased, so no
    operator survives), restricted to the tenant's visible scopes by their exact
    ``lexKey`` tokens (no restriction when ``tenant`` is None: the caller filters). The
    words of time expressions ("a week ago", "last March") are left out: they name a
    time, not a topic (docs/design-notes.md#recall-time-words)."""
    return lucene(words(query), tenant, chain)


def words(query: str) -> str | None:
    """The words of ``query`` that the full-text index is asked for, or None."""
    for start, end, _ in reversed(_dates.mentions(query, datetime.now(timezone.utc), timezone.utc)):
        query = query[:start] + " " + query[end:]
    found = [w.lower() for w in _WORD.findall(query)][:_LUCENE_WORDS]
    return " ".join(found) or None


def lucene(found: str | None, tenant: str | None, chain: Sequence[str]) -> str | None:
    """The Lucene query for ``found`` words, narrowed to ``chain`` when ``tenant`` is given."""
    if found is None:
        return None
    if tenant is None:
        return f"text:({found})"
    keys = " OR ".join(_scopes.lexical_key(tenant, scope) for scope in chain)
    # zero weight: the scope keys filter, they must not score (a smaller scope's rarer key
    # would lift a text above its twin in a bigger scope)
    return f"text:({found}) AND (lexKey:({keys}))^0"
