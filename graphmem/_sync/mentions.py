# Generated from graphmem/_async/mentions.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""The graph a conversation's own words give, on ``Memory``: the entity extractor
(``_base/ner.py``) reads the messages, ``_memory/mentions.py`` plans one entity per name
and speaker, and the write resolves them against the stored entities (names and aliases
through the ``entity_keys`` index, short forms of speakers' names) and lands entities,
``MENTIONS`` (with spans) and ``SPOKE`` in the transaction that writes the episodes.
This file is generated from ``graphmem/_async/mentions.py`` by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .._base import keys as _keys
from .._base import ner
from .._base import validate as check
from .._base.models import Entity, Provenance
from .._memory import entities as _entities
from .._memory import mentions as _mentions
from .._memory.mentions import ForgottenRow, MatchRow, MentionsRow
from .backend import Store
from .entities import Entities
from .executor import Tx

MATCH_LIMIT = 20  # index hits read per name: the visible scopes' entities with the name or alias, of any type


@dataclass
class OfflineGraph:
    """A batch's planned speakers and mentions, with the property rows (embedded) of the
    entities they name, ready to land inside the episodes' transaction."""

    plan: _mentions.MentionPlan
    rows: list[dict[str, Any]]


@dataclass
class Landed:
    """What ``land_mentions`` wrote: entities created, and stored ones the names resolved to."""

    created: list[Entity] = field(default_factory=list)
    merged: list[Entity] = field(default_factory=list)


class Mentions:
    """The speakers and named entities of a batch of messages: planned before the write, resolved and landed inside it."""

    def __init__(self, store: Store, entities: Entities) -> None:
        self._store = store
        self._entities = entities

    def plan_mentions(self, messages: Sequence[Mapping[str, Any]], episode_ids: Sequence[str], scope: str,
                             who: Mapping[str, Any], *, extract: bool) -> OfflineGraph:
        """Read ``messages`` with the memory's entity extractor (unless ``extract`` is False
        or there is none: then only their speakers) and plan their entities (their rows are
        embedded by the caller, in the one embedder call of the episodes)."""
        extractor = self._store.core.extractor if extract else None
        texts = [m["content"] for m in messages]
        found = ner.extract(extractor, texts) if extractor is not None else [[] for _ in texts]
        plan = _mentions.plan(messages, episode_ids, found, who)
        rows = [{"props": _entities.props(
            e.name, tenant=self._store.core.tenant, type=e.type, scope=scope, aliases=e.aliases, properties=None, id=None,
            importance=None, sensitivity=None, provenance=Provenance.EXTRACTION)} for e in plan.entities]
        return OfflineGraph(plan=plan, rows=rows)

    def land_mentions(self, tx: Tx, graph: OfflineGraph, fresh: Collection[str], scope: str,
                             chain: list[str], now: datetime) -> Landed:
        """Inside the episodes' write: resolve the planned entities of the ``fresh`` episodes
        (those this write creates; a message stored before keeps its edges) and write their
        entities and edges. A name resolves to the visible entity with that name or alias
        (of any of the types a name found offline may have), or, for a one-word person name,
        to the only visible speaker whose first name starts with it; a name the user asked to
        forget is not written again; any other is created (``_create_entity``)."""
        plan, tenant, landed = graph.plan, self._store.core.tenant, Landed()
        used = sorted({m.entity for m in plan.mentions if m.episode in fresh}
                      | {i for i, episode in plan.spoke if episode in fresh})
        if not used:
            return landed
        found = {r.i: r.node for r in tx.run_as(MatchRow, "entity_match", tenant=tenant, chain=chain, limit=MATCH_LIMIT, rows=[
            {"i": i, "keys": plan.entities[i].keys, "type": plan.entities[i].type, "types": plan.entities[i].types,
             "query": _keys.query(plan.entities[i].keys, tenant, chain)} for i in used])}
        short = [{"i": i, "key": key, "query": query} for i in used if i not in found and plan.entities[i].short
                 for key in [check.text_key(plan.entities[i].name)]
                 if (query := _keys.prefix_query(key, tenant, chain)) is not None]
        if short:
            found.update({r.i: r.node for r in tx.run_as(
                MatchRow, "entity_nickname", tenant=tenant, chain=chain, limit=MATCH_LIMIT, rows=short)})
        ids: dict[int, str] = {}
        for together in _by_node(found).values():  # names of one stored entity: its aliases merged at once
            entity = self._entities.merge_entity(tx, found[together[0]], _pooled([graph.rows[i]["props"] for i in together]))
            landed.merged.append(entity)
            ids.update((i, entity.id) for i in together)
        for i in used:
            props = graph.rows[i]["props"]
            if i in found:
                continue
            if tx.run_as(ForgottenRow, "entity_forgotten", tenant=tenant, scope=scope, chain=chain, prefix=scope + "/",
                            type=props["type"], keys=_entities.lookup_keys(props)):
                continue
            entity, new = self._entities.create_entity(tx, props, chain, now)
            (landed.created if new else landed.merged).append(entity)
            ids[i] = entity.id
        mentions = [{"episode": m.episode, "entity": ids[m.entity], "starts": list(m.starts), "ends": list(m.ends),
                     "labels": list(m.labels)} for m in plan.mentions if m.episode in fresh and m.entity in ids]
        spoke = [{"episode": episode, "entity": ids[i]} for i, episode in plan.spoke if episode in fresh and i in ids]
        tx.run_as(MentionsRow, "episode_mentions", tenant=tenant, mentions=mentions, spoke=spoke,
                     created=[e.id for e in landed.created])
        return landed


def _by_node(found: Mapping[int, Mapping[str, Any]]) -> dict[str, list[int]]:
    """The planned entities grouped by the stored entity each resolved to."""
    out: dict[str, list[int]] = {}
    for i, node in sorted(found.items()):
        out.setdefault(node["id"], []).append(i)
    return out


def _pooled(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The first row's properties with every other row's name and aliases as its aliases."""
    if len(rows) == 1:
        return rows[0]
    aliases = [*rows[0]["aliases"], *(n for r in rows[1:] for n in (r["name"], *r["aliases"]))]
    return {**rows[0], "aliases": aliases}
