"""The Cypher a server is sent: recall's Cypher 25 version for Neo4j 2026's filtered vector
index, chosen from the server's version and the index's own properties."""

from __future__ import annotations

import pytest

from graphmem import RecallSettings
from graphmem._base import dialect, templates
from graphmem._recall import plan


@pytest.mark.parametrize("version, filters", [("5.26.19", False), ("5.27.0", False), ("2025.10.1", False),
                                              ("2026.01.0", True), ("2026.08.1", True), ("2027.02.3", True),
                                              ("garbage", False), ("", False)])
def test_only_calendar_versions_from_2026_filter_vectors(version, filters):
    assert dialect.filters_vectors(version) is filters


def test_an_index_filters_by_tenant_only_when_it_carries_the_tenant():
    assert dialect.filtered(["embedding", "tenant"]) and not dialect.filtered(["embedding"])
    assert not dialect.filtered(None)


def test_recall_and_the_vector_index_have_cypher25_versions_and_nothing_else_does():
    assert [n for n in templates.variant_names() if n.endswith(":cypher25")] == ["recall:cypher25",
                                                                                 "schema_vector:cypher25"]
    assert "recall:cypher25" not in templates.names()
    assert dialect.template("recall", True) == "recall:cypher25" and dialect.template("recall", False) == "recall"


def test_the_cypher25_recall_searches_within_the_tenant_with_a_limit_known_in_advance():
    base, search = templates.get("recall"), templates.get("recall:cypher25")
    assert search.text.splitlines()[1] == "CYPHER 25 replan=skip" and base.text.splitlines()[1] == "CYPHER replan=skip"
    assert "SEARCH m IN (VECTOR INDEX memory_embedding FOR $vector WHERE m.tenant = $tenant LIMIT $vectorLimit)" in search.text
    assert "queryNodes('memory_embedding'" in base.text and "queryNodes('memory_embedding'" not in search.text
    assert base.parameters - search.parameters == {"maxVectorFetch"}
    assert search.parameters - base.parameters == {"vectorLimit"}
    # the pool the index searches among: the database's on Neo4j 5, the tenant's scopes on 2026
    assert "RETURN total AS pool" in base.text and "MATCH (s:Scope {tenant: $tenant})" in search.text
    assert "ON n.embedding WITH [n.tenant]" in templates.get("schema_vector:cypher25").text


def test_a_template_without_a_cypher_line_gets_one():
    plain = templates.parse("x", "// name: x\n// doc\nMATCH (n) RETURN n\n")
    assert templates.as_cypher25("x:cypher25", plain).text == "// name: x\nCYPHER 25\nMATCH (n) RETURN n\n"


def test_a_cypher25_fragment_needs_a_base_fragment(tmp_path, monkeypatch):
    (tmp_path / "fragments" / "cypher25").mkdir(parents=True)
    (tmp_path / "fragments" / "cypher25" / "lonely.cypher").write_text("// fragment: lonely\n__node__\n")
    monkeypatch.setattr(templates, "template_dir", lambda: tmp_path)
    templates.fragments.cache_clear()
    try:
        with pytest.raises(templates.TemplateError, match="no base fragment for lonely"):
            templates.fragments(templates.CYPHER25)
    finally:
        templates.fragments.cache_clear()


def test_the_search_limit_is_the_semantic_fetch_over_fetched_and_deepened_by_a_retry():
    args = dict(tenant="t", query="tea", scope="s", k=10, vector=[0.1] * 4, as_of=None, valid_at=None,
                kind_list=None, purpose="inform", max_sensitivity=None, include_invalidated=False,
                settings=RecallSettings())
    base = plan.params(**args)
    search = plan.params(**args, cypher25=True)
    assert "vectorLimit" not in base and base["maxVectorFetch"] == 10_000
    fetch = base["semanticFetch"]
    # at least SEARCH_LEAST (the index is quantized), else the fetch times the over-fetch
    assert "maxVectorFetch" not in search and search["vectorLimit"] == max(plan.SEARCH_LEAST, -(-fetch * 3 // 2))
    assert plan.params(**{**args, "k": 100}, cypher25=True)["vectorLimit"] == 150  # 100 x 1.5
    assert plan.params(**args, cypher25=True, over_fetch_boost=64.0)["vectorLimit"] == max(100, fetch * 96)
    assert plan.params(**{**args, "k": 1000}, cypher25=True, over_fetch_boost=64.0)["vectorLimit"] == 10_000
