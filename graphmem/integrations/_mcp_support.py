"""Configuration and result text of the MCP server (``graphmem.integrations.mcp``):
who may see what, and how records read to a model. No MCP SDK import here."""

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time
from typing import Any

from .._async.memory import AsyncMemory
from .._base import scopes
from .._base import validate as check
from .._base.embeddings import EMBEDDERS, named_embedder
from .._base.errors import ConfigurationError, InvalidInputError
from .._base.models import Fact, MemoryRecord
from .._recall import lines


@dataclass(frozen=True)
class ServerConfig:
    """What the server serves: one tenant, one root scope, one Neo4j, one embedder, and the
    user id every write is recorded for (``user_id``, optional; ``erase(user_id=...)``
    removes what the server wrote for that user).

    ``from_env`` reads ``GRAPHMEM_TENANT``, ``GRAPHMEM_SCOPE``, ``GRAPHMEM_EMBEDDER``,
    ``GRAPHMEM_MCP_USER_ID`` and the ``NEO4J_*`` variables; keyword overrides (the command
    line's flags) win over them. The password is only ever read from the environment (a flag
    would show in ``ps``).
    """

    tenant: str
    scope: str
    embedder: str = "wordllama"
    uri: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str | None = None
    setup: bool = True
    user_id: str | None = None

    def __post_init__(self) -> None:
        try:
            check.identifier(self.tenant, "tenant")
            scopes.check_path(self.scope, "scope")
            check.identifier(self.user_id, "user_id", allow_none=True)
        except InvalidInputError as exc:
            raise ConfigurationError(f"graphmem mcp: {exc}") from exc
        if self.embedder not in EMBEDDERS:
            raise ConfigurationError(f"graphmem mcp: embedder must be one of {', '.join(EMBEDDERS)}, not {self.embedder!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "ServerConfig":
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {
            "tenant": env.get("GRAPHMEM_TENANT"), "scope": env.get("GRAPHMEM_SCOPE"),
            "embedder": env.get("GRAPHMEM_EMBEDDER") or "wordllama", "uri": env.get("NEO4J_URI") or None,
            "user": env.get("NEO4J_USER") or None, "password": env.get("NEO4J_PASSWORD"),
            "database": env.get("NEO4J_DATABASE") or None, "user_id": env.get("GRAPHMEM_MCP_USER_ID") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        for key, variable in (("tenant", "GRAPHMEM_TENANT"), ("scope", "GRAPHMEM_SCOPE")):
            if not values.get(key):
                raise ConfigurationError(f"graphmem mcp: set {variable} or --{key}: the server serves one {key}, "
                                         "chosen by whoever runs it")
        return cls(**values)

    def open_memory(self) -> AsyncMemory:
        """An ``AsyncMemory`` on this tenant with this embedder (the caller closes it)."""
        auth = (self.user or "neo4j", self.password) if self.password is not None else None
        return AsyncMemory(self.uri, auth, database=self.database, tenant=self.tenant,
                           embedder=named_embedder(self.embedder))


class Bounds:
    """The root scope and what a tool may do relative to it."""

    def __init__(self, root: str) -> None:
        self.root = scopes.check_path(root, "scope")

    def scope(self, sub: str | None) -> str:
        """The absolute scope for a tool's relative ``scope`` argument (the root if omitted)."""
        if sub is None or sub == "":
            return self.root
        scopes.check_path(sub, "scope")
        return scopes.check_path(f"{self.root}/{sub}", "scope")

    def owns(self, path: str) -> bool:
        return scopes.within(path, self.root)

    def inherits(self, path: str) -> bool:
        return path in scopes.chain(self.root)[:-1]


def _when(value: datetime) -> str:
    if value.time() == time(0) and value.utcoffset() is not None and not value.utcoffset():
        return value.date().isoformat()
    return value.isoformat(timespec="seconds")


def record_line(record: MemoryRecord, *, score: float | None = None, quarantined: bool = False) -> str:
    """One record as one line: kind and id, then what it says as ``context()`` says it (an
    episode's date and speaker, a fact's validity: ``_recall/lines.py``), then what a model
    needs to judge it."""
    head = f"- [{record.kind} {record.id}]"
    if score is not None:
        head += f" ({score:.2f})"
    details = []
    if isinstance(record, Fact) and (structured := lines.triple(record)):
        details.append(structured)
    steps = getattr(record, "steps", ())
    if steps:
        details.append("steps: " + "; ".join(steps))
    details.append(record.provenance.value + (", unvalidated" if quarantined else ""))
    if record.invalidated_at is not None:
        details.append(f"no longer believed since {_when(record.invalidated_at)} ({record.invalidation_reason})")
    for link in record.superseded_by:
        details.append(f"superseded by {link.by} ({link.reason})")
    details.append(f"scope {record.scope}")
    return f"{head} {lines.body(record)} | " + " | ".join(details)


def record_lines(records: Sequence[MemoryRecord], empty: str) -> str:
    return "\n".join(record_line(r) for r in records) if records else empty
