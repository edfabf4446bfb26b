"""setup() on Neo4j 2026 remakes a vector index that cannot filter by tenant (made by an
older graphmem, or on the server before its upgrade), and recall follows the index it
finds. It drops the index every other test searches, so it runs alone: marked long
(make test-reliability, one process)."""

from __future__ import annotations

import logging

import pytest

from graphmem import Memory, RecallSettings
from graphmem._base import dialect, templates

pytestmark = [pytest.mark.long, pytest.mark.vector_migration]


def _index(driver) -> list[str]:
    records, _, _ = driver.execute_query(templates.get("schema_vector_info").text)
    return records[0]["properties"]


def test_setup_remakes_an_unfiltered_index_where_the_server_can_filter(neo4j, schema, embedder, driver, tenant,
                                                                       caplog):
    version = driver.execute_query(templates.get("server_components").text).records[0]["version"]
    can = dialect.filters_vectors(version)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        m.remember("Alice drinks green tea", scope="u")
    driver.execute_query(templates.get("schema_vector_drop").text)
    # no index at all (dropped, or being remade): a memory object that knew it scans exactly
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                recall_settings=RecallSettings(strategy="index")) as m:
        m._store.known.filtered_index, m._store.known.dimension = can, embedder.dimensions  # as before the drop
        assert m.recall("green tea", scope="u")[0].record.text == "Alice drinks green tea"
    # the index as an older graphmem made it: the embedding alone
    driver.execute_query(templates.get("schema_vector").text, {"dimensions": embedder.dimensions})
    driver.execute_query(templates.get("schema_await").text, {"timeout": 300})
    assert not dialect.filtered(_index(driver))
    seen = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: seen.append(name)) as m:
        # before setup() this memory object runs the version the index it finds allows
        assert m.recall("green tea", scope="u")[0].record.text == "Alice drinks green tea"
        assert "recall" in seen and "recall:cypher25" not in seen
        with caplog.at_level(logging.WARNING, logger="graphmem"):
            m.setup()
        seen.clear()
        assert m.recall("green tea", scope="u")[0].record.text == "Alice drinks green tea"
    lines = [r.getMessage() for r in caplog.records if r.name == "graphmem"]
    if can:  # Neo4j 2026: remade with the tenant, a line before and after, recall on SEARCH
        assert dialect.filtered(_index(driver))
        assert any(line.startswith("rebuilding vector index memory_embedding") and "memories to index" in line
                   for line in lines)
        assert any(line.startswith("vector index memory_embedding rebuilt") for line in lines)
        assert "recall:cypher25" in seen
    else:  # Neo4j 5: nothing to gain, the index stays as it is
        assert not dialect.filtered(_index(driver)) and not any("rebuil" in line for line in lines)
        assert "recall" in seen
