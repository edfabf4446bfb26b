"""A stored vector that Neo4j's cosine refuses breaks recall for its scopes (issue 23.1);
cypher/memory_vector_repair removes such embeddings so recall works again."""

from __future__ import annotations

import pytest

from graphmem import GraphMemError, _templates
from graphmem._validate import MAX_VECTOR_NORM, MIN_VECTOR_NORM

pytestmark = [pytest.mark.integration, pytest.mark.reliability]


def test_repair_removes_vectors_cosine_refuses_and_recall_works_again(memory, driver):
    memory.remember("a sane note about tea", scope="p")
    planted = memory.remember("weird vector", scope="p")
    driver.execute_query("MATCH (m:Memory {tenant: $t, id: $id}) SET m.embedding = $v",
                         {"t": memory.tenant, "id": planted.id, "v": [1e200] * 256})  # as an old version allowed
    with pytest.raises(GraphMemError, match="not a valid vector"):
        memory.recall("tea", scope="p/q", k=5)  # the failure the repair exists for
    params = {"tenant": memory.tenant, "minSquares": MIN_VECTOR_NORM ** 2, "maxSquares": MAX_VECTOR_NORM ** 2,
              "dimensions": 256, "limit": 1000}
    records, _, _ = driver.execute_query(_templates.get("memory_vector_repair").text, params)
    assert [r["id"] for r in records] == [planted.id]
    assert "tea" in memory.recall("tea", scope="p/q", k=5)[0].record.text
    assert memory.get(planted.id).text == "weird vector"  # the record stays
    records, _, _ = driver.execute_query(_templates.get("memory_vector_repair").text, params)
    assert records == []  # the good vector was left alone
