"""ADK sessions kept in graphmem: ``GraphMemSessionService``, a ``BaseSessionService`` on the
core's key-value items (``AsyncItemStore``/``ItemStore``, ``graphmem/_memory/store.py``).

A session is a record item, its state entries and its events, each event an item of its own,
app state and user state one item per key, all below the service's root scope
(``_adk_sessions_layout.py`` has the layout). Nothing here is embedded or recalled: sessions
are read by id. An append lands whole, in one transaction: the event, the session's record
(last update, event count), its state entries, app and user state.

ADK's contract, as its in-memory and database services keep it: ``app:`` state is shared by
every session of the application, ``user:`` state by every session of the user, ``temp:``
state is never stored; a partial event is not stored; a session object older than storage
(another writer appended since it was read) is refused with ``StaleSessionError``; an append
to an unknown session raises ``SessionNotFoundError``, a duplicate id ``AlreadyExistsError``."""

import asyncio
import weakref
from typing import Any

from google.adk.errors import StaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.platform import time as platform_time
from google.adk.platform import uuid as platform_uuid
from google.adk.sessions.base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from google.adk.sessions.session import Session

from .._base import scopes
from .._base.errors import InvalidInputError
from .._base.traced import instrument
from .._memory.store import MAX_SEARCH, ItemDelete, ItemGet, ItemRead, ItemResults, ItemScopes, ItemSearch, ItemWrite
from . import _adk_sessions_layout as layout
from ._bridge import check_memory, item_batch, item_store

__all__ = ["GraphMemSessionService"]


@instrument("graphmem.adk")
class GraphMemSessionService(BaseSessionService):
    """ADK's sessions in graphmem, for ``Runner(session_service=...)``: ``memory`` is a
    ``Memory`` (its calls run in a worker thread) or an ``AsyncMemory``; ``scope`` is the root
    every application's sessions live under (``<scope>/<app_name>/sessions/...``).

    Events, state and last update time survive the process and are shared by every service
    on the same memory and scope. App, user and session ids must be graphmem identifiers
    (non-empty, no control characters, no spaces at the ends: ``InvalidInputError`` naming
    ``app_name``, ``user_id`` or ``session_id``; a session id's surrounding whitespace is
    stripped, as ADK's services do). The stale-session check compares the session's
    ``last_update_time`` (and its last event) with storage's, and appends to one session are
    serialized within this service on one event loop: two event loops (``Runner.run`` starts
    one per call, in its own thread), or two processes, appending to the same session at the
    same instant are not told apart, and one of the two events can be lost."""

    def __init__(self, memory: Any, *, scope: str = "adk") -> None:
        super().__init__()
        self.memory = check_memory(memory)
        self.scope = scopes.check_path(scope)
        self._items = item_store(self.memory)
        self._locks: weakref.WeakValueDictionary[tuple[Any, ...], asyncio.Lock] = weakref.WeakValueDictionary()

    async def _batch(self, reads: list[ItemRead] | None = None, writes: list[ItemWrite] | None = None) -> ItemResults:
        """Reads, then writes, in one transaction (a ``Memory``'s in a worker thread)."""
        return await item_batch(self._items, reads or [], writes or [])

    def _lock(self, where: layout.Where, sid: str) -> asyncio.Lock:
        """The lock of one session in the running event loop: its check-then-write calls run
        one at a time here (a lock belongs to one loop; ``Runner.run`` starts a loop per call)."""
        key = (asyncio.get_running_loop(), where.app_name, str(where.user_id), sid)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def create_session(self, *, app_name: str, user_id: str, state: dict[str, Any] | None = None,
                             session_id: str | None = None) -> Session:
        """A new session of ``user_id`` in ``app_name`` with ``state`` (its ``app:`` and
        ``user:`` keys go to app and user state, ``temp:`` keys are dropped) and id
        ``session_id`` (none or blank: a new UUID); ``AlreadyExistsError`` if the user has a
        session with that id. The returned state is merged with the stored app and user state,
        its values as JSON keeps them."""
        where = layout.where(self.scope, app_name, user_id)
        given = session_id is not None and not (isinstance(session_id, str) and not session_id.strip())
        sid = layout.session_id(session_id if given else platform_uuid.new_uuid())
        if state is not None and not isinstance(state, dict):
            raise InvalidInputError("state", f"must be a dict, got {type(state).__name__}")
        app, user, own = layout.split(state)
        async with self._lock(where, sid):
            found = await self._batch([ItemGet(where.records, sid), ItemSearch(where.app_state, MAX_SEARCH),
                                       ItemSearch(where.user_state, MAX_SEARCH)])
            if found.got[0] is not None:
                raise AlreadyExistsError(f"Session with id {sid} already exists.")
            now = platform_time.get_time()
            await self._batch(writes=[layout.record(where, sid, updated=now, created=now, count=0, last=None),
                                      *layout.state_puts(where, sid, app, user, own)])
        merged = layout.merged({**layout.entries(found.found[0]), **app}, {**layout.entries(found.found[1]), **user}, own)
        return Session(app_name=where.app_name, user_id=where.user_id, id=sid, state=merged, events=[], last_update_time=now)

    async def get_session(self, *, app_name: str, user_id: str, session_id: str,
                          config: GetSessionConfig | None = None) -> Session | None:
        """The session with its events (in the order they were appended) and merged state,
        or None. ``config.num_recent_events`` keeps the last events only,
        ``config.after_timestamp`` those after the last event older than it."""
        where = layout.where(self.scope, app_name, user_id)
        sid = layout.session_id(session_id)
        skip = config is not None and config.num_recent_events == 0
        reads: list[ItemRead] = [ItemGet(where.records, sid), ItemSearch(where.session_state(sid), MAX_SEARCH),
                                 ItemSearch(where.app_state, MAX_SEARCH), ItemSearch(where.user_state, MAX_SEARCH)]
        if not skip:
            reads.append(ItemSearch(where.events(sid), MAX_SEARCH))
        found = await self._batch(reads)
        stored = found.got[0]
        if stored is None:
            return None
        events = [] if skip else layout.events(found.found[3])
        if config is not None:
            events = layout.recent(events, config.num_recent_events, config.after_timestamp)
        state = layout.merged(layout.entries(found.found[1]), layout.entries(found.found[2]),
                              layout.entries(found.found[0]))
        return Session(app_name=where.app_name, user_id=where.user_id, id=sid, state=state, events=events,
                       last_update_time=stored.value["last_update_time"])

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> ListSessionsResponse:
        """The sessions of ``user_id`` in ``app_name`` (None: of every user), least recently
        updated first, with their merged state and without their events."""
        app = layout.where(self.scope, app_name)
        if user_id is not None:
            users = [layout.where(self.scope, app_name, user_id)]
            app_found = None
        else:
            first = await self._batch([ItemScopes(app.users), ItemSearch(app.app_state, MAX_SEARCH)])
            segments = sorted({s for s in (layout.user_of(app.users, p) for p in first.scopes[0]) if s})
            users = [layout.Where(app.app_name, app.app, None, f"{app.users}/{s}") for s in segments]
            app_found = first.found[0]
        reads: list[ItemRead] = [] if app_found is not None else [ItemSearch(app.app_state, MAX_SEARCH)]
        for where in users:
            reads += [ItemSearch(where.records, MAX_SEARCH), ItemSearch(where.states, MAX_SEARCH),
                      ItemSearch(where.user_state, MAX_SEARCH)]
        found = (await self._batch(reads)).found if reads else []
        app_state = layout.entries(app_found if app_found is not None else found.pop(0))
        sessions = []
        for n, where in enumerate(users):
            records, states, user = found[3 * n:3 * n + 3]
            user_state = layout.entries(user)
            by_scope: dict[str, list[Any]] = {}
            for item in states:
                by_scope.setdefault(item.scope, []).append(item)
            for rec in records:
                value = rec.value
                own = layout.entries(by_scope.get(where.session_state(value["id"]), []))
                sessions.append(Session(app_name=app.app_name, user_id=value["user_id"], id=value["id"],
                                        state=layout.merged(app_state, user_state, own), events=[],
                                        last_update_time=value["last_update_time"]))
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session, its state and its events (an unknown session is no error). Like
        any deleted item in graphmem they stay in the items' history until ``memory.erase``."""
        where = layout.where(self.scope, app_name, user_id)
        sid = layout.session_id(session_id)
        async with self._lock(where, sid):
            while True:
                found = await self._batch([ItemGet(where.records, sid), ItemSearch(where.session_state(sid), MAX_SEARCH),
                                           ItemSearch(where.events(sid), MAX_SEARCH)])
                items = [item for item in found.got if item is not None] + found.found[0] + found.found[1]
                if not items:
                    return
                await self._batch(writes=[ItemDelete(item.scope, item.key) for item in items])
                if len(found.found[1]) < MAX_SEARCH:
                    return

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user's ``user:`` state in ``app_name``, keys without the prefix ({} if none)."""
        where = layout.where(self.scope, app_name, user_id)
        return layout.entries((await self._batch([ItemSearch(where.user_state, MAX_SEARCH)])).found[0])

    async def append_event(self, session: Session, event: Event) -> Event:
        """Append ``event`` to ``session`` (ADK's base semantics: a partial event is neither
        stored nor appended, ``temp:`` state reaches the session object only, the state delta
        is applied) and store it, with the state delta, in one transaction. An equal
        re-delivery of the last stored event is a no-op. Raises ``SessionNotFoundError`` for a
        session not in storage and ``StaleSessionError`` when storage was updated after
        ``session`` was read; on any failure the session object is left as it was."""
        if event.partial:
            return event
        where = layout.where(self.scope, session.app_name, session.user_id)
        sid = layout.session_id(session.id)
        async with self._lock(where, sid):
            found = (await self._batch([ItemGet(where.records, sid)])).got[0]
            if found is None:
                raise SessionNotFoundError(f"Session {sid} not found.")
            stored = found.value
            if stored["last_event"] == layout.digest(event.id) and await self._stored_again(where, sid, stored, event):
                return event
            last = session.events[-1].id if session.events else None
            if stored["last_update_time"] > session.last_update_time and (
                    stored["last_event"] != (None if last is None else layout.digest(last))):
                raise StaleSessionError(layout.STALE)
            state, count = dict(session.state), len(session.events)
            try:
                await super().append_event(session, event)
                await self._batch(writes=self._append_writes(where, sid, stored, event))
            except BaseException:
                session.state.clear()
                session.state.update(state)
                del session.events[count:]
                raise
            session.last_update_time = event.timestamp
        return event

    async def _stored_again(self, where: layout.Where, sid: str, stored: dict[str, Any], event: Event) -> bool:
        """Whether ``event`` equals the session's last stored event (a retried append)."""
        got = (await self._batch([ItemGet(where.events(sid), f"{int(stored['events']):012d}")])).got[0]
        return got is not None and layout.events([got]) == [event]

    @staticmethod
    def _append_writes(where: layout.Where, sid: str, stored: dict[str, Any], event: Event) -> list[ItemWrite]:
        """The writes of one append: the event, the session's record, the state delta."""
        seq = int(stored["events"]) + 1
        app, user, own = layout.split(event.actions.state_delta if event.actions else None)
        return [layout.event_put(where, sid, seq, event),
                layout.record(where, sid, updated=event.timestamp, created=stored["created"], count=seq,
                              last=layout.digest(event.id)),
                *layout.state_puts(where, sid, app, user, own)]

