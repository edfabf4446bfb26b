"""Entity lookup keys in the ``entity_keys`` full-text index: the keyword query that finds
the entities of a tenant's visible scopes whose normalised name or alias is one of some keys
(used to resolve names while writing and to find the entities a question names)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import scopes

MAX_KEYS = 256  # keys in one query (Lucene's default clause limit is 1,024)


def _quoted(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def query(keys: Iterable[str], tenant: str, chain: Sequence[str]) -> str | None:
    """The Lucene query (keyword analyzer: whole keys, exactly) for entities of ``tenant`` in
    the scopes ``chain`` whose ``nameKey`` or one of whose ``aliasKeys`` is one of ``keys``;
    None when there is no key. Each key is quoted, so no operator in a name survives."""
    wanted = sorted({k for k in keys if k})[:MAX_KEYS]
    if not wanted:
        return None
    names = " ".join(f"nameKey:{_quoted(k)} aliasKeys:{_quoted(k)}" for k in wanted)
    return f"+({_scopes(tenant, chain)}) +({names})"


def prefix_query(key: str, tenant: str, chain: Sequence[str]) -> str | None:
    """The Lucene query for entities of ``tenant`` in ``chain`` whose ``nameKey`` starts with
    ``key`` (a short name: letters and digits only, else None, so nothing needs escaping)."""
    if not key or not key.isalnum():
        return None
    return f"+({_scopes(tenant, chain)}) +nameKey:{key}*"


def _scopes(tenant: str, chain: Sequence[str]) -> str:
    """One ``lexKey:`` clause per scope of ``chain``. Each names its field: the keyword
    analyzer reads a grouped ``lexKey:(k1 k2)`` as the single token "k1 k2", which no
    entity has, so a chain of two scopes or more would match nothing."""
    return " ".join(f"lexKey:{scopes.lexical_key(tenant, path)}" for path in chain)
