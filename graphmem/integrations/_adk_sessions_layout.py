"""Where ``GraphMemSessionService`` keeps ADK's sessions among the core's key-value items,
and how their parts are written as item values (``graphmem/integrations/_adk_sessions.py``).

Scopes, below the service's root ``R`` (ids escaped with ``to_segment``, as LangGraph's
namespace labels are)::

    R/<app>/sessions/app                     app state: one item per key ("app:" state)
    R/<app>/sessions/users/<user>/user       user state: one item per key ("user:" state)
    R/<app>/sessions/users/<user>/records    one item per session: its id, last update, event count
    R/<app>/sessions/users/<user>/states/<s> session state: one item per key
    R/<app>/sessions/users/<user>/events/<s> events: one item per event, keyed by its sequence number

Every ADK part sits two or more levels below ``R/<app>``: a user's memories, kept one level
below it at ``R/<app>/<user>`` (graphmem's placement for ADK), see their scope's ancestors
only, never these items. A state entry is keyed by a digest of its key, since an ADK key may be any
string. State values and events are stored as ASCII JSON texts inside the item's value: an
item's strings may not hold control characters, ADK's may (a tool's terminal output)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.adk.events.event import Event
from google.adk.sessions.state import State
from pydantic_core import to_jsonable_python

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._memory.store import MAX_VALUE_BYTES, ItemPut, StoredItem
from ._lg_namespaces import to_segment

STALE = ("The session has been modified in storage since it was loaded. "
         "Please reload the session before appending more events.")
"""The ``StaleSessionError`` message (ADK's database service says the same)."""


@dataclass(frozen=True)
class Where:
    """The scopes of one application, and of one user of it when ``user`` is set."""

    app_name: str
    app: str
    user_id: str | None = None
    user: str | None = None

    @property
    def app_state(self) -> str:
        return f"{self.app}/app"

    @property
    def users(self) -> str:
        return f"{self.app}/users"

    @property
    def user_state(self) -> str:
        return f"{self.user}/user"

    @property
    def records(self) -> str:
        return f"{self.user}/records"

    @property
    def states(self) -> str:
        return f"{self.user}/states"

    def session_state(self, session_id: str) -> str:
        return scopes.check_path(f"{self.user}/states/{to_segment(session_id)}", "session_id")

    def events(self, session_id: str) -> str:
        return scopes.check_path(f"{self.user}/events/{to_segment(session_id)}", "session_id")


def where(root: str, app_name: Any, *user: Any) -> Where:
    """The scopes of ``app_name`` (and of a user, when one is given), ids checked."""
    app_name = check.identifier(app_name, "app_name")
    app = scopes.check_path(f"{root}/{to_segment(app_name)}/sessions", "app_name")
    if not user:
        return Where(app_name, app)
    user_id = check.identifier(user[0], "user_id")
    base = scopes.check_path(f"{app}/users/{to_segment(user_id)}", "user_id")
    scopes.check_path(f"{base}/records", "user_id")
    return Where(app_name, app, user_id, base)


def session_id(value: Any) -> str:
    """A session id, stripped of surrounding whitespace as ADK's own services do."""
    return check.identifier(value.strip() if isinstance(value, str) else value, "session_id")


def user_of(users: str, scope: str) -> str | None:
    """The user segment of ``<users>/<user>/records``, None for any other scope."""
    rest = scope[len(users) + 1:] if scope.startswith(users + "/") else ""
    user, _, leaf = rest.partition("/")
    return user if user and leaf == "records" else None


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def json_safe(state: Mapping[str, Any]) -> dict[str, Any]:
    """State as JSON data: rich values (datetimes, models) as pydantic writes them, values
    with no JSON form (a callable) as their text, as ADK's database services store them."""
    safe = to_jsonable_python(dict(state), serialize_unknown=True)
    return safe if isinstance(safe, dict) else {}


def split(state: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``state`` (a delta, or a new session's state) as app, user and session state, JSON-safe,
    prefixes removed; ``temp:`` keys are dropped (they are never stored)."""
    app: dict[str, Any] = {}
    user: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, value in (state or {}).items():
        if key.startswith(State.APP_PREFIX):
            app[key.removeprefix(State.APP_PREFIX)] = value
        elif key.startswith(State.USER_PREFIX):
            user[key.removeprefix(State.USER_PREFIX)] = value
        elif not key.startswith(State.TEMP_PREFIX):
            own[key] = value
    return json_safe(app), json_safe(user), json_safe(own)


def merged(app: Mapping[str, Any], user: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """A session's state as ADK shows it: its own, then app and user state under their prefixes."""
    state = dict(own)
    state.update({State.APP_PREFIX + k: v for k, v in app.items()})
    state.update({State.USER_PREFIX + k: v for k, v in user.items()})
    return state


def entry_puts(scope: str, entries: Mapping[str, Any], user_id: str | None, label: str,
               session_id: str | None = None) -> list[ItemPut]:
    """One item per state key (a later put of the key is its new value); a session's state
    names its session, so ``erase(session_id=...)`` finds it."""
    return [ItemPut(scope, "k-" + digest(key), {"entry": dumps([key, value])}, text=label, embed=False, user_id=user_id,
                    session_id=session_id)
            for key, value in entries.items()]


def state_puts(where: Where, sid: str, app: Mapping[str, Any], user: Mapping[str, Any],
               own: Mapping[str, Any]) -> list[ItemPut]:
    """The writes of a state delta split by ``split``: the session's own keys, the app's and
    the user's, each key an item."""
    return [*entry_puts(where.session_state(sid), own, where.user_id, f"ADK state of session {sid}", session_id=sid),
            *entry_puts(where.app_state, app, None, "ADK app state"),
            *entry_puts(where.user_state, user, where.user_id, "ADK user state")]


def entries(found: Iterable[StoredItem]) -> dict[str, Any]:
    """The state that ``entry_puts`` items hold."""
    state: dict[str, Any] = {}
    for item in found:
        key, value = json.loads(item.value["entry"])
        state[key] = value
    return state


def record(where: Where, sid: str, *, updated: float, created: float, count: int, last: str | None) -> ItemPut:
    """A session's record: its id and user, when it was created and last updated, how many
    events it has and a digest of its last event's id (the stale-session check's)."""
    value = {"id": sid, "user_id": where.user_id, "created": created, "last_update_time": updated,
             "events": count, "last_event": last}
    return ItemPut(where.records, sid, value, text=f"ADK session {sid}", embed=False, user_id=where.user_id,
                   session_id=sid)


def event_put(where: Where, sid: str, seq: int, event: Event) -> ItemPut:
    """An event as an item: every field (``model_dump`` as JSON), at key ``seq``."""
    value = {"seq": seq, "timestamp": event.timestamp, "event": dumps(event.model_dump(mode="json", exclude_none=True))}
    size = len(dumps(value))  # ASCII: characters are bytes
    if size > MAX_VALUE_BYTES:
        raise InvalidInputError("event", f"is {size:,} bytes as stored; the limit is {MAX_VALUE_BYTES:,}")
    return ItemPut(where.events(sid), f"{seq:012d}", value, text=f"ADK event {seq} of session {sid}",
                   embed=False, user_id=where.user_id, session_id=sid)


def events(found: Iterable[StoredItem]) -> list[Event]:
    """Stored events in the order they were appended."""
    ordered = sorted(found, key=lambda item: int(item.value["seq"]))
    return [Event.model_validate_json(item.value["event"]) for item in ordered]


def recent(events: list[Event], num_recent_events: int | None, after_timestamp: float | None) -> list[Event]:
    """``GetSessionConfig``'s filters, as ADK's in-memory service applies them: the last
    ``num_recent_events`` events, then those after the last event older than ``after_timestamp``."""
    if num_recent_events is not None:
        events = events[-num_recent_events:] if num_recent_events else []
    if after_timestamp is not None:
        older = [i for i, e in enumerate(events) if e.timestamp < after_timestamp]
        events = events[older[-1] + 1:] if older else events
    return events
