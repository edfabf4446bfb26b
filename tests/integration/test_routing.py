"""graphmem over a routing URI (``neo4j://``), as a cluster or Aura needs it: the driver
asks the server for a routing table, and every read must run in read access mode so a
cluster can send it to a reader (graphmem's reads are auto-commit statements of a read
session; its writes are transaction functions of ``execute_write``). A single Neo4j server
answers routing requests itself, so the test server proves the path. Each template's kind is
recorded by wrapping the driver's own ``run`` / ``execute_read`` / ``execute_write`` (they
still run)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from neo4j import READ_ACCESS, Neo4jDriver, Session

from graphmem import Memory

from ..conftest import with_scheme
from ..fakes import scripted, tool_answer

READ_TEMPLATES_ONLY = "read"


@pytest.fixture
def routed(neo4j, schema, embedder, tenant, monkeypatch):
    """A Memory on a ``neo4j://`` URI and the list of (template, transaction kind) it ran."""
    ran: list[tuple[str, str]] = []
    mode = ["auto"]

    def spy(method: str, kind: str) -> None:
        original = getattr(Session, method)

        def wrapper(self, *args, **kwargs):
            mode[0] = kind
            try:
                return original(self, *args, **kwargs)
            finally:
                mode[0] = "auto"

        monkeypatch.setattr(Session, method, wrapper)

    spy("execute_read", "read")
    spy("execute_write", "write")
    original_run, original_close = Session.run, Session.close

    def run(self, *args, **kwargs):
        # an auto-commit statement: a read when its session is in read access mode (the
        # driver's own setting, which routing follows), until the session closes (graphmem's
        # tracer is called once the rows are read)
        if mode[0] == "auto" and self._config.default_access_mode == READ_ACCESS:
            mode[0] = "read"
        return original_run(self, *args, **kwargs)

    def close(self):
        mode[0] = "auto"
        return original_close(self)

    monkeypatch.setattr(Session, "run", run)
    monkeypatch.setattr(Session, "close", close)
    uri = with_scheme(neo4j.uri, "neo4j")
    with Memory(uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: ran.append((name, mode[0]))) as memory:
        yield memory, ran


def kinds_of(ran: list[tuple[str, str]], call) -> set[str]:
    """Run ``call`` and return the transaction kinds of the templates it ran."""
    start = len(ran)
    call()
    assert len(ran) > start, "the call ran no template"
    return {kind for _, kind in ran[start:]}


def test_every_path_works_over_neo4j_routing_and_reads_run_in_read_mode(routed):
    memory, ran = routed
    assert isinstance(memory._store.run.driver, Neo4jDriver)  # the routing driver, not a direct connection
    when = datetime(2026, 3, 1, tzinfo=timezone.utc)
    memory.remember("Ada lives in Paris", scope="r/ada", subject="ada", predicate="lives_in", object="Paris",
                    valid_from=when)
    moved = memory.remember("Ada lives in Rome", scope="r/ada", subject="ada", predicate="lives_in", object="Rome",
                            valid_from=datetime(2026, 6, 1, tzinfo=timezone.utc))
    extraction = tool_answer("Extraction", {
        "entities": [{"name": "Ada", "type": "person", "aliases": []}, {"name": "Tea", "type": "drink", "aliases": []}],
        "facts": [{"subject": "Ada", "predicate": "likes", "object": "Tea", "object_is_entity": True,
                   "text": "Ada likes tea", "valid_from": None, "corrects": False, "messages": [1],
                   "single_valued": False}],
    })
    result = memory.ingest([{"role": "user", "content": "I like tea", "occurred_at": when}], scope="r/ada",
                           llm=scripted(extraction), session_id="s1")
    assert [f.text for f in result.facts] == ["Ada likes tea"]

    reads = {
        "recall": lambda: memory.recall("Where does Ada live?", scope="r/ada/x", k=5),
        "context": lambda: memory.context("Ada", scope="r/ada"),
        "facts": lambda: memory.facts(scope="r/ada", subject="ada"),
        "history": lambda: memory.history(subject="ada", predicate="lives_in", scope="r/ada"),
        "get": lambda: memory.get(moved.id),
        "evidence": lambda: memory.evidence(result.facts[0].id),
        "scopes": lambda: memory.scopes(),
    }
    for name, call in reads.items():
        assert kinds_of(ran, call) == {READ_TEMPLATES_ONLY}, name
    # facts only: the Ada entity's rank depends on how often other tests' tenants wrote "Ada"
    # (full-text statistics are index-wide, docs/reliability.md)
    assert memory.recall("Where does Ada live?", scope="r/ada", k=1, kinds=["fact"])[0].record.id == moved.id
    assert [f.object for f in memory.facts(scope="r/ada", subject="ada", predicate="lives_in")] == ["Rome"]
    assert len(memory.history(subject="ada", predicate="lives_in", scope="r/ada")) == 2
    assert memory.get(moved.id).text == "Ada lives in Rome"  # read-your-writes: bookmarks carried

    assert memory.erase(scope="r").total > 0
    assert memory.facts(scope="r/ada") == []
    assert memory.recall("Ada", scope="r/ada", k=5) == []
