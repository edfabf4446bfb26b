"""The MCP server (graphmem.integrations.mcp) through the mcp SDK's own clients: in memory,
over a real stdio subprocess (``python -m graphmem._cli mcp``) and over streamable HTTP, on
the test Neo4j. A tool call must never reach another tenant or a scope outside the root."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from graphmem import AsyncMemory, Memory
from graphmem.integrations.mcp import create_server
from tests.mcp_http import client, http_server

ROOT = "acme/alice"
TOOLS = {"remember", "recall", "context", "forget", "correct", "history", "facts", "add_episode", "suggest_procedures"}
REPO = Path(__file__).resolve().parents[2]


def ids(text: str, kind: str = "fact") -> list[str]:
    return re.findall(rf"\[{kind} ([0-9a-z-]+)\]", text)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


async def call(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def fails(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} should have failed: {text_of(result)}"
    return text_of(result)


@pytest.fixture
async def amem(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        yield m


def served(memory: AsyncMemory) -> Client:
    """An in-memory client of a server over ``memory`` confined to ROOT (entered in the test's
    own task: anyio's task groups cannot span a fixture's setup and teardown)."""
    return Client(create_server(memory, scope=ROOT))


async def test_tools_and_their_schemas(amem):
    async with served(amem) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            props = tool.input_schema["properties"]
            assert tool.description and len(tool.description) > 60, tool.name  # written for a model
            assert not {"tenant", "user_id", "agent_id"} & set(props), tool.name  # never the model's choice
            assert all(p.get("description") for p in props.values()), tool.name
        assert tools["remember"].input_schema["required"] == ["text"]
        assert tools["forget"].input_schema["required"] == ["id"]
        assert tools["correct"].input_schema["required"] == ["fact_id", "corrected_text"]
        assert tools["recall"].input_schema["properties"]["k"]["maximum"] == 50
        assert tools["add_episode"].input_schema["properties"]["role"]["enum"] == ["user", "assistant", "tool", "system", "event"]
        assert tools["recall"].annotations.read_only_hint is True
        assert tools["forget"].annotations.destructive_hint is True
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["graphmem://facts/{+path}"]
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["graphmem://facts"]


async def test_remember_then_recall_round_trip(amem):
    async with served(amem) as client:
        out = await call(client, "remember", text="Alice lives in Berlin", subject="alice", predicate="lives_in",
                         object="Berlin", valid_from="2023-03-01T00:00:00Z")
        [fact_id] = ids(out)
        stored = await amem.get(fact_id)
        assert (stored.scope, stored.tenant, stored.provenance.value) == (ROOT, amem.tenant, "user")
        assert "Alice lives in Berlin (since 2023-03-01) | alice lives_in Berlin |" in out  # as context() words it
        found = await call(client, "recall", query="where does Alice live?", k=3)
        assert ids(found)[0] == fact_id and "Alice lives in Berlin" in found
        assert "Alice lives in Berlin" in await call(client, "context", query="where does Alice live?")
        listed = await client.read_resource("graphmem://facts")
        assert fact_id in listed.contents[0].text
        inferred = await call(client, "remember", text="Alice probably likes techno", said_by_user=False, scope="music")
        stored = await amem.get(ids(inferred)[0])
        assert (stored.scope, stored.provenance.value) == (f"{ROOT}/music", "extraction")


async def test_correct_and_forget_by_id(amem):
    async with served(amem) as client:
        [old] = ids(await call(client, "remember", text="Alice works at Initech", subject="alice",
                               predicate="works_at", object="Initech"))
        out = await call(client, "correct", fact_id=old, corrected_text="Alice works at Globex", object="Globex",
                         reason="misheard")
        [new] = ids(out.split("\n", 1)[1])
        assert new != old
        assert ids(await call(client, "facts", subject="alice")) == [new]
        history = await call(client, "history", subject="alice", predicate="works_at")
        assert ids(history) == [old, new] and "(corrected)" in history and f"superseded by {new}" in history
        assert (await amem.get(old)).invalidation_reason == "corrected"
        assert await call(client, "forget", id=new) == f"forgot {new}"
        assert (await amem.get(new)).invalidation_reason == "forgotten"
        assert await call(client, "facts") == "no facts"
        again = await call(client, "forget", id=new)
        assert again.startswith("nothing to forget") and "forgotten" in again
        assert "already invalidated" in await fails(client, "correct", fact_id=old, corrected_text="x")


async def test_errors_name_the_field_and_write_nothing(amem):
    async with served(amem) as client:
        assert "valid_from:" in await fails(client, "remember", text="naive time", valid_from="2023-03-01T00:00:00")
        assert "scope:" in await fails(client, "remember", text="x", scope="a//b")
        assert "importance" in await fails(client, "remember", text="x", importance=3)
        assert "query:" in await fails(client, "recall", query="   ")
        assert "fact_id: no memory 'nope'" in await fails(client, "correct", fact_id="nope", corrected_text="x")
        assert "id: no memory 'nope'" in await fails(client, "forget", id="nope")
        [episode] = ids(await call(client, "add_episode", content="Alice said hello", role="user"), "episode")
        assert "is a episode, not a fact" in await fails(client, "correct", fact_id=episode, corrected_text="x")
        assert [f.text for f in await amem.facts(scope=ROOT)] == []
        # wrong JSON types are refused, not coerced (issue 43.6: k "5" was read as 5)
        assert "k" in await fails(client, "recall", query="hello", k="5")
        assert "single_valued" in await fails(client, "remember", text="x", single_valued="true")
        assert "no memories matched" in await call(client, "recall", query="nothing stored about this", k=5,
                                                   as_of="2030-01-01T00:00:00Z")
        with pytest.raises(MCPError, match="Unknown resource"):  # the SDK's own traversal guard
            await client.read_resource("graphmem://facts/../bob")
        with pytest.raises(MCPError, match="scope: .* empty segment"):  # graphmem's check behind it
            await client.read_resource("graphmem://facts/notes//x")


async def test_no_tool_reaches_another_tenant(neo4j, schema, embedder, amem):
    async with served(amem) as client:
        other = f"other-{uuid.uuid4().hex[:8]}"
        async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=other, embedder=embedder) as theirs:
            secret = await theirs.remember("Alice's bank PIN is 4321", scope=ROOT, subject="alice", predicate="pin", object="4321")
            episode = await theirs.add_episode("Alice's bank PIN is 4321", scope=ROOT)
            mine = ids(await call(client, "remember", text="Alice likes tea"))[0]
            for query in ("bank PIN", "Alice"):
                found = await call(client, "recall", query=query, k=50)
                assert secret.id not in found and episode.id not in found and "4321" not in found
            assert "4321" not in await call(client, "context", query="Alice bank PIN")
            assert "4321" not in await call(client, "facts") and "4321" not in await call(client, "history", subject="alice")
            assert f"no memory {secret.id!r}" in await fails(client, "forget", id=secret.id)
            assert f"no memory {secret.id!r}" in await fails(client, "correct", fact_id=secret.id, corrected_text="PIN is 0")
            assert f"no memory {episode.id!r}" in await fails(client, "forget", id=episode.id)
            still = await theirs.get(secret.id)
            assert still.invalidated_at is None and still.superseded_by == ()
            assert [f.id for f in await theirs.facts(scope=ROOT)] == [secret.id]
            assert mine in await call(client, "recall", query="Alice", k=50)


async def test_no_tool_reaches_a_scope_outside_the_root(amem):
    async with served(amem) as client:
        sibling = await amem.remember("Bob's salary is 90k", scope="acme/bob")
        sibling_child = await amem.remember("Bob's salary review", scope="acme/bob/hr")
        parent = await amem.remember("Acme's salary bands are public", scope="acme")
        child = await amem.remember("Alice's salary notes", scope=f"{ROOT}/notes")
        found = await call(client, "recall", query="salary", k=50)
        assert sibling.id not in found and sibling_child.id not in found and "Bob" not in found
        assert parent.id in found  # a scope sees what its ancestors hold (design §5)
        assert child.id not in found  # and not below it, unless asked
        assert child.id in await call(client, "recall", query="salary", scope="notes", k=50)
        for bad in ("../bob", "/acme/bob", "..", "notes/../../bob", "./notes"):
            assert "scope:" in await fails(client, "recall", query="salary", scope=bad)
            assert "scope:" in await fails(client, "remember", text="planted", scope=bad)
        # a sibling's id is as unknown as a missing one; a parent's is readable but not changeable
        for record in (sibling, sibling_child):
            assert f"id: no memory {record.id!r}" in await fails(client, "forget", id=record.id)
            assert f"no memory {record.id!r}" in await fails(client, "correct", fact_id=record.id, corrected_text="x")
        assert "above this memory's scope" in await fails(client, "forget", id=parent.id)
        assert "above this memory's scope" in await fails(client, "correct", fact_id=parent.id, corrected_text="x")
        for record in (sibling, sibling_child, parent):
            assert (await amem.get(record.id)).invalidated_at is None
        assert child.id in (await client.read_resource("graphmem://facts/notes")).contents[0].text
        assert await call(client, "forget", id=child.id) == f"forgot {child.id}"
        assert (await amem.get(child.id)).invalidation_reason == "forgotten"
        # resources: relative paths only, confined like the tools
        assert "Bob" not in (await client.read_resource("graphmem://facts")).contents[0].text
        for uri in ("graphmem://facts/..%2Fbob", "graphmem://facts//acme/bob"):
            with pytest.raises(MCPError):
                await client.read_resource(uri)
        assert {s["path"] for s in await amem.scopes()} == {"acme", "acme/bob", "acme/bob/hr", ROOT, f"{ROOT}/notes"}


async def test_episodes_context_and_procedures(amem):
    async with served(amem) as client:
        out = await call(client, "add_episode", content="User: my flight to Lisbon leaves Friday", role="user",
                         session_id="chat-1", occurred_at="2026-11-01T09:00:00Z")
        [episode] = ids(out, "episode")
        stored = await amem.get(episode)
        assert (stored.session_id, stored.scope, stored.occurred_at.year) == ("chat-1", ROOT, 2026)
        assert "flight to Lisbon" in await call(client, "context", query="when is the Lisbon flight?")
        procedure = await amem.add_procedure("Refund a damaged order", scope=ROOT, trigger="customer asks for a refund",
                                             steps=["look up order {order}", "issue refund for {order}"], variables=["order"])
        suggested = await call(client, "suggest_procedures", task="the customer asks for a refund of a damaged order")
        assert ids(suggested, "procedure") == [procedure.id] and "steps: look up order {order}" in suggested
        assert await call(client, "suggest_procedures", task="bake sourdough bread with rye") == "no procedure fits"


def server_env(neo4j, tenant: str) -> dict[str, str]:
    return {"NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password,
            "GRAPHMEM_TENANT": tenant, "GRAPHMEM_SCOPE": ROOT, "PATH": os.environ.get("PATH", "")}


async def test_stdio_subprocess(neo4j, schema, embedder, tenant):
    """The real thing: `python -m graphmem._cli mcp` over stdio, configured by its environment."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphmem._cli", "mcp", "--embedder", "hashing"],
                                   env=server_env(neo4j, tenant), cwd=str(REPO))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=f"{tenant}-x", embedder=embedder) as theirs:
        foreign = theirs.remember("Alice's locker code is 777", scope=ROOT)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            [fact_id] = ids(await call(session, "remember", text="Alice's locker is number 12", subject="alice",
                                       predicate="locker", object="12"))
            found = await call(session, "recall", query="Alice locker", k=20)
            assert fact_id in found and foreign.id not in found and "777" not in found
            assert f"id: no memory {foreign.id!r}" in await fails(session, "forget", id=foreign.id)
            assert "valid_to:" in await fails(session, "remember", text="x", valid_to="2020-01-01T00:00:00")
            assert await call(session, "forget", id=fact_id) == f"forgot {fact_id}"
        assert theirs.get(foreign.id).invalidated_at is None
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as mine:
        assert mine.get(fact_id).invalidation_reason == "forgotten" and mine.get(fact_id).scope == ROOT


async def test_streamable_http_on_localhost(neo4j, schema, embedder, tenant):
    """Over HTTP with the bearer token (tests/reliability/test_mcp_http.py tries it without)."""
    token = "t-" + uuid.uuid4().hex
    with http_server(dict(server_env(neo4j, tenant), GRAPHMEM_MCP_TOKEN=token)) as (port, _):
        async with client(port, token) as http:
            [fact_id] = ids(await call(http, "remember", text="Alice prefers window seats"))
            assert fact_id in await call(http, "recall", query="window seats")
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as mine:
        assert mine.get(fact_id).scope == ROOT


def test_the_command_refuses_to_start_without_tenant_and_scope():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    run = subprocess.run([sys.executable, "-m", "graphmem._cli", "mcp", "--scope", ROOT], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and "GRAPHMEM_TENANT" in run.stderr
    run = subprocess.run([sys.executable, "-m", "graphmem._cli", "mcp", "--tenant", "t", "--scope", "a/../b"],
                         env=env, cwd=REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and "scope" in run.stderr and "'..'" in run.stderr


def mcp_section() -> str:
    text = (REPO / "docs" / "integrations.md").read_text()
    return text.split("\n## MCP\n", 1)[1].split("\n## ", 1)[0]


def test_docs_python_block_runs_as_written(neo4j, schema, monkeypatch):
    for key, value in (("NEO4J_URI", neo4j.uri), ("NEO4J_USER", neo4j.user), ("NEO4J_PASSWORD", neo4j.password)):
        monkeypatch.setenv(key, value)
    [block] = re.findall(r"```python\n(.*?)```", mcp_section(), flags=re.S)
    namespace: dict = {}
    exec(compile(block, "docs/integrations.md#mcp", "exec"), namespace)
    assert ids(namespace["found"]) and "Alice prefers aisle seats" in namespace["found"]
    assert namespace["stored"].startswith("remembered")
    assert namespace["refused"].is_error and "scope: '../bob' has a '..' segment" in namespace["refused"].content[0].text


async def test_the_documented_client_configuration_starts_the_server(neo4j, schema, tenant):
    """Claude Desktop's entry from docs/integrations.md (and docs/tour.md's), run as written:
    its command (the venv's console script), arguments and environment, with the test
    Neo4j's address, password and a fresh tenant put in; the default embedder (WordLlama)."""
    [entry] = json.loads(re.findall(r"```json\n(.*?)```", mcp_section(), flags=re.S)[0])["mcpServers"].values()
    tour = (REPO / "docs" / "tour.md").read_text().split("## Use it from your agent", 1)[1]
    [short] = json.loads(re.findall(r"```json\n(.*?)```", tour, flags=re.S)[0])["mcpServers"].values()
    assert (short["command"], short["args"]) == (entry["command"], entry["args"]) == ("graphmem", ["mcp"])
    assert {"NEO4J_URI", "NEO4J_PASSWORD", "GRAPHMEM_TENANT", "GRAPHMEM_SCOPE"} <= set(short["env"]) <= set(entry["env"])
    env = dict(entry["env"], NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password,
               GRAPHMEM_TENANT=tenant)
    command = str(Path(sys.executable).parent / entry["command"])
    async with Client(StdioServerParameters(command=command, args=entry["args"], env=env)) as client:
        [fact_id] = ids(await call(client, "remember", text="Alice's favourite editor is Helix"))
        assert fact_id in await call(client, "recall", query="which text editor does Alice like?")
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant) as mine:
        assert mine.get(fact_id).scope == entry["env"]["GRAPHMEM_SCOPE"]
