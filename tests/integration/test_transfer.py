"""export_records / import_records through the Python API: tenant isolation, refusals that
leave nothing behind, and the erase prompt on a real terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from graphmem import ConflictError, InvalidInputError, Memory

from .helpers import utc

SCOPE = "acme/ann"


@pytest.fixture
def other(neo4j, schema, embedder, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-b", embedder=embedder) as m:
        yield m
        m.erase(scope="acme")


def small(memory):
    ann = memory.upsert_entity("Ann", type="person", scope="acme")
    acme = memory.upsert_entity("Acme", type="organisation", scope="acme")
    return memory.relate(ann.id, "works_at", acme.id, scope=SCOPE, valid_from=utc(2020))


def test_export_is_one_tenant_and_import_writes_only_the_target(memory, other):
    small(memory)
    other.remember("Bob likes coffee", scope=SCOPE)
    exported = list(memory.export_records())
    assert exported[0]["tenant"] == memory.tenant
    assert "Bob likes coffee" not in {r["props"].get("text") for r in exported if r["record"] == "node"}
    assert all(r["props"].get("tenant") is None for r in exported if r["record"] in ("node", "edge"))
    other.erase(scope="acme")
    counts = other.import_records(exported)
    assert counts == {"scopes": 2, "nodes": 3, "edges": 3}  # ABOUT x2 + RELATES
    theirs = other.graph(scope=SCOPE)
    ours = memory.graph(scope=SCOPE)
    assert dict(theirs.nodes(data=True)) == dict(ours.nodes(data=True))
    assert memory.counts() == other.counts()
    other.erase(scope="acme")
    assert memory.graph(scope=SCOPE).number_of_nodes() == 3  # the source tenant is untouched


def test_refused_imports_write_nothing(memory, other):
    fact = small(memory)
    exported = list(memory.export_records())
    head = exported[0]
    nodes = [r for r in exported if r["record"] == "node"]
    dangling = {"record": "edge", "type": "CITES", "source": fact.id, "target": "no-such-memory", "props": {}}
    with pytest.raises(InvalidInputError) as err:
        other.import_records([head, *nodes, dangling], batch_size=1)
    assert err.value.field == "records[4].target"
    assert other.counts() == []  # the whole file is checked first: not even the nodes' batches landed
    odd = [head, *nodes, {"record": "edge", "type": "IN_SCOPE", "source": fact.id, "target": fact.id, "props": {}}]
    with pytest.raises(InvalidInputError) as err:
        other.import_records(odd)
    assert err.value.field == "records[4].type"
    assert other.counts() == []  # checked before the first write
    tenant_key = dict(nodes[0], props={**nodes[0]["props"], "x-y": 1})
    with pytest.raises(InvalidInputError):
        other.import_records([head, tenant_key])
    other.import_records([head, *nodes])
    with pytest.raises(ConflictError):
        other.import_records([head, *nodes[:1]])
    assert len(other.graph(scope=SCOPE)) == 3


@pytest.mark.parametrize("change, field", [
    (lambda r: {**r, "props": {**r["props"], "validTo": {"$datetime": "2019-01-01T00:00:00+00:00"}}},
     "records[3].props.validTo"),  # before its validFrom (2020): remember refuses it
    (lambda r: {**r, "id": "someone-else"}, "records[3].id"),  # props.id is another id
    (lambda r: {**r, "color": "green"}, "records[3].color"),  # a key no export writes
])
def test_an_import_refuses_what_remember_and_the_format_refuse(memory, other, change, field):
    """Issue 43.6: these were accepted (the unknown key silently dropped)."""
    fact = small(memory)
    exported = list(memory.export_records())
    nodes = [r for r in exported if r["record"] == "node"]
    at = next(i for i, r in enumerate(nodes) if r["props"]["id"] == fact.id)
    nodes.insert(2, change(nodes.pop(at)))
    with pytest.raises(InvalidInputError) as err:
        other.import_records([exported[0], *nodes])
    assert err.value.field == field
    header = {"record": "header", "format": "graphmem-export", "version": 1, "tenant": "t", "scope": None,
              "signed": True}
    with pytest.raises(InvalidInputError) as err:
        other.import_records([header])
    assert err.value.field == "records[0].signed"
    assert other.counts() == []


def test_erase_asks_on_a_terminal(neo4j, memory):
    small(memory)
    env = {**os.environ, "NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password,
           "GRAPHMEM_TENANT": memory.tenant, "GRAPHMEM_EMBEDDER": "hashing"}

    def erase(answer: bytes) -> subprocess.CompletedProcess:
        master, slave = pty.openpty()
        try:
            proc = subprocess.Popen([sys.executable, "-m", "graphmem._cli", "erase", "--scope", "acme"], stdin=slave,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
            os.write(master, answer)
            out, err = proc.communicate(timeout=180)
            return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        finally:
            os.close(master)
            os.close(slave)

    declined = erase(b"no\n")
    assert declined.returncode == 2 and "type 'yes'" in declined.stdout and "not confirmed" in declined.stderr
    assert len(memory.graph(scope=SCOPE)) == 3
    confirmed = erase(b"yes\n")
    assert confirmed.returncode == 0, confirmed.stderr
    assert "erased 3 memories" in confirmed.stdout
    assert len(memory.graph(scope=SCOPE)) == 0


async def test_the_async_front_door_has_them_too(neo4j, schema, embedder, tenant):
    from graphmem import AsyncMemory

    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        fact = await m.remember("Ann likes tea", scope=SCOPE)
        graph = await m.graph(scope=SCOPE)
        assert list(graph) == [fact.id] and graph.nodes[fact.id]["text"] == "Ann likes tea"
        exported = [r async for r in m.export_records()]
        assert [r["record"] for r in exported] == ["header", "scope", "scope", "node"]
        assert await m.counts() == [{"scope": SCOPE, "kind": "fact", "total": 1, "believed": 1, "invalidated": 0,
                                    "quarantined": 0}]
        await m.erase(scope="acme")
        assert await m.import_records(exported) == {"scopes": 2, "nodes": 1, "edges": 0}
        assert (await m.get(fact.id)).created_at == fact.created_at
        await m.erase(scope="acme")


def test_long_episodes_conversations_and_corrections_survive_a_round_trip(memory, other, driver):
    """Every kind and edge graphmem writes imports back: a long episode's windows (PART_OF),
    conversation turns (NEXT), a correction and a decision."""
    memory.ingest([{"role": "user", "content": "which lens for portraits?"},
                   {"role": "assistant", "content": "an 85 mm prime " + "is classic. " * 400}],
                  scope=SCOPE, llm=None, session_id="chat-1")
    memory.record_correction("helper", "12 EUR", "21 EUR", field="amount", scope=SCOPE)
    memory.log_decision("helper", "refund", reasoning="damaged", decision_type="refund", scope=SCOPE)
    exported = list(memory.export_records())
    other.erase(scope="acme")
    other.import_records(exported)

    def shape(tenant: str) -> tuple:
        nodes = driver.execute_query("MATCH (m:Memory {tenant: $t}) RETURN m.kind AS kind, count(*) AS n ORDER BY kind",
                                     t=tenant).records
        edges = driver.execute_query("MATCH (a:Memory {tenant: $t})-[r]->(b:Memory) RETURN type(r) AS type, count(*) AS n "
                                     "ORDER BY type", t=tenant).records
        return [tuple(r) for r in nodes], [tuple(r) for r in edges]

    ours, theirs = shape(memory.tenant), shape(other.tenant)
    assert ours == theirs
    assert ("chunk", 4) in ours[0] and ("NEXT", 1) in ours[1] and ("PART_OF", 4) in ours[1]
    assert memory.scopes() == other.scopes()  # windows are not counted as memories
