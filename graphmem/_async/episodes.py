"""Episodes: one raw observation (``add_episode``), or conversation messages, each checked,
embedded and written with its speaker, in one transaction with the speakers' entities and the entities
the messages name (``_async/mentions.py``). ``ingest`` and ``after_turn`` store through it.
``graphmem/_sync/episodes.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .._base import dates
from .._base import props as _props
from .._base import scopes as _scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import Episode
from .._base.records import NodeRow, record_of
from .._base.traced import instrument
from .._learning import ingest as _ingest
from .._learning.ingest import speaker_name
from .._memory import episodes as _episodes
from .._memory.episodes import LinkedRow, WindowsRow
from .backend import AsyncStore
from .executor import AsyncTx
from .mentions import AsyncMentions, Landed


@instrument("graphmem", names=("add_episode",))
class AsyncEpisodes:
    """Episodes of one tenant: one observation, or a batch of conversation messages, written with their speakers and the entities they name (``AsyncMemory`` hands ``add_episode`` to it; ``ingest`` and ``after_turn`` store messages through it)."""

    def __init__(self, store: AsyncStore, mentions: AsyncMentions) -> None:
        self._store = store
        self._mentions = mentions

    async def add_episode(
        self,
        content: str,
        *,
        scope: str,
        role: str = "user",
        occurred_at: datetime | None = None,
        source: str | None = None,
        id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        importance: float | None = None,
        sensitivity: str | None = None,
        tags: Iterable[str] = (),
        speaker: str | None = None,
    ) -> Episode:
        """Store a raw observation (immutable once written; the same id, or the same scope,
        session, role, time and content, returns it unchanged). ``role`` is one of ``user``,
        ``assistant``, ``tool``, ``system``, ``event``; ``occurred_at`` (default now) is when
        it happened. ``content`` may be up to ``MAX_EPISODE_LENGTH`` characters (a pasted
        document or log): it is stored whole, searchable by its words, and embedded in
        overlapping windows as well, so a question about its middle finds it. ``speaker`` is
        who said it, by name; the speaker's entity (else the user's or the agent's, by role)
        gets a ``SPOKE`` edge to it, and the entities the memory's ``entity_extractor`` finds
        in it are written with ``MENTIONS`` edges, in the same transaction."""
        now = self._store.core.now()
        row = _episodes.row(
            content, tenant=self._store.core.tenant, scope=scope, role=role, occurred_at=occurred_at, source=source,
            id=id, user_id=user_id, agent_id=agent_id, session_id=session_id, importance=importance,
            sensitivity=sensitivity, tags=tags, now=now, speaker=speaker_name(speaker, "speaker"),
        )
        windows = _episodes.chunks([row])
        props = row["props"]
        graph = await self._mentions.plan_mentions([{"role": props["role"], "content": props["text"], "speaker": props["speaker"]}],
                                          [props["id"]], props["scope"], {"user_id": user_id, "agent_id": agent_id},
                                          extract=True)
        await self._store.embed([row, *windows, *graph.rows], ["content"] * (1 + len(windows)) + ["entities"] * len(graph.rows))
        tenant = self._store.core.tenant

        async def work(tx: AsyncTx) -> Episode:
            found = await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=[row["props"]["id"]])
            if found:
                _props.expect_record(found[0].node, "episode", row["props"])
                return record_of(Episode, found[0].node)
            await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([row["props"]["scope"]]))
            created = await tx.run_as(NodeRow, "episode_create", tenant=tenant, rows=[row], now=now)
            if windows:
                await tx.run_as(WindowsRow, "episode_chunks_create", tenant=tenant, rows=windows, now=now)
            if row["props"]["sessionId"] is not None:
                await tx.run_as(LinkedRow, "episode_link_next", tenant=tenant, ids=[row["props"]["id"]])
            await self._mentions.land_mentions(tx, graph, {props["id"]}, props["scope"], _scopes.chain(props["scope"]), now)
            return record_of(Episode, created[0].node)

        return await self._store.run.write(work)

    async def store_messages(self, messages: Iterable[Any], *, scope: str, session_id: str | None,
                              occurred_at: datetime | None, timezone: str, user_id: str | None, agent_id: str | None,
                              extract: bool) -> tuple[list[Episode], list[dict[str, Any]], Landed]:
        """The first half of ``ingest`` (and all of ``after_turn`` before it returns): every
        message checked, embedded and written as an episode with its speaker, and in the same
        transaction the speakers' entities (``SPOKE``) and, with ``extract``, the entities
        the memory's extractor finds in them (``MENTIONS``). Returns the episodes, the
        normalised messages and the entities written or resolved."""
        scope = _scopes.check_path(scope)
        if not isinstance(timezone, str):
            raise InvalidInputError("timezone", "must be an IANA timezone name")
        tz = dates.zone(timezone)
        for name, value in (("session_id", session_id), ("user_id", user_id), ("agent_id", agent_id)):
            check.identifier(value, name, allow_none=True)
        now = self._store.core.now()
        msgs = _ingest.messages(messages, check.instant(occurred_at, "occurred_at"), now)
        episodes = [
            _episodes.row(
                m["content"], tenant=self._store.core.tenant, scope=scope, role=m["role"], occurred_at=m["occurred_at"], source="ingest",
                id=m["id"], user_id=user_id, agent_id=agent_id, session_id=session_id, importance=None,
                sensitivity=None, tags=(), now=now, speaker=m["speaker"], tz=tz,
            ) for m in msgs
        ]
        windows = _episodes.chunks(episodes)
        graph = await self._mentions.plan_mentions(msgs, [e["props"]["id"] for e in episodes], scope,
                                          {"user_id": user_id, "agent_id": agent_id}, extract=extract)
        await self._store.embed([*episodes, *windows, *graph.rows], [f"messages[{i}].content" for i in range(len(episodes))]
                          + ["messages[].content"] * len(windows) + ["entities"] * len(graph.rows))
        tenant = self._store.core.tenant
        landed = Landed()

        async def store(tx: AsyncTx) -> list[Episode]:
            nonlocal landed
            ids = [e["props"]["id"] for e in episodes]
            seen = {r.node["id"]: r.node for r in await tx.run_as(NodeRow, "memory_existing", tenant=tenant, ids=ids)}
            for i, rid in enumerate(ids):
                if rid in seen:
                    _props.expect_record(seen[rid], "episode", episodes[i]["props"], f"messages[{i}].id")
            # a message stored before (same id, or same scope, session, role, time and text) is kept once
            fresh = list({e["props"]["id"]: e for e in episodes if e["props"]["id"] not in seen}.values())
            if fresh:
                await tx.run("scope_ensure", tenant=tenant, scopes=_scopes.parents([scope] * len(fresh)))
                for r in await tx.run_as(NodeRow, "episode_create", tenant=tenant, rows=fresh, now=now):
                    seen[r.node["id"]] = r.node
                new = {e["props"]["id"] for e in fresh}
                if any(w["episodeId"] in new for w in windows):
                    await tx.run_as(WindowsRow, "episode_chunks_create", tenant=tenant, now=now,
                                 rows=[w for w in windows if w["episodeId"] in new])
                if session_id is not None:
                    in_order = sorted(fresh, key=lambda e: (e["props"]["occurredAt"], ids.index(e["props"]["id"])))
                    await tx.run_as(LinkedRow, "episode_link_next", tenant=tenant, ids=[e["props"]["id"] for e in in_order])
                landed = await self._mentions.land_mentions(tx, graph, new, scope, _scopes.chain(scope), now)
            return [record_of(Episode, seen[rid]) for rid in ids]

        stored = await self._store.run.write(store)
        return stored, [{**m, "id": e.id} for m, e in zip(msgs, stored)], landed
