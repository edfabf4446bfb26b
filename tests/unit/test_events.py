"""Events without a database: published once, after the commit, never from a rolled-back
attempt; a hook that raises is contained; the turn's tool calls are read from messages."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from neo4j.exceptions import TransientError

from graphmem import MemoryEvent
from graphmem._base.events import Emitter, pending
from graphmem._sync.executor import Executor
from graphmem._working.turn import tool_calls

NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


class FakeSession:
    """Runs the unit of work, then fails the commit of the first ``failures`` attempts."""

    def __init__(self, driver):
        self.driver = driver

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, statement, params):  # the store's node, read before the first write: none
        return []

    def execute_write(self, unit):
        out = unit(FakeTx())
        self.driver.attempts += 1
        if self.driver.attempts <= self.driver.failures:
            raise TransientError("the commit lost a deadlock")
        return out


class FakeTx:
    """A transaction whose statements return nothing (the write guard finds no store's node)."""

    _last_error = None

    def run(self, statement, params):
        return []


class FakeDriver:
    execute_query_bookmark_manager = None

    def __init__(self, failures):
        self.failures = failures
        self.attempts = 0

    def session(self, **kwargs):
        return FakeSession(self)


def test_only_the_committed_attempt_publishes_its_events():
    seen: list[MemoryEvent] = []
    run = Executor(FakeDriver(failures=2), database=None, tracer=None, owns_driver=False)
    run.events = Emitter(seen.append, tenant="t", clock=lambda: NOW)
    tries = []

    def work(tx):
        tries.append(1)
        tx.emit("invalidated", [f"m-{len(tries)}"], reason="forgotten")
        tx.emit("pruned", [])  # about nothing: not an event
        return "ok"

    assert run.write(work) == "ok"
    assert len(tries) == 3
    assert [(e.kind, e.ids, e.reason, e.tenant, e.at) for e in seen] == [("invalidated", ("m-3",), "forgotten", "t", NOW)]


def test_a_failed_write_publishes_nothing():
    seen: list[MemoryEvent] = []
    run = Executor(FakeDriver(failures=0), database=None, tracer=None, owns_driver=False)
    run.events = Emitter(seen.append, tenant="t", clock=lambda: NOW)

    def work(tx):
        tx.emit("invalidated", ["m-1"], reason="edited")
        raise ValueError("the caller's check failed inside the transaction")

    with pytest.raises(ValueError):
        run.write(work)
    assert seen == []


def test_a_raising_hook_is_logged_and_later_events_still_arrive(caplog):
    seen = []

    def hook(event):
        seen.append(event.kind)
        if event.kind == "pruned":
            raise RuntimeError("exporter down")

    emitter = Emitter(hook, tenant="t", clock=lambda: NOW)
    with caplog.at_level(logging.DEBUG, logger="graphmem"):
        emitter.publish([pending("pruned", ["a"]), pending("extraction_failed", ["e"], error="model down")])
    assert seen == ["pruned", "extraction_failed"]
    assert "on_event hook raised on a pruned event" in caplog.text
    assert any(r.levelno == logging.WARNING and "model down" in r.getMessage() for r in caplog.records)


def test_tool_calls_are_read_from_langchain_messages_and_json_tool_messages():
    turn = [
        HumanMessage("weather in Porto?"),
        AIMessage("", tool_calls=[{"name": "geocode", "args": {"city": "Porto"}, "id": "a"},
                                  {"name": "forecast", "args": {"lat": 41.1}, "id": "b"}]),
        ToolMessage('{"lat": 41.1}', tool_call_id="a"),
        ToolMessage("sunny", tool_call_id="b"),
        ToolMessage("orphan", tool_call_id="zzz"),
    ]
    calls = tool_calls(turn)
    assert [(c.tool, c.args, c.result) for c in calls] == [
        ("geocode", {"city": "Porto"}, {"lat": 41.1}), ("forecast", {"lat": 41.1}, "sunny")]
    dicts = [{"role": "tool", "content": json.dumps({"tool": "search", "args": {"q": "x"}, "result": [1]})},
             {"role": "tool", "content": "plain text"}, {"role": "user", "content": json.dumps({"tool": "no"})}]
    assert [(c.tool, c.args, c.result) for c in tool_calls(dicts)] == [("search", {"q": "x"}, [1])]
