"""Schema, connectivity and templates against the real Neo4j."""

from __future__ import annotations

import pytest

from graphmem import HashingEmbedder, Memory, Neo4jUnavailableError, SchemaError, _templates
from graphmem._errors import translated_errors


def test_setup_is_idempotent_and_every_index_is_online(neo4j, schema, embedder, driver):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), embedder=embedder) as m:
        m.setup()
        m.setup()
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name, state, type RETURN name, state, type")
    by_name = {r["name"]: r for r in records}
    wanted = ("memory_text", "memory_embedding", "memory_tenant_scope", "fact_tenant_subject_predicate",
              "memory_tenant_id", "scope_tenant_path", "relates_fact_id")
    for name in wanted:
        assert name in by_name, name
    # graphmem's own indexes (the Graphiti smoke test leaves Graphiti's on a shared server)
    assert {by_name[name]["state"] for name in wanted} == {"ONLINE"}
    assert by_name["memory_embedding"]["type"] == "VECTOR"
    assert by_name["memory_text"]["type"] == "FULLTEXT"


def test_setup_plans_recall_with_the_parameter_types_recall_uses(neo4j, schema, embedder, tenant):
    """setup() ends with a recall of a scope nobody writes to, so the first real recall
    finds its plan cached; it reads the same parameter types a plain recall sends and
    writes nothing."""
    seen = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: seen.append((name, params))) as m:
        m.setup()
        warm = [params for name, params in seen if name == "recall"]
        assert len(warm) == 1 and seen[-1][0] == "recall"
        seen.clear()
        m.recall("anything at all", scope="acme/alice")
        real = [params for name, params in seen if name == "recall"][0]
        assert {k: type(v) for k, v in warm[0].items()} == {k: type(v) for k, v in real.items()}
        assert m.recall("warm up", scope="graphmem-warm-up", k=5) == []


def test_vector_dimension_mismatch_is_a_clear_error(neo4j, schema):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), embedder=HashingEmbedder(32)) as m:
        with pytest.raises(SchemaError, match="256 dimensions but the embedder returns 32"):
            m.setup()


def test_constraints_reject_a_duplicate_id_within_a_tenant(driver, schema):
    records, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN *")
    memory_id = [r for r in records if r["name"] == "memory_tenant_id"][0]
    assert memory_id["type"] == "UNIQUENESS" and memory_id["properties"] == ["tenant", "id"]
    assert {"fact_tenant_id", "episode_tenant_id", "entity_tenant_id", "insight_tenant_id", "procedure_tenant_id",
            "correction_tenant_id", "decision_tenant_id"} <= {r["name"] for r in records}


@pytest.mark.parametrize("name", _templates.names())
def test_every_template_compiles(driver, schema, name):
    """EXPLAIN every .cypher file: a syntax error in any template fails here."""
    template = _templates.get(name)
    params = {p: None for p in template.parameters}
    statement = template.text
    if name.startswith("schema_") and not name.endswith(("_info", "_await")):
        # DDL cannot be EXPLAINed; running it is the check (it is idempotent: IF NOT EXISTS)
        driver.execute_query(statement, {"dimensions": 256} if "dimensions" in params else {})
        return
    driver.execute_query("EXPLAIN " + statement, params)


def test_unreachable_neo4j_is_a_clear_error_without_the_password():
    with Memory("bolt://127.0.0.1:9", ("neo4j", "s3cret-password-xyz")) as m:
        with pytest.raises(Neo4jUnavailableError) as info:
            m.verify_connectivity()
    assert "127.0.0.1:9" in str(info.value)
    assert "s3cret-password-xyz" not in str(info.value)


def test_wrong_password_is_a_clear_error(neo4j):
    with Memory(neo4j.uri, (neo4j.user, "not-the-password")) as m:
        with pytest.raises(Neo4jUnavailableError, match="authentication failed"):
            m.verify_connectivity()


def test_verify_connectivity_reports_the_server(neo4j):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password)) as m:
        info = m.verify_connectivity()
    assert info["version"].startswith("5.26") or info["version"] >= "5.26"
    assert info["name"] == "Neo4j Kernel"


def test_translated_errors_keeps_the_cause():
    with pytest.raises(Neo4jUnavailableError) as info:
        with translated_errors():
            raise OSError("boom")
    assert isinstance(info.value.__cause__, OSError)


def test_connect_helper_verifies_and_hides_the_password(neo4j):
    from graphmem import Settings, connect

    settings = Settings(uri=neo4j.uri, user=neo4j.user, password=neo4j.password)
    assert neo4j.password not in repr(settings) and neo4j.password not in str(settings.model_dump())
    driver = connect(settings)
    try:
        driver.verify_connectivity()
    finally:
        driver.close()
    with pytest.raises(Neo4jUnavailableError):
        connect(Settings(uri="bolt://127.0.0.1:9", password="whatever-secret"))
