"""Schema, connectivity and templates against the real Neo4j."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError

from graphmem import HashingEmbedder, Memory, Neo4jUnavailableError, RecallSettings, SchemaError
from graphmem._base import dialect, templates
from graphmem._base.errors import translated_errors

from .helpers import server_filters_vectors


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
        # recall, or on Neo4j 2026 its Cypher 25 version (recall:cypher25): the same one both times
        warm = [(name, params) for name, params in seen if name.split(":")[0] == "recall"]
        assert len(warm) == 1 and seen[-1][0] == warm[0][0]
        seen.clear()
        m.recall("anything at all", scope="acme/alice")
        real = [params for name, params in seen if name == warm[0][0]][0]
        assert {k: type(v) for k, v in warm[0][1].items()} == {k: type(v) for k, v in real.items()}
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


@pytest.mark.parametrize("name", templates.names())
def test_every_template_compiles(driver, schema, name):
    """EXPLAIN every .cypher file: a syntax error in any template fails here."""
    template = templates.get(name)
    params = {p: None for p in template.parameters}
    statement = template.text
    if name == "schema_vector_drop":
        # dropping the index every test beside this one searches is the migration test's
        # to check (test_vector_migration.py, alone in make test-reliability)
        assert template.text.splitlines()[1] == "DROP INDEX memory_embedding IF EXISTS"
        return
    if name.startswith("schema_") and not name.endswith(("_info", "_await")):
        # DDL cannot be EXPLAINed; running it is the check (it is idempotent: IF NOT EXISTS)
        driver.execute_query(statement, {"dimensions": 256} if "dimensions" in params else {})
        return
    driver.execute_query("EXPLAIN " + statement, params)


@pytest.mark.parametrize("name", [n for n in templates.variant_names() if n.endswith(":cypher25")])
def test_cypher25_versions_compile_on_neo4j_2026_and_neo4j_5_refuses_them(driver, schema, name):
    """Which version a server gets is decided by its version (graphmem._base.dialect): on Neo4j
    2026 every Cypher 25 version compiles (the index DDL runs: IF NOT EXISTS), and Neo4j 5
    refuses them, so sending one there would be a bug, not a slower path."""
    template = templates.get(name)
    params = {p: None for p in template.parameters}
    if name.startswith("schema_"):
        statement, params = template.text, ({"dimensions": 256} if "dimensions" in params else {})
    else:
        statement = "EXPLAIN " + template.text
    if server_filters_vectors(driver):
        driver.execute_query(statement, params)
    else:
        with pytest.raises(ClientError):
            driver.execute_query(statement, params)


def test_the_vector_index_filters_by_tenant_where_the_server_can_and_recall_follows(neo4j, schema, embedder,
                                                                                    driver, tenant):
    records, _, _ = driver.execute_query(templates.get("schema_vector_info").text)
    can = server_filters_vectors(driver)
    assert dialect.filtered(records[0]["properties"]) is can
    seen = []
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                tracer=lambda name, params, seconds: seen.append(name)) as m:
        m.remember("Alice drinks green tea", scope="u")
        assert m.recall("green tea", scope="u")[0].record.text == "Alice drinks green tea"
        # one read of the index per memory object: the dimension and the filter together
        assert seen.count("schema_vector_info") == 1
        m.recall("tea", scope="u")
    assert [n for n in seen if n.startswith("recall")] == [dialect.template("recall", can)] * 2


def test_memory_objects_of_one_driver_read_the_vector_index_once(neo4j, schema, embedder, tenant):
    """An application that opens a memory object per tenant on one driver pays for reading
    the index (its dimension, whether it filters) once, not once per tenant."""
    from neo4j import GraphDatabase

    seen = []
    with GraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password)) as shared:
        for who in ("a", "b", "c"):
            with Memory.from_driver(shared, tenant=f"{tenant}-{who}", embedder=embedder,
                                    tracer=lambda name, params, seconds: seen.append(name)) as m:
                m.remember("Alice drinks green tea", scope="u")
                assert m.recall("green tea", scope="u")[0].record.text == "Alice drinks green tea"
                m.erase(scope="u")
    assert seen.count("schema_vector_info") == 1


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
    major, minor = (int(part) for part in info["version"].split(".")[:2])
    assert (major, minor) >= (5, 26)  # 5.26 LTS, or a calendar version (2026.08.1)
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


def test_the_index_path_scores_each_memory_with_its_exact_cosine(neo4j, schema, embedder, tenant):
    """Through the vector index (Neo4j 5: re-scored from the stored vector; 2026: SEARCH's
    own score, which 2026's index computes from the full vectors) a memory's semantic part is
    the one the exact scan gives it."""
    texts = [f"green tea order {i} with {w}" for i, w in enumerate(["lemon", "honey", "mint", "ginger"] * 100)]
    parts = {}
    for strategy in ("index", "exact"):
        with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                    recall_settings=RecallSettings(strategy=strategy, min_relevance=-1.0)) as m:
            if strategy == "index":
                m.remember_many([{"text": t, "scope": "u"} for t in texts])
            parts[strategy] = {r.record.id: r.parts.semantic for r in m.recall("green tea with honey", scope="u", k=20)}
    shared = parts["index"].keys() & parts["exact"].keys()
    assert len(shared) >= 10
    assert all(abs(parts["index"][i] - parts["exact"][i]) < 1e-6 for i in shared)
