"""Fuzzing of the surfaces that take outside data wholesale (issue 28): ``import_records``
(mutated export files), the LangGraph store (hostile namespaces, keys and values) and the
MCP tools (hostile and unknown arguments, through the SDK's in-memory client). Every case is
counted: tried, clear errors (a graphmem error, LangGraph's own ``InvalidNamespaceError``,
an MCP error result that says what was wrong), raw errors (anything else: must be 0) and
partial writes (a failed call that changed the tenant's nodes or relationships: must be 0).
bench/reliability.py prints the counts (``TALLY``) under its table."""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections import Counter
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import InvalidNamespaceError
from mcp import Client

from graphmem import AsyncMemory, GraphMemError, Memory
from graphmem.integrations.langgraph import GraphMemStore
from graphmem.integrations.mcp import create_server

from .helpers import footprint

# 40 cases of each surface, each a Memory of its own: seconds on an idle machine, but well past the
# reliability tests' 180 s bound on two cores shared with benchmarks (the bound then kills the worker)
# make test-reliability: fuzzing
pytestmark = [pytest.mark.long, pytest.mark.integration, pytest.mark.reliability, pytest.mark.timeout(600)]

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
TALLY: dict[str, Counter] = {}

hostile_text = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=30),
    st.sampled_from(["", " ", "\x00", "\x1b[2J", "\u200b", "a/b", "..", "x" * 40_000, "lone \ud800", "\u202egnp"]),
)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True), hostile_text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=3)),
    max_leaves=8,
)


def count(surface: str, outcome: str) -> None:
    TALLY.setdefault(surface, Counter())[outcome] += 1


def judged(surface: str, driver, tenant: str, call) -> None:
    """Run one case and count what came of it; a raw error or a partial write fails the test."""
    count(surface, "tried")
    before = footprint(driver, tenant)
    try:
        call()
    except (GraphMemError, InvalidNamespaceError):
        after = footprint(driver, tenant)
        count(surface, "clear")
        if after != before:
            count(surface, "partial")
            raise AssertionError(f"a refused {surface} call changed the graph: {before} -> {after}") from None
        return
    except Exception:
        count(surface, "raw")
        raise
    count(surface, "ok")


# -- import_records ------------------------------------------------------------------------------------------------

@pytest.fixture
def export_file(memory):
    ann = memory.upsert_entity("Ann", type="person", scope="acme", aliases=["Annie"], properties={"age": 3})
    acme = memory.upsert_entity("Acme", type="organisation", scope="acme")
    memory.relate(ann.id, "works_at", acme.id, scope="acme/ann", valid_from=datetime(2020, 1, 1, tzinfo=timezone.utc),
                  user_id="ann")
    memory.ingest([{"role": "user", "content": "which lens?"}, {"role": "assistant", "content": "an 85 mm prime"}],
                  scope="acme/ann", llm=None, session_id="chat-1", user_id="ann")
    memory.note_add("likes tea", scope="acme", owner="ann")
    return list(memory.export_records())


@FUZZ
@given(data=st.data())
def test_import_records(neo4j, schema, embedder, export_file, driver, data):
    records = copy.deepcopy(export_file)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(records) - 1))
        record = records[i]
        if not isinstance(record, dict):  # an earlier step made it a non-object: it can only be replaced again
            records[i] = data.draw(values)
            continue
        how = data.draw(st.sampled_from(["prop", "drop", "add", "record", "ends", "whole", "kind"]))
        props = record.setdefault("props", {})
        if how == "prop" and props:
            props[data.draw(st.sampled_from(sorted(props)))] = data.draw(values)
        elif how == "drop" and props:
            props.pop(data.draw(st.sampled_from(sorted(props))))
        elif how == "add":
            props[data.draw(hostile_text)] = data.draw(values)
        elif how == "record":
            record["record"] = data.draw(st.one_of(values, st.sampled_from(["node", "edge", "scope", "header"])))
        elif how == "ends":
            record[data.draw(st.sampled_from(["source", "target", "path", "type"]))] = data.draw(values)
        elif how == "kind":
            record["kind"] = data.draw(st.one_of(values, st.sampled_from(["fact", "note", "summary", "chunk"])))
        else:
            records[i] = data.draw(values)
    target = f"fuzz-{uuid.uuid4().hex[:12]}"
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=target, embedder=embedder) as m:
        judged("import_records", driver, target, lambda: m.import_records(records, batch_size=3))


def test_import_records_plain(neo4j, schema, embedder, export_file, driver):
    """The fuzzer's 1-3 changes nearly always break an export (a run can draw only refusals):
    the unchanged export makes sure the tally also holds an import that landed."""
    answered = TALLY.get("import_records", Counter())["ok"]
    target = f"fuzz-{uuid.uuid4().hex[:12]}"
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=target, embedder=embedder) as m:
        judged("import_records", driver, target, lambda: m.import_records(copy.deepcopy(export_file), batch_size=3))
    assert TALLY["import_records"]["ok"] == answered + 1  # it landed, it was not refused


# -- the LangGraph store -------------------------------------------------------------------------------------------

namespaces = st.one_of(st.tuples(st.just("users"), hostile_text), st.lists(hostile_text, max_size=3).map(tuple),
                       st.just(("users", "ann")))


@FUZZ
@given(namespace=namespaces, key=st.one_of(hostile_text, st.just("k")), value=st.one_of(values, st.just({"text": "hi"})),
       index=st.one_of(st.none(), st.just(False), st.lists(st.sampled_from(["text", "$", "a.b", "x[*]"]), max_size=2)),
       ttl=st.one_of(st.none(), st.floats(allow_nan=True), st.integers(-3, 3)),
       query=st.one_of(st.none(), hostile_text), limit=st.integers(-2, 5))
def test_langgraph_store(memory, driver, namespace, key, value, index, ttl, query, limit):
    store = GraphMemStore(memory, scope="acme", user_id=lambda ns: ns[1] if len(ns) > 1 else None)
    judged("langgraph_store", driver, memory.tenant, lambda: store.put(namespace, key, value, index=index, ttl=ttl))
    judged("langgraph_store", driver, memory.tenant, lambda: store.get(namespace, key))
    judged("langgraph_store", driver, memory.tenant, lambda: store.search(namespace[:1], query=query, limit=limit))
    judged("langgraph_store", driver, memory.tenant, lambda: store.delete(namespace, key))


# -- MCP tools -------------------------------------------------------------------------------------------------------

TOOL_ARGUMENTS = {
    "remember": ["text", "scope", "subject", "predicate", "object", "valid_from", "valid_to", "importance"],
    "recall": ["query", "scope", "k", "kinds", "as_of", "valid_at"],
    "context": ["query", "scope", "as_of", "valid_at"],
    "forget": ["id", "text", "subject", "predicate", "scope"],
    "correct": ["fact_id", "corrected_text", "reason", "object"],
    "history": ["subject", "predicate", "scope"],
    "facts": ["scope", "subject", "predicate", "as_of", "valid_at"],
    "add_episode": ["content", "role", "scope", "occurred_at", "session_id"],
    "suggest_procedures": ["task", "scope", "k"],
}


class ToolCrash(Exception):
    """The MCP SDK's sign of an unexpected exception in a tool: the bare 'Error executing tool X'."""


def call_tool(neo4j, embedder, tenant: str, tool: str, arguments: dict) -> None:
    async def run() -> None:
        async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
            async with Client(create_server(m, scope="acme/ann")) as client:
                result = await client.call_tool(tool, arguments)
        if result.is_error:
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            if text.strip() == f"Error executing tool {tool}":
                raise ToolCrash(text)
            raise GraphMemError(text)  # a refusal the model can read and act on

    asyncio.run(run())


@FUZZ
@given(tool=st.sampled_from(sorted(TOOL_ARGUMENTS)), data=st.data())
def test_mcp_tools(neo4j, schema, embedder, tenant, driver, tool, data):
    names = data.draw(st.lists(st.sampled_from(TOOL_ARGUMENTS[tool] + ["tenant", "user_id", "bogus"]), max_size=5,
                               unique=True))
    arguments = {name: data.draw(st.one_of(values, st.just("2026-03-01T09:00:00+00:00"), st.just("acme"))) for name in names}
    judged("mcp_tools", driver, tenant, lambda: call_tool(neo4j, embedder, tenant, tool, arguments))


# the fuzzer mostly draws refusals; these plain calls make sure the tally also holds tools
# that answered (whichever cases the generator happens to draw on a given server)
PLAIN_CALLS = [("remember", {"text": "Ann drinks green tea"}), ("recall", {"query": "tea"}),
               ("context", {"query": "what does Ann drink"}), ("facts", {}), ("history", {"subject": "Ann"}),
               ("add_episode", {"content": "hello there"}), ("suggest_procedures", {"task": "make tea"})]


@pytest.mark.parametrize("tool, arguments", PLAIN_CALLS, ids=[t for t, _ in PLAIN_CALLS])
def test_mcp_tools_plain_calls(neo4j, schema, embedder, tenant, driver, tool, arguments):
    answered = TALLY.get("mcp_tools", Counter())["ok"]
    judged("mcp_tools", driver, tenant, lambda: call_tool(neo4j, embedder, tenant, tool, arguments))
    assert TALLY["mcp_tools"]["ok"] == answered + 1  # a plain call answers, it is not refused


def test_the_tally(request):
    """Runs last in this module: every surface was tried, nothing raw, nothing half-written."""
    wanted = {"import_records", "langgraph_store", "mcp_tools"}
    ran = {item.name.split("[")[0] for item in request.session.items if item.module is request.module}
    expected = {s for s in wanted if f"test_{s}" in ran}
    assert set(TALLY) >= expected, TALLY
    for surface, tally in TALLY.items():
        assert tally["tried"] > 0 and tally["raw"] == 0 and tally["partial"] == 0, (surface, dict(tally))
        assert tally["clear"] > 0 and tally["ok"] > 0, (surface, dict(tally))  # the fuzzer reached both sides
