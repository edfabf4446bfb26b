"""Recall's statement in parts (issue 50): cypher/recall.cypher composes one fragment per side
(recall_semantic, recall_seeds, recall_lexical, recall_graph, recall_expand). Each part is run
here alone on a real Neo4j, through a small statement in tests/cypher/ that hands it what
recall.cypher would, and its plan is checked: planned afresh (replan=force), it seeks through
indexes and procedures only (no label, index or relationship scan, whatever the statistics),
and it returns what it is for on a small conversation."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphmem import Memory
from graphmem._base import templates
from graphmem._recall import plan as _recall

from .helpers import plan_operators, server_filters_vectors

PARTS = Path(__file__).resolve().parents[1] / "cypher"
SCOPE = "friends"
TALK = [
    {"role": "user", "name": "Deborah", "content": "I went to a yoga retreat in Bali last week."},
    {"role": "user", "name": "Jolene", "content": "Bali sounds lovely. Did Mateo come with you?"},
    {"role": "user", "name": "Deborah", "content": "Mateo stayed home with the dog."},
    {"role": "user", "name": "Jolene", "content": "I started pottery classes on Tuesdays."},
]


def _versions(driver) -> list[bool]:
    """Cypher 5 always; the Cypher 25 text too where the server speaks it (Neo4j 2026)."""
    return [False, True] if server_filters_vectors(driver) else [False]


def part(name: str, cypher25: bool) -> templates.Template:
    source = (PARTS / f"recall_part_{name}.cypher").read_text(encoding="utf-8")
    if cypher25:
        parsed = templates.parse(f"recall_part_{name}", source, templates.fragments(templates.CYPHER25))
        return templates.as_cypher25(parsed.name, parsed)
    return templates.parse(f"recall_part_{name}", source, templates.fragments())


@pytest.fixture
def talk(neo4j, memory, embedder):
    """The conversation in the test's tenant, and the same one in a look-alike tenant: no part
    may return the other tenant's memories or entities."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=memory.tenant + "-other", embedder=embedder) as other:
        other.ingest(TALK, scope=SCOPE, llm=None)
    memory.ingest(TALK, scope=SCOPE, llm=None)
    return memory


def _params(template, memory, embedder, query, cypher25, **inputs):
    now = datetime.now(timezone.utc)
    given = _recall.params(tenant=memory.tenant, query=query, scope=SCOPE, k=10,
                           vector=embedder.embed_query(query), as_of=now, valid_at=now, kind_list=None,
                           purpose="inform", max_sensitivity=None, include_invalidated=False,
                           settings=_recall.RecallSettings(), cypher25=cypher25)
    chosen = {key: value for key, value in {**given, **inputs}.items() if key in template.parameters}
    template.check(chosen)
    return chosen


def _run(driver, template, params):
    """The part's rows, and the operators of the plan it ran with (PROFILE: planned afresh)."""
    records, summary, _ = driver.execute_query("PROFILE " + template.text, params)
    operators = list(plan_operators(summary.profile))
    names = {name for name, _ in operators}
    assert not [name for name in names if name.endswith("Scan")], (template.name, names)
    return records, operators


def _texts(hits, tenant):
    assert {hit["m"]["tenant"] for hit in hits} <= {tenant}
    return [hit["m"]["text"] for hit in hits]


def test_every_part_is_included_by_recall_and_has_a_statement_here():
    source = (templates.template_dir() / "recall.cypher").read_text(encoding="utf-8")
    named = {path.stem.removeprefix("recall_part_") for path in PARTS.glob("recall_part_*.cypher")}
    assert named == {"semantic", "seeds", "lexical", "graph", "expand"}
    for name in named:
        assert "{{recall_" + name + "}}" in source
        assert f"recall_{name}" in templates.fragments()
    # composed, recall is the parts' text put together: no part is left unexpanded
    assert "{{" not in templates.get("recall").text and "{{" not in templates.get("recall:cypher25").text


@pytest.mark.parametrize("exact", [True, False])
def test_the_semantic_part_scans_the_scopes_by_index_or_asks_the_vector_index(talk, driver, embedder, exact):
    for cypher25 in _versions(driver):
        template = part("semantic", cypher25)
        # the question is a stored turn word for word: its vector is the nearest in any tenant,
        # so the index finds it however many memories the session's server holds
        params = _params(template, talk, embedder, TALK[0]["content"], cypher25, inScope=4, exact=exact)
        records, operators = _run(driver, template, params)
        hits = records[0]["semanticHits"]
        assert _texts(hits, talk.tenant)[0] == TALK[0]["content"]
        assert len(records[0]["semanticPool"]) >= len(hits)
        assert any(name == "NodeIndexSeek" and "Memory(tenant, scope)" in details for name, details in operators)
        # both branches are planned (a UNION); the index one asks the vector index: through its
        # procedure in Cypher 5, filtered by tenant inside SEARCH in Cypher 25
        if cypher25:
            assert any(name == "NodeVectorIndexSearch" and "WHERE tenant = $tenant" in details
                       for name, details in operators)
        else:
            assert any(name == "ProcedureCall" and "vector.queryNodes" in details for name, details in operators)


def test_the_seeds_part_finds_the_named_speaker_through_the_entity_index(talk, driver, embedder):
    for cypher25 in _versions(driver):
        template = part("seeds", cypher25)
        params = _params(template, talk, embedder, "What did Mateo do?", cypher25)
        records, operators = _run(driver, template, params)
        seeds = records[0]["seeds"]
        assert [(seed["e"]["name"], seed["e"]["tenant"], seed["speaks"]) for seed in seeds] == [
            ("Mateo", talk.tenant, False)]
        assert any(name == "ProcedureCall" and "fulltext.queryNodes" in details for name, details in operators)


def test_the_lexical_part_asks_the_full_text_index_without_the_speakers_names(talk, driver, embedder):
    for cypher25 in _versions(driver):
        template = part("lexical", cypher25)
        params = _params(template, talk, embedder, "Deborah pottery", cypher25, inScope=4,
                         spoken=["deborah"])
        records, operators = _run(driver, template, params)
        assert _texts(records[0]["lexicalHits"], talk.tenant) == ["I started pottery classes on Tuesdays."]
        assert any(name == "ProcedureCall" and "fulltext.queryNodes" in details for name, details in operators)


def test_the_graph_part_walks_from_the_seeds_what_they_said(talk, driver, embedder):
    for cypher25 in _versions(driver):
        template = part("graph", cypher25)
        params = _params(template, talk, embedder, "What does Jolene do?", cypher25, semanticPool=[])
        records, operators = _run(driver, template, params)
        said = {"Bali sounds lovely. Did Mateo come with you?", "I started pottery classes on Tuesdays."}
        assert set(_texts(records[0]["graphHits"], talk.tenant)) == said
        assert any(name.startswith("Expand") for name, _ in operators)


def test_the_expansion_part_reaches_the_other_turns_naming_who_a_hit_names(talk, driver, embedder):
    graph = talk.graph(scope=SCOPE, kinds=["episode"])
    ids = {data["text"]: node for node, data in graph.nodes(data=True)}
    for cypher25 in _versions(driver):
        template = part("expand", cypher25)
        params = _params(template, talk, embedder, "Mateo", cypher25,
                         hitIds=[ids["Mateo stayed home with the dog."]])
        records, operators = _run(driver, template, params)
        reached = _texts(records[0]["expanded"], talk.tenant)
        assert "Bali sounds lovely. Did Mateo come with you?" in reached
        assert "I started pottery classes on Tuesdays." not in reached
        assert any(name == "NodeUniqueIndexSeek" and "Memory(tenant, id)" in details for name, details in operators)
