"""ADK's sessions kept in graphmem (``GraphMemSessionService``), on a real Neo4j: the
session-service contract in graphmem's words (ADK's own contract suite, adapted, runs
outside the repository)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.errors import StaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions.base_session_service import GetSessionConfig
from google.adk.sessions.session import Session
from google.genai import types
from pydantic import Field

from graphmem import ConfigurationError, InvalidInputError
from graphmem._memory.store import ItemScopes
from graphmem._sync.store import ItemStore
from graphmem.integrations._adk_sessions import GraphMemSessionService


class Scripted(BaseLlm):
    """ADK's model, offline: answers "noted" and keeps every request it was sent."""

    model: str = "scripted"
    requests: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="noted")]))


def said(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def event(**fields: Any) -> Event:
    fields.setdefault("author", "user")
    fields.setdefault("invocation_id", "inv")
    delta = fields.pop("delta", None)
    return Event(actions=EventActions(state_delta=delta or {}), **fields)


async def test_create_get_list_delete(amemory):
    service = GraphMemSessionService(amemory)
    created = await service.create_session(app_name="shop", user_id="ann", state={"cart": ["book"]}, session_id="s1")
    assert (created.id, created.state, created.events) == ("s1", {"cart": ["book"]}, [])
    assert await service.get_session(app_name="shop", user_id="ann", session_id="s1") == created
    other = await service.create_session(app_name="shop", user_id="ann")
    assert len(other.id) == 36  # a UUID when none is given
    listed = (await service.list_sessions(app_name="shop", user_id="ann")).sessions
    assert [s.id for s in listed] == ["s1", other.id] and listed[0].state == {"cart": ["book"]}
    await service.delete_session(app_name="shop", user_id="ann", session_id="s1")
    await service.delete_session(app_name="shop", user_id="ann", session_id="never")  # no error
    assert await service.get_session(app_name="shop", user_id="ann", session_id="s1") is None
    assert [s.id for s in (await service.list_sessions(app_name="shop")).sessions] == [other.id]
    again = await service.create_session(app_name="shop", user_id="ann", session_id="s1")
    assert (again.state, (await service.get_session(app_name="shop", user_id="ann", session_id="s1")).events) == ({}, [])


async def test_a_runner_s_turn_is_stored_and_a_new_service_carries_the_conversation_on(amemory):
    model = Scripted()
    agent = LlmAgent(name="helper", model=model, instruction="Be brief.", output_key="last_reply")
    first = GraphMemSessionService(amemory)
    session = await first.create_session(app_name="shop", user_id="ann", session_id="chat")
    async for _ in Runner(app_name="shop", agent=agent, session_service=first).run_async(
            user_id="ann", session_id="chat", new_message=said("My cat is called Tom.")):
        pass
    second = GraphMemSessionService(amemory)  # as a new process would: nothing shared but the graph
    stored = await second.get_session(app_name="shop", user_id="ann", session_id=session.id)
    assert [(e.author, e.content.parts[0].text) for e in stored.events] == [
        ("user", "My cat is called Tom."), ("helper", "noted")]
    assert stored.state == {"last_reply": "noted"}
    async for _ in Runner(app_name="shop", agent=agent, session_service=second).run_async(
            user_id="ann", session_id="chat", new_message=said("What is my cat called?")):
        pass
    seen = [p.text for c in model.requests[-1].contents for p in c.parts or [] if p.text]
    assert "My cat is called Tom." in seen and seen[-1] == "What is my cat called?"
    assert len((await second.get_session(app_name="shop", user_id="ann", session_id="chat")).events) == 4


async def test_state_prefixes_reach_the_app_the_user_or_the_session_and_temp_is_never_stored(amemory):
    service = GraphMemSessionService(amemory)
    s1 = await service.create_session(app_name="shop", user_id="ann", state={"app:theme": "dark", "temp:x": 1})
    await service.append_event(s1, event(delta={"app:v": 2, "user:name": "Ann", "step": 1, "temp:scratch": "y"}))
    assert s1.state == {"app:theme": "dark", "app:v": 2, "user:name": "Ann", "step": 1, "temp:scratch": "y"}
    assert "temp:scratch" not in s1.events[0].actions.state_delta
    stored = await service.get_session(app_name="shop", user_id="ann", session_id=s1.id)
    assert stored.state == {"app:theme": "dark", "app:v": 2, "user:name": "Ann", "step": 1}
    assert stored.events[0].actions.state_delta == {"app:v": 2, "user:name": "Ann", "step": 1}
    s2 = await service.create_session(app_name="shop", user_id="ann")
    bob = await service.create_session(app_name="shop", user_id="bob")
    assert s2.state == {"app:theme": "dark", "app:v": 2, "user:name": "Ann"}
    assert bob.state == {"app:theme": "dark", "app:v": 2}
    assert await service.get_user_state(app_name="shop", user_id="ann") == {"name": "Ann"}
    assert await service.get_user_state(app_name="shop", user_id="bob") == {}


async def test_a_stale_session_object_is_refused_and_nothing_is_written(amemory):
    service = GraphMemSessionService(amemory)
    session = await service.create_session(app_name="shop", user_id="ann")
    stale = session.model_copy(deep=True)
    await service.append_event(session, event(timestamp=session.last_update_time + 1, delta={"k": "winner"}))
    with pytest.raises(StaleSessionError, match="modified in storage"):
        await service.append_event(stale, event(timestamp=session.last_update_time + 2, delta={"k": "stale"}))
    assert (stale.events, stale.state) == ([], {})  # the object is left as it was
    stored = await service.get_session(app_name="shop", user_id="ann", session_id=session.id)
    assert stored.state == {"k": "winner"} and len(stored.events) == 1
    await service.append_event(stored, event(delta={"k": "fresh"}))  # a reloaded session appends
    assert (await service.get_session(app_name="shop", user_id="ann", session_id=session.id)).state == {"k": "fresh"}


async def test_unknown_sessions_duplicates_and_partial_events(amemory):
    service = GraphMemSessionService(amemory)
    with pytest.raises(SessionNotFoundError):
        await service.append_event(Session(app_name="shop", user_id="ann", id="never"), event())
    session = await service.create_session(app_name="shop", user_id="ann", session_id="  s1\n")
    assert session.id == "s1"  # surrounding whitespace is stripped, as ADK's services do
    with pytest.raises(AlreadyExistsError):
        await service.create_session(app_name="shop", user_id="ann", session_id="s1 ")
    await service.append_event(session, event(partial=True))
    assert session.events == [] and (await service.get_session(app_name="shop", user_id="ann",
                                                               session_id=" s1")).events == []
    blank = await service.create_session(app_name="shop", user_id="ann", session_id="  ")
    assert blank.id.strip() == blank.id != ""


async def test_two_users_and_two_apps_are_isolated(amemory):
    service = GraphMemSessionService(amemory)
    for app, user, sid in [("shop", "ann", "s"), ("shop", "bob", "s"), ("blog", "ann", "s"), ("shop", "ann", "a/b"),
                           ("shop", "ann", "a%2Fb")]:
        session = await service.create_session(app_name=app, user_id=user, session_id=sid, state={"who": f"{app} {user}"})
        await service.append_event(session, event(delta={"user:secret": f"{app} {user}", "app:name": app}))
    ann = await service.get_session(app_name="shop", user_id="ann", session_id="s")
    bob = await service.get_session(app_name="shop", user_id="bob", session_id="s")
    assert ann.state == {"who": "shop ann", "user:secret": "shop ann", "app:name": "shop"}
    assert bob.state == {"who": "shop bob", "user:secret": "shop bob", "app:name": "shop"}
    assert await service.get_user_state(app_name="blog", user_id="ann") == {"secret": "blog ann"}
    assert sorted(s.id for s in (await service.list_sessions(app_name="shop", user_id="ann")).sessions) == [
        "a%2Fb", "a/b", "s"]  # an id with "/" is escaped in its scope, and stays apart from its escape
    assert sorted((s.user_id, s.id) for s in (await service.list_sessions(app_name="shop")).sessions) == [
        ("ann", "a%2Fb"), ("ann", "a/b"), ("ann", "s"), ("bob", "s")]
    await service.delete_session(app_name="shop", user_id="ann", session_id="s")
    assert await service.get_session(app_name="shop", user_id="bob", session_id="s") is not None
    assert await service.get_session(app_name="blog", user_id="ann", session_id="s") is not None


@pytest.mark.parametrize(("call", "field"), [
    (lambda s: s.create_session(app_name="", user_id="ann"), "app_name"),
    (lambda s: s.create_session(app_name="shop", user_id=" ann"), "user_id"),
    (lambda s: s.create_session(app_name="shop", user_id="ann", session_id="a\x00b"), "session_id"),
    (lambda s: s.create_session(app_name="shop", user_id="ann", state=["k"]), "state"),
    (lambda s: s.create_session(app_name="shop", user_id="ann", session_id="x" * 300), "session_id"),
    (lambda s: s.get_session(app_name="shop", user_id=None, session_id="s1"), "user_id"),
    (lambda s: s.get_session(app_name="shop", user_id="ann", session_id=" "), "session_id"),
    (lambda s: s.list_sessions(app_name="shop\n"), "app_name"),
    (lambda s: s.delete_session(app_name="shop", user_id="", session_id="s1"), "user_id"),
    (lambda s: s.get_user_state(app_name=7, user_id="ann"), "app_name"),
    (lambda s: s.append_event(Session(app_name="shop", user_id="ann\t", id="s1"), event()), "user_id"),
])
async def test_bad_ids_are_refused_naming_the_field_and_nothing_is_written(amemory, memory, call, field):
    service = GraphMemSessionService(amemory)
    with pytest.raises(InvalidInputError) as info:
        await call(service)
    assert info.value.field == field
    assert ItemStore(memory).batch([ItemScopes(None)]).scopes == [[]]  # memory: the same tenant as amemory


def test_a_bad_memory_or_scope_is_refused(memory):
    with pytest.raises(ConfigurationError):
        GraphMemSessionService(object())
    with pytest.raises(InvalidInputError) as info:
        GraphMemSessionService(memory, scope="a//b")
    assert info.value.field == "scope"


async def test_recent_events_and_after_timestamp(amemory):
    service = GraphMemSessionService(amemory)
    session = await service.create_session(app_name="shop", user_id="ann")
    for t in (10.0, 20.0, 30.0, 40.0):
        await service.append_event(session, event(timestamp=t))

    async def stamps(**config: Any) -> list[float]:
        got = await service.get_session(app_name="shop", user_id="ann", session_id=session.id,
                                        config=GetSessionConfig(**config))
        return [e.timestamp for e in got.events]

    assert await stamps() == [10.0, 20.0, 30.0, 40.0]
    assert await stamps(num_recent_events=0) == []
    assert await stamps(num_recent_events=2) == [30.0, 40.0]
    assert await stamps(after_timestamp=20.0) == [20.0, 30.0, 40.0]
    assert await stamps(after_timestamp=25.0, num_recent_events=3) == [30.0, 40.0]
    assert await stamps(after_timestamp=99.0) == []


async def test_an_event_round_trips_every_field_even_control_characters(amemory):
    service = GraphMemSessionService(amemory)
    session = await service.create_session(app_name="shop", user_id="ann", state={"raw": "\x1b[1mbold\x1b[0m \x85"})
    rich = Event(invocation_id="inv", author="tool", timestamp=1700000000.123456,
                 content=types.Content(role="user", parts=[types.Part(text="ünïcode \x1b[31mred\x1b[0m \x07"),
                                                           types.Part.from_bytes(data=b"\x00\xff", mime_type="image/png")]),
                 long_running_tool_ids={"t2", "t1"}, custom_metadata={"k": [1, 2.5, None]}, turn_complete=True,
                 actions=EventActions(state_delta={"when": "now"}, artifact_delta={"f": 0}))
    await service.append_event(session, rich)
    stored = await service.get_session(app_name="shop", user_id="ann", session_id=session.id)
    assert stored == session and stored.events[0] == rich
    big = Event(invocation_id="inv", author="user", content=said("x" * 1_100_000))
    with pytest.raises(InvalidInputError) as info:  # an item holds at most 1 MB
        await service.append_event(stored, big)
    assert info.value.field == "event" and len(stored.events) == 1 and stored.state == session.state
    assert len((await service.get_session(app_name="shop", user_id="ann", session_id=session.id)).events) == 1


async def test_a_sync_memory_works_too(memory):
    service = GraphMemSessionService(memory)  # its calls run in worker threads
    session = await service.create_session(app_name="shop", user_id="ann", state={"user:lang": "en"})
    await asyncio.gather(service.get_user_state(app_name="shop", user_id="ann"),
                         service.append_event(session, event(delta={"done": True})))
    stored = await service.get_session(app_name="shop", user_id="ann", session_id=session.id)
    assert stored == session and stored.state == {"user:lang": "en", "done": True}
    assert [s.id for s in (await service.list_sessions(app_name="shop", user_id=None)).sessions] == [session.id]


async def test_sessions_live_below_the_scope_where_no_user_s_recall_sees_them(memory):
    service = GraphMemSessionService(memory, scope="acme")
    session = await service.create_session(app_name="shop", user_id="ann", session_id="s1", state={"app:k": 1})
    await service.append_event(session, event(content=said("My cat is called Tom."), delta={"user:k": 2, "k": 3}))
    scopes = ItemStore(memory).batch([ItemScopes("acme")]).scopes[0]
    assert scopes == ["acme/shop/sessions/app", "acme/shop/sessions/users/ann/events/s1",
                      "acme/shop/sessions/users/ann/records", "acme/shop/sessions/users/ann/states/s1",
                      "acme/shop/sessions/users/ann/user"]
    question = "ADK session event state s1"
    found = memory.recall(question, scope="acme/shop/sessions/users/ann/records")
    assert [r.record.text for r in found] == ["ADK session s1"]  # items are facts: recall finds them there
    for scope in ("acme/shop/ann", "acme/shop/sessions", "acme/shop/users"):  # any user's scope of the app
        assert memory.recall(question, scope=scope) == []


def test_every_method_is_a_span(observed, spans):
    async def run() -> None:
        service = GraphMemSessionService(observed)
        session = await service.create_session(app_name="shop", user_id="ann")
        await service.append_event(session, event())
        await service.get_session(app_name="shop", user_id="ann", session_id=session.id)
        await service.list_sessions(app_name="shop")
        await service.get_user_state(app_name="shop", user_id="ann")
        await service.delete_session(app_name="shop", user_id="ann", session_id=session.id)

    asyncio.run(run())
    names = [n for n in spans.names() if n.startswith("graphmem.adk.")]
    assert names == [f"graphmem.adk.{m}" for m in ("create_session", "append_event", "get_session",
                                                   "list_sessions", "get_user_state", "delete_session")]
    assert spans.named("graphmem.adk.append_event")[0].attributes.get("graphmem.tenant") == observed.tenant


async def test_erasing_a_user_removes_their_sessions_and_user_state_only(memory):
    service = GraphMemSessionService(memory)
    ann = await service.create_session(app_name="shop", user_id="ann", state={"k": 1, "user:u": 1, "app:a": 1})
    await service.append_event(ann, event(delta={"k": 2}))
    bob = await service.create_session(app_name="shop", user_id="bob")
    assert memory.erase(user_id="ann").total > 0
    assert await service.get_session(app_name="shop", user_id="ann", session_id=ann.id) is None
    assert await service.get_user_state(app_name="shop", user_id="ann") == {}
    assert [(s.id, s.state) for s in (await service.list_sessions(app_name="shop")).sessions] == [(bob.id, {"app:a": 1})]


async def test_erasing_a_session_removes_its_events_and_state_and_nothing_else(memory):
    service = GraphMemSessionService(memory)
    ann = await service.create_session(app_name="shop", user_id="ann", state={"k": 1, "user:u": 1, "app:a": 1})
    await service.append_event(ann, event(delta={"k": 2}))
    other = await service.create_session(app_name="shop", user_id="ann", state={"k": 3})
    assert memory.erase(session_id=ann.id).total > 0
    assert await service.get_session(app_name="shop", user_id="ann", session_id=ann.id) is None
    kept = await service.get_session(app_name="shop", user_id="ann", session_id=other.id)
    assert kept is not None and kept.state == {"k": 3, "user:u": 1, "app:a": 1}  # user and app state stay
