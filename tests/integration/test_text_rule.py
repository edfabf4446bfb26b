"""Issue 49.7: one rule for text on every write path. ``add_episode``, ``ingest`` and
``after_turn`` used to store U+FFFD in place of a control character or a lone surrogate (a
speaker ``'Nora\\x00Bob'`` became the entity ``Nora\\ufffdBob``) while ``remember`` and
``recall`` refused the same input. Now free text keeps ESC, C1 controls and NUL exactly as
given (they round-trip through Bolt, Neo4j strings and the full-text index), a lone
surrogate is refused naming the field and the position with nothing written, a control
character in a name is refused the same way, and the command line prints a stored ESC
escaped. Against the real Neo4j; what landed is counted by direct Cypher."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from graphmem import AsyncMemory, InvalidInputError, Memory
from graphmem.integrations.mcp import create_server

pytestmark = pytest.mark.integration

# ESC (a terminal escape sequence), a C1 control as LongMemEval's turns hold it, NUL, and a
# word beside each so full-text search has something to find
TEXT = "Nora said \x1b[2J clear, then \x90 and nul\x00byte zebra"
SCOPE = "acme/nora"


def footprint(driver, tenant: str) -> tuple[int, int]:
    """(nodes, relationships touching them) of ``tenant``: a refused write changes neither."""
    records, _, _ = driver.execute_query(
        "MATCH (n {tenant: $t}) OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels",
        {"t": tenant})
    return records[0]["nodes"], records[0]["rels"]


@pytest.fixture
def other(neo4j, schema, embedder, tenant):
    """A second tenant on the test Neo4j (an import's target)."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-copy", embedder=embedder) as m:
        yield m


def believed(memory, driver, record_id: str) -> str:
    """The text Neo4j holds for ``record_id``, read by direct Cypher (not through graphmem)."""
    records, _, _ = driver.execute_query("MATCH (m:Memory {tenant: $t, id: $id}) RETURN m.text AS text",
                                         {"t": memory.tenant, "id": record_id})
    return records[0]["text"]


def round_trips(memory, driver, record_id: str) -> None:
    assert memory.get(record_id).text == TEXT
    assert believed(memory, driver, record_id) == TEXT
    assert record_id in {r.record.id for r in memory.recall(TEXT, scope=SCOPE, k=20)}  # the question holds them too
    assert record_id in {r.record.id for r in memory.recall("zebra", scope=SCOPE, k=20)}


def refused(memory, driver, field: str, words: str, call, *args, **kwargs) -> None:
    before = footprint(driver, memory.tenant)
    with pytest.raises(InvalidInputError) as info:
        call(*args, **kwargs)
    assert info.value.field == field and words in info.value.message, str(info.value)
    assert "position" in info.value.message
    assert footprint(driver, memory.tenant) == before


def turns(content: str = TEXT, name: str | None = "Nora") -> list[dict]:
    first = {"role": "user", "content": content, **({"name": name} if name is not None else {})}
    return [first, {"role": "assistant", "content": "noted"}]


# -- free text round-trips verbatim ---------------------------------------------------------------------------------

def test_remember_and_remember_many_keep_control_characters(memory, driver):
    round_trips(memory, driver, memory.remember(TEXT, scope=SCOPE).id)
    [one, two] = memory.remember_many([{"text": "plain", "scope": SCOPE}, {"text": TEXT, "scope": SCOPE + "/b"}])
    assert one.text == "plain" and two.text == TEXT and memory.get(two.id).text == TEXT


def test_add_episode_keeps_them(memory, driver):
    round_trips(memory, driver, memory.add_episode(TEXT, scope=SCOPE, role="user", speaker="Nora").id)


def test_ingest_keeps_them_in_a_message(memory, driver):
    result = memory.ingest(turns(), scope=SCOPE, llm=None, session_id="s1")
    said = result.episodes[0]
    assert said.text == TEXT and said.speaker == "Nora"
    round_trips(memory, driver, said.id)


def test_after_turn_keeps_them_in_a_message(memory, driver):
    handle = memory.after_turn(turns(), scope=SCOPE, session_id="s2")
    round_trips(memory, driver, handle.episodes[0].id)


def test_an_export_carries_them_into_another_tenant(memory, other, driver):
    fact = memory.remember(TEXT, scope=SCOPE)
    episode = memory.add_episode(TEXT, scope=SCOPE, role="user")
    records = json.loads(json.dumps(list(memory.export_records())))  # through JSON, as a file
    other.import_records(records)
    round_trips(other, driver, fact.id)
    round_trips(other, driver, episode.id)


async def test_the_mcp_tools_keep_them(neo4j, schema, embedder, tenant, driver):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        async with Client(create_server(memory, scope=SCOPE)) as client:
            for tool, arguments in (("remember", {"text": TEXT}), ("add_episode", {"content": TEXT})):
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.content
            bad = await client.call_tool("add_episode", {"content": "lone \udc80 surrogate"})
            assert bad.is_error and "surrogate" in bad.content[0].text  # refused (by the SDK's JSON, before graphmem)
        records, _, _ = driver.execute_query("MATCH (m:Memory {tenant: $t}) WHERE m.kind IN ['fact', 'episode'] "
                                             "RETURN m.kind AS kind, m.text AS text ORDER BY kind", {"t": tenant})
        assert [(r["kind"], r["text"]) for r in records] == [("episode", TEXT), ("fact", TEXT)]


# -- what cannot be stored, and names, are refused with nothing written ------------------------------------------

@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff"])
def test_a_lone_surrogate_in_free_text_is_refused_on_every_path(memory, other, driver, surrogate):
    memory.remember("something already there", scope=SCOPE)  # the tenant is not empty: nothing more lands
    text = f"lone {surrogate} surrogate"
    refused(memory, driver, "text", "lone surrogate", memory.remember, text, scope=SCOPE)
    refused(memory, driver, "items[1].text", "lone surrogate", memory.remember_many,
            [{"text": "fine", "scope": SCOPE}, {"text": text, "scope": SCOPE}])
    refused(memory, driver, "content", "lone surrogate", memory.add_episode, text, scope=SCOPE, role="user")
    refused(memory, driver, "messages[1].content", "lone surrogate", memory.ingest,
            [turns()[0], {"role": "assistant", "content": text}], scope=SCOPE, llm=None)
    refused(memory, driver, "messages[0].content", "lone surrogate", memory.after_turn, turns(text), scope=SCOPE)
    refused(memory, driver, "query", "lone surrogate", memory.recall, text, scope=SCOPE)
    records = list(memory.export_records())
    i = next(n for n, r in enumerate(records) if r["record"] == "node")
    records[i]["props"]["text"] = text
    refused(other, driver, f"records[{i}].props.text", "lone surrogate", other.import_records, records)
    assert footprint(driver, other.tenant) == (0, 0)


@pytest.mark.parametrize("control", ["\x00", "\x1b", "\x90", "\x07"])
def test_a_control_character_in_a_message_name_is_refused(memory, driver, control):
    memory.remember("something already there", scope=SCOPE)
    name = f"Nora{control}Bob"
    refused(memory, driver, "messages[0].name", "control character", memory.ingest, turns(name=name), scope=SCOPE,
            llm=None)
    refused(memory, driver, "messages[0].name", "control character", memory.after_turn, turns(name=name), scope=SCOPE)
    refused(memory, driver, "speaker", "control character", memory.add_episode, TEXT, scope=SCOPE, role="user",
            speaker=name)
    names, _, _ = driver.execute_query("MATCH (e:Entity {tenant: $t}) RETURN e.name AS name", {"t": memory.tenant})
    assert not any("\ufffd" in r["name"] or control in r["name"] for r in names)


def test_a_name_found_across_a_control_character_makes_no_entity_and_fails_nothing(memory, driver):
    """What an extractor finds in kept free text is no name when it spans a control character."""
    said = memory.ingest([{"role": "user", "content": "I met Nora\x90Bob and Alice in Paris."}], scope=SCOPE,
                         llm=None).episodes[0]
    assert said.text == "I met Nora\x90Bob and Alice in Paris."
    names, _, _ = driver.execute_query("MATCH (e:Entity {tenant: $t}) RETURN e.name AS name", {"t": memory.tenant})
    assert all("\x90" not in r["name"] for r in names)


# -- the command line prints them escaped ------------------------------------------------------------------------

def test_the_command_line_shows_a_stored_escape_escaped(cli, memory):
    fact = memory.remember(TEXT, scope=SCOPE, subject="nora", predicate="said", object="hello")
    memory.add_episode(TEXT, scope=SCOPE, role="user")
    for command in (["facts"], ["recall", "zebra"], ["context", "zebra"], ["history", "nora"]):
        done = cli(*command, "--scope", SCOPE)
        assert done.returncode == 0, (command, done.stderr)
        assert "\x1b" not in done.stdout and "\x90" not in done.stdout and "\x00" not in done.stdout, command
        assert "\\x1b[2J" in done.stdout, (command, done.stdout)
    done = cli("facts", "--scope", SCOPE, "--json")
    assert "\x1b" not in done.stdout and "\x90" not in done.stdout
    assert [f["text"] for f in json.loads(done.stdout)] == [TEXT]  # the value itself is verbatim
    done = cli("export")
    assert "\x90" not in done.stdout
    assert TEXT in [json.loads(line).get("props", {}).get("text") for line in done.stdout.splitlines()]
    assert memory.get(fact.id).text == TEXT  # printing changed nothing stored
