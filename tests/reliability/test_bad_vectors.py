"""A stored vector that Neo4j's cosine refuses broke recall for its scopes (issue 23.1).
Vectors are checked before they are written now; one stored before that (planted here by
direct Cypher) is removed by the recall that meets it and by ``setup()``, the record kept."""

from __future__ import annotations

import logging
import math

import pytest

from graphmem._base import templates
from graphmem._base.validate import MAX_VECTOR_NORM, MIN_VECTOR_NORM

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

BAD = {  # what older versions accepted, and a vector of another dimension
    "huge": [1e200] * 256,
    "tiny": [1e-200] * 256,
    "nan": [math.nan] * 256,
    "short": [0.1] * 64,
}


def plant(driver, tenant: str, id: str, vector: list[float]) -> None:
    driver.execute_query("MATCH (m:Memory {tenant: $t, id: $id}) SET m.embedding = $v",
                         {"t": tenant, "id": id, "v": vector})


def embedding_state(driver, tenant: str, id: str) -> tuple[bool, bool]:
    """(has an embedding, is marked embeddingRemovedAt)."""
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {tenant: $t, id: $id}) "
        "RETURN m.embedding IS NOT NULL AS has, m.embeddingRemovedAt IS NOT NULL AS marked",
        {"t": tenant, "id": id})
    return records[0]["has"], records[0]["marked"]


@pytest.mark.parametrize("kind", sorted(BAD))
def test_recall_meeting_a_refused_vector_removes_it_and_answers(memory, driver, kind):
    good = memory.remember("a sane note about tea", scope="p")
    planted = memory.remember("weird vector about tea", scope="p")
    plant(driver, memory.tenant, planted.id, BAD[kind])
    hits = memory.recall("tea", scope="p/q", k=5)  # raised "not a valid vector" before
    assert good.id in {h.record.id for h in hits}
    assert embedding_state(driver, memory.tenant, planted.id) == (False, True)
    assert embedding_state(driver, memory.tenant, good.id) == (True, False)
    assert planted.id in {h.record.id for h in memory.recall("weird vector", scope="p", k=5)}  # by its words
    assert memory.get(planted.id).text == "weird vector about tea"


def test_setup_repairs_this_tenants_refused_vectors_and_says_how_many(memory, driver, neo4j, embedder, caplog):
    from graphmem import Memory

    good = memory.remember("a sane note about tea", scope="p")
    planted = {kind: memory.remember(f"note {kind}", scope="p/q").id for kind in BAD}
    for kind, id in planted.items():
        plant(driver, memory.tenant, id, BAD[kind])
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=memory.tenant + "-other", embedder=embedder) as other:
        theirs = other.remember("their note", scope="p").id
    plant(driver, memory.tenant + "-other", theirs, BAD["huge"])
    memory.setup(repair=False)
    assert embedding_state(driver, memory.tenant, planted["huge"]) == (True, False)  # skipped when asked
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        memory.setup()
    assert any(f"removed {len(BAD)} stored embeddings" in r.getMessage() for r in caplog.records)
    for id in planted.values():
        assert embedding_state(driver, memory.tenant, id) == (False, True)
    assert embedding_state(driver, memory.tenant, good.id) == (True, False)
    assert embedding_state(driver, memory.tenant + "-other", theirs) == (True, False)  # another tenant's setup
    assert memory.recall("tea", scope="p/q", k=5)[0].record.id == good.id
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        memory.setup()
    assert not [r for r in caplog.records if "stored embeddings" in r.getMessage()]  # nothing left to repair


def test_the_repair_template_leaves_valid_vectors_alone(memory, driver):
    memory.remember("a sane note about tea", scope="p")
    params = {"tenant": memory.tenant, "minSquares": MIN_VECTOR_NORM ** 2, "maxSquares": MAX_VECTOR_NORM ** 2,
              "dimensions": 256, "limit": 1000, "now": "2026-01-01T00:00:00Z"}
    records, _, _ = driver.execute_query(templates.get("memory_vector_repair").text, params)
    assert records == []
