"""The MCP tools and who a write belongs to, on the test Neo4j.

- Issue 28.4: MCP writes never carried a user id, so ``erase(user_id=...)`` could not reach
  them. A server configured for a user (``GRAPHMEM_MCP_USER_ID`` / ``--user-id``) now records
  that user on every fact, episode and correction its tools write.
- Issue 29.7: the tools silently dropped arguments they do not declare (a ``tenant`` argument
  was ignored without a word) and passed pydantic's "For further information visit
  https://errors.pydantic.dev/..." lines to the model. Now an undeclared argument is refused,
  named, with nothing written, and argument errors read ``Invalid arguments: <field>: <problem>``
  (the same code as the LangChain tools')."""

from __future__ import annotations

import os
import re
import sys

import pytest
from mcp import Client, StdioServerParameters

from graphmem import AsyncMemory
from graphmem.integrations.langchain import memory_tools
from graphmem.integrations.mcp import create_server
from tests.mcp_http import REPO
from tests.reliability.helpers import footprint

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

ROOT = "clinic/patients"
TOOLS = ("remember", "recall", "context", "forget", "correct", "history", "facts", "add_episode", "suggest_procedures")
VALID = {"remember": {"text": "x"}, "recall": {"query": "x"}, "context": {"query": "x"}, "forget": {"id": "x"},
         "correct": {"fact_id": "x", "corrected_text": "y"}, "history": {"subject": "x"}, "facts": {},
         "add_episode": {"content": "x"}, "suggest_procedures": {"task": "x"}}


def ids(text: str, kind: str = "fact") -> list[str]:
    return re.findall(rf"\[{kind} ([0-9a-z-]+)\]", text)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


async def call(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def refused(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} should have been refused: {text_of(result)}"
    return text_of(result)


@pytest.fixture
async def amem(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        yield m


def user_ids(driver, tenant: str) -> dict[str, str | None]:
    records, _, _ = driver.execute_query("MATCH (n:Memory {tenant: $t}) RETURN n.id AS id, n.userId AS user", {"t": tenant})
    return {r["id"]: r["user"] for r in records}


async def test_mcp_writes_carry_the_configured_user_and_erase_by_user_reaches_them(neo4j, driver, amem, tenant):
    """Maria's server is the real command (stdio), configured by GRAPHMEM_MCP_USER_ID; Bob's
    is created in process with ``user_id="bob"``. Both write at the same scope."""
    env = {"NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password, "PATH": os.environ["PATH"],
           "GRAPHMEM_TENANT": tenant, "GRAPHMEM_SCOPE": ROOT, "GRAPHMEM_MCP_USER_ID": "maria"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphmem._cli", "mcp", "--embedder", "hashing",
                                                                  "--no-setup"], env=env, cwd=str(REPO))
    async with Client(params) as maria:
        [wrong] = ids(await call(maria, "remember", text="Maria takes 5 mg of warfarin", subject="maria",
                                 predicate="takes", object="warfarin 5 mg"))
        [fixed] = ids((await call(maria, "correct", fact_id=wrong, corrected_text="Maria takes 3 mg of warfarin",
                                  object="warfarin 3 mg")).split("\n", 1)[1])
        [said] = ids(await call(maria, "add_episode", content="Maria: my INR was 2.4 today", session_id="visit-1"),
                     "episode")
    async with Client(create_server(amem, scope=ROOT, user_id="bob")) as bob:
        [bobs_fact] = ids(await call(bob, "remember", text="Bob is allergic to penicillin"))
        [bobs_episode] = ids(await call(bob, "add_episode", content="Bob: the rash is gone"), "episode")
    owners = user_ids(driver, tenant)
    assert {i: owners[i] for i in (wrong, fixed, said)} == {wrong: "maria", fixed: "maria", said: "maria"}
    assert {owners[bobs_fact], owners[bobs_episode]} == {"bob"}
    report = await amem.erase(user_id="maria")
    # her records, and the entities only her episode gave (its speaker, the user "maria", and the name it holds)
    assert report.by_kind == {"fact": 2, "episode": 1, "entity": 2}
    assert [await amem.get(i) for i in (wrong, fixed, said)] == [None, None, None]
    left = set(user_ids(driver, tenant))
    records, _, _ = driver.execute_query("MATCH (e:Entity {tenant: $t})--(m:Episode) RETURN e.id AS id, "
                                         "collect(DISTINCT m.id) AS episodes", {"t": tenant})
    given = {r["id"]: r["episodes"] for r in records}  # what Bob's episode gave: its speaker, the names in it
    assert left == {bobs_fact, bobs_episode, *given} and all(eps == [bobs_episode] for eps in given.values())
    assert (await amem.get(bobs_fact)).text == "Bob is allergic to penicillin"


async def test_a_correction_keeps_the_corrected_records_user_unless_the_server_has_one(amem):
    mine = await amem.remember("Ann lives in Porto", scope=ROOT, subject="ann", predicate="lives_in", object="Porto",
                               user_id="ann")
    async with Client(create_server(amem, scope=ROOT)) as anyone:
        [fixed] = ids((await call(anyone, "correct", fact_id=mine.id, corrected_text="Ann lives in Braga",
                                  object="Braga")).split("\n", 1)[1])
    assert (await amem.get(fixed)).user_id == "ann"


async def test_undeclared_arguments_are_refused_by_name_and_nothing_is_written(driver, amem, tenant):
    async with Client(create_server(amem, scope=ROOT, user_id="maria")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for name in TOOLS:
            assert tools[name].input_schema.get("additionalProperties") is False, name  # the schema says so too
            before = footprint(driver, tenant)
            for extra in ({"tenant": "other"}, {"user_id": "bob"}, {"scope_override": "x"}):
                message = await refused(client, name, **VALID[name], **extra)
                [argument] = extra
                assert message.startswith("Invalid arguments: ") and f"{argument}: not an argument of this tool" in message
                assert "pydantic" not in message
            assert footprint(driver, tenant) == before, name
        typo = await refused(client, "remember", txt="Maria is vegetarian")
        assert "text: Field required" in typo and "txt: not an argument of this tool" in typo
        assert footprint(driver, tenant) == (0, 0)


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("remember", {"text": "x", "importance": 3}, "importance"),
    ("remember", {"text": "x", "valid_from": "next tuesday"}, "valid_from"),
    ("remember", {"text": 42}, "text"),
    ("recall", {"query": "x", "k": 0}, "k"),
    ("recall", {"query": "x", "kinds": ["nope"]}, "kinds.0"),
    ("add_episode", {"content": "x", "role": "robot"}, "role"),
    ("context", {"query": "x", "max_tokens": "many"}, "max_tokens"),
])
async def test_argument_errors_name_the_field_without_pydantic_links(driver, amem, tenant, tool, arguments, field):
    async with Client(create_server(amem, scope=ROOT)) as client:
        message = await refused(client, tool, **arguments)
    assert message.startswith(f"Invalid arguments: {field}: "), message
    assert "errors.pydantic.dev" not in message and "For further information" not in message
    assert "validation error for" not in message and "Error executing tool" not in message
    assert footprint(driver, tenant) == (0, 0)


def test_the_langchain_tools_word_their_errors_the_same_way(memory):
    tools = {t.name: t for t in memory_tools(memory, scope=ROOT, user_id="maria")}
    assert tools["recall"].invoke({"query": "x", "k": 99}) == (
        "Invalid arguments: k: Input should be less than or equal to 20")
    assert tools["remember"].invoke({"text": "x", "tenant": "other"}) == (
        "Invalid arguments: tenant: not an argument of this tool (the application decides where memories live)")
