"""Everything ``Memory`` and ``AsyncMemory`` share that is not I/O: validation and the
parameters of each write. The I/O classes only embed, run templates and convert results."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

from . import _scopes
from . import _validate as check
from ._errors import InvalidInputError
from ._models import Provenance, Sensitivity, Status

DEFAULT_SINGLE_VALUED = frozenset({
    "lives_in", "located_in", "born_in", "born_on", "birthday", "age", "works_at", "works_for",
    "employer", "job_title", "role", "married_to", "email", "phone", "home_city", "nationality",
    "status", "manager", "reports_to", "current_project", "timezone", "preferred_language",
})
"""Predicates treated as single-valued when ``single_valued`` is not given."""

AUTOMATIC = [p.value for p in Provenance if p.automatic]
REMEMBER_FIELDS = frozenset({
    "text", "scope", "subject", "predicate", "object", "single_valued", "valid_from", "valid_to",
    "provenance", "importance", "sensitivity", "tags", "user_id", "agent_id", "session_id", "id",
    "embedding", "derived_from",
})


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class MemoryCore:
    """Configuration and pure logic shared by the sync and async front doors."""

    def __init__(
        self,
        *,
        tenant: str,
        embedder: Any,
        clock: Callable[[], datetime] | None,
        single_valued_predicates: Iterable[str] | None,
        contradiction_threshold: float,
    ) -> None:
        self.tenant = check.identifier(tenant, "tenant")
        self.embedder = embedder
        self._clock = clock or utc_now
        self.single_valued_predicates = frozenset(
            DEFAULT_SINGLE_VALUED if single_valued_predicates is None
            else (check.predicate(p, "single_valued_predicates") for p in single_valued_predicates)
        )
        if not 0.0 < contradiction_threshold <= 1.0:
            raise InvalidInputError("contradiction_threshold", "must be in (0, 1]")
        self.contradiction_threshold = contradiction_threshold
        self.dimension: int | None = None

    # -- time -----------------------------------------------------------------------
    def now(self) -> datetime:
        return check.instant(self._clock(), "clock", allow_none=False)

    def as_of_valid_at(self, as_of: Any, valid_at: Any) -> tuple[datetime, datetime]:
        now = self.now()
        return (check.instant(as_of, "as_of") or now, check.instant(valid_at, "valid_at") or now)

    # -- facts ----------------------------------------------------------------------
    def fact_row(self, item: Mapping[str, Any], now: datetime, prefix: str = "") -> dict[str, Any]:
        """Validate one ``remember`` call's arguments; return the row for ``fact_create``."""
        unknown = sorted(set(item) - REMEMBER_FIELDS)
        if unknown:
            raise InvalidInputError(f"{prefix}{unknown[0]}", "is not a field of remember()")
        f = lambda name: f"{prefix}{name}"  # noqa: E731 -- names fields in batch errors
        text = check.text(item.get("text"), f("text"))
        scope = _scopes.check_path(item.get("scope"), f("scope"))
        provenance = check.choice(item.get("provenance") or Provenance.MANUAL, Provenance, f("provenance"))
        sensitivity = check.choice(item.get("sensitivity") or Sensitivity.INTERNAL, Sensitivity, f("sensitivity"))
        subject = check.identifier(item.get("subject"), f("subject"), allow_none=True)
        predicate = check.predicate(item.get("predicate"), f("predicate"))
        obj = item.get("object")
        if obj is not None and not isinstance(obj, str):
            raise InvalidInputError(f("object"), f"must be a string (an entity id or a literal), got {type(obj).__name__}")
        if (subject is None) != (predicate is None):
            raise InvalidInputError(f("predicate" if subject else "subject"), "subject and predicate go together: give both or neither")
        valid_from = check.instant(item.get("valid_from"), f("valid_from")) or now
        valid_to = check.instant(item.get("valid_to"), f("valid_to"))
        check.interval(valid_from, valid_to, f("valid_to"))
        single = item.get("single_valued")
        if single is None:
            single = predicate in self.single_valued_predicates
        elif not isinstance(single, bool):
            raise InvalidInputError(f("single_valued"), "must be True, False or None")
        if single and predicate is None:
            raise InvalidInputError(f("single_valued"), "needs a subject and predicate")
        embedding = item.get("embedding")
        if embedding is not None:
            embedding = check.embedding(embedding, f("embedding"), self.dimension)
        derived = [check.identifier(e, f("derived_from")) for e in check.tags(item.get("derived_from") or (), f("derived_from"))]
        props = {
            "id": check.new_id() if item.get("id") is None else check.identifier(item["id"], f("id")),
            "scope": scope,
            "lexKey": _scopes.lexical_key(self.tenant, scope),
            "text": text,
            "textKey": check.text_key(text),
            "subject": subject,
            "predicate": predicate,
            "object": obj,
            "singleValued": single,
            "validFrom": valid_from,
            "validTo": valid_to,
            "closedAt": now if valid_to is not None else None,
            "provenance": provenance.value,
            "status": (Status.QUARANTINED if provenance in (Provenance.REFLECTION, Provenance.INDUCTION) else Status.ACTIVE).value,
            "sensitivity": sensitivity.value,
            "importance": check.unit_interval(item.get("importance"), f("importance"), 0.5),
            "tags": check.tags(item.get("tags") or (), f("tags")),
            "userId": check.identifier(item.get("user_id"), f("user_id"), allow_none=True),
            "agentId": check.identifier(item.get("agent_id"), f("agent_id"), allow_none=True),
            "sessionId": check.identifier(item.get("session_id"), f("session_id"), allow_none=True),
            "embedding": embedding,
        }
        return {"props": props, "chain": _scopes.chain(scope), "derivedFrom": derived}

    def fact_rows(self, items: Iterable[Mapping[str, Any]], now: datetime) -> list[dict[str, Any]]:
        if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
            raise InvalidInputError("items", "must be a list of remember() argument mappings")
        rows = []
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidInputError(f"items[{i}]", "must be a mapping of remember() arguments")
            row = self.fact_row(item, now, prefix=f"items[{i}].")
            rid = row["props"]["id"]
            if rid in seen:
                raise InvalidInputError(f"items[{i}].id", f"{rid!r} repeats items[{seen[rid]}].id in one batch")
            seen[rid] = i
            rows.append(row)
        return rows

    def stored(self, props: Mapping[str, Any], kind: str, now: datetime) -> dict[str, Any]:
        """The node map a template would return for a record just written with ``props``."""
        return {**props, "tenant": self.tenant, "kind": kind, "createdAt": now, "embedding": None}

    def check_embeddings(self, rows: list[dict[str, Any]], vectors: list[list[float]], fields: list[str]) -> None:
        for row, vector, field in zip(rows, vectors, fields):
            row["props"]["embedding"] = check.embedding(vector, field, self.dimension)

    def needs_embedding(self, rows: list[dict[str, Any]]) -> list[int]:
        if self.embedder is None:
            return []
        return [i for i, row in enumerate(rows) if row["props"].get("embedding") is None]

    @staticmethod
    def supersede_waves(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """Rows of single-valued facts, split so no wave has two rows on one subject/predicate
        (rows on the same key are then ordered by valid time, so a batch reads like a timeline)."""
        keyed: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            p = row["props"]
            if p["singleValued"] and p["subject"] is not None:
                keyed.setdefault((p["subject"], p["predicate"]), []).append(row)
        waves: list[list[dict[str, Any]]] = []
        for group in keyed.values():
            group.sort(key=lambda r: r["props"]["validFrom"])
            for depth, row in enumerate(group):
                if depth == len(waves):
                    waves.append([])
                waves[depth].append({
                    "id": row["props"]["id"],
                    "chain": row["chain"],
                    "explicit": not Provenance(row["props"]["provenance"]).automatic,
                })
        return waves

    # -- episodes -------------------------------------------------------------------
    def episode_row(self, content: Any, *, scope: Any, role: Any, occurred_at: Any, source: Any,
                    id: Any, user_id: Any, agent_id: Any, session_id: Any, importance: Any,
                    sensitivity: Any, tags: Any, now: datetime) -> dict[str, Any]:
        text = check.text(content, "content")
        if role not in ("user", "assistant", "tool", "system", "event"):
            raise InvalidInputError("role", f"{role!r} is not one of 'user', 'assistant', 'tool', 'system', 'event'")
        props = {
            "id": check.new_id() if id is None else check.identifier(id, "id"),
            "scope": _scopes.check_path(scope),
            "lexKey": _scopes.lexical_key(self.tenant, scope),
            "text": text,
            "textKey": check.text_key(text),
            "role": role,
            "occurredAt": check.instant(occurred_at, "occurred_at") or now,
            "source": None if source is None else check.text(source, "source"),
            "provenance": Provenance.USER.value if role == "user" else Provenance.MANUAL.value,
            "status": Status.ACTIVE.value,
            "sensitivity": check.choice(sensitivity or Sensitivity.INTERNAL, Sensitivity, "sensitivity").value,
            "importance": check.unit_interval(importance, "importance", 0.5),
            "tags": check.tags(tags or ()),
            "userId": check.identifier(user_id, "user_id", allow_none=True),
            "agentId": check.identifier(agent_id, "agent_id", allow_none=True),
            "sessionId": check.identifier(session_id, "session_id", allow_none=True),
            "embedding": None,
        }
        return {"props": props}

    # -- entities -------------------------------------------------------------------
    def entity_props(self, name: Any, *, type: Any, scope: Any, aliases: Any, properties: Any,
                     id: Any, importance: Any, sensitivity: Any, provenance: Any) -> dict[str, Any]:
        name = check.text(name, "name")
        if len(name) > 512:
            raise InvalidInputError("name", "is longer than 512 characters")
        etype = check.identifier(type, "type")
        alias_list = [check.text(a, f"aliases[{i}]") for i, a in enumerate(check.tags(aliases or (), "aliases"))]
        if properties is not None and not isinstance(properties, Mapping):
            raise InvalidInputError("properties", "must be a mapping of JSON values")
        try:
            properties_json = json.dumps(dict(properties or {}), sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError("properties", f"must be JSON-serialisable: {exc}") from None
        return {
            "id": check.new_id() if id is None else check.identifier(id, "id"),
            "scope": _scopes.check_path(scope),
            "lexKey": _scopes.lexical_key(self.tenant, scope),
            "text": name,
            "textKey": check.text_key(name),
            "name": name,
            "nameKey": check.text_key(name),
            "type": etype,
            "aliases": alias_list,
            "aliasKeys": sorted({check.text_key(a) for a in alias_list}),
            "propertiesJson": properties_json,
            "provenance": check.choice(provenance, Provenance, "provenance").value,
            "status": Status.ACTIVE.value,
            "sensitivity": check.choice(sensitivity or Sensitivity.INTERNAL, Sensitivity, "sensitivity").value,
            "importance": check.unit_interval(importance, "importance", 0.5),
            "tags": [],
            "embedding": None,
        }

    @staticmethod
    def merged_entity(existing: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
        """Aliases and properties to record on ``existing`` after resolving ``new`` to it,
        or None when nothing changes."""
        aliases = list(existing.get("aliases") or [])
        keys = set(existing.get("aliasKeys") or []) | {existing["nameKey"]}
        for alias in [new["name"], *new["aliases"]]:
            key = check.text_key(alias)
            if key not in keys:
                aliases.append(alias)
                keys.add(key)
        props = json.loads(existing.get("propertiesJson") or "{}")
        props.update(json.loads(new["propertiesJson"]))
        merged = {
            "aliases": aliases,
            "aliasKeys": sorted(keys - {existing["nameKey"]}),
            "propertiesJson": json.dumps(props, sort_keys=True),
        }
        unchanged = (merged["aliases"] == list(existing.get("aliases") or [])
                     and merged["propertiesJson"] == (existing.get("propertiesJson") or "{}"))
        return None if unchanged else merged

    # -- thresholds -----------------------------------------------------------------
    def neo4j_similarity(self, cosine: float | None = None) -> float:
        """Neo4j's vector.similarity.cosine is (1 + cos) / 2; convert a plain cosine to it."""
        value = self.contradiction_threshold if cosine is None else cosine
        if not math.isfinite(value):
            raise InvalidInputError("threshold", "must be finite")
        return (1.0 + value) / 2.0
