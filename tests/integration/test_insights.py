"""Insights against a real Neo4j: citations checked, quarantine, salience lifecycle
(drop inside the invalidating transaction, corroboration, pruning), validate/reject,
and reflection with scripted langchain-core chat models."""

from __future__ import annotations

import pytest

from graphmem import AsyncMemory, InvalidInputError, Memory, ModelError, NotFoundError
from tests.fakes import JsonChatModel, scripted, tool_answer


def insight_count(driver, tenant: str) -> int:
    records, _, _ = driver.execute_query("MATCH (i:Insight {tenant: $t}) RETURN count(i) AS n", {"t": tenant})
    return records[0]["n"]


def reflection(*insights: dict) -> object:
    return tool_answer("Reflection", {"insights": list(insights)})


def test_an_insight_lands_quarantined_with_its_citations(memory, driver):
    fact = memory.remember("Alice orders oat milk every week", scope="acme/alice", provenance="user")
    episode = memory.add_episode("Alice: oat milk again please", scope="acme")
    insight = memory.add_insight("Alice prefers oat milk", cites=[fact, episode.id], scope="acme/alice")
    assert (insight.provenance.value, insight.status.value, insight.salience) == ("reflection", "quarantined", 2)
    assert set(insight.cites) == {fact.id, episode.id}
    records, _, _ = driver.execute_query(
        "MATCH (:Insight {tenant: $t, id: $id})-[:CITES]->(m) RETURN collect(m.id) AS cited",
        {"t": memory.tenant, "id": insight.id})
    assert set(records[0]["cited"]) == {fact.id, episode.id}
    assert memory.get(insight.id).cites == insight.cites
    again = memory.add_insight("Alice prefers oat milk", cites=[fact], scope="acme/alice", id=insight.id)
    assert again.id == insight.id and again.salience == 2  # an idempotent rewrite, not a corroboration


@pytest.mark.parametrize("case, field", [
    ("missing", "cites[1]"), ("entity", "cites[1]"), ("sibling", "cites[1]"), ("forgotten", "cites[1]"),
    ("insight", "cites[1]"), ("empty", "cites"), ("other_tenant", "cites[1]"), ("rejected", "cites[1]"),
])
def test_bad_citations_are_refused_and_nothing_is_written(memory, driver, neo4j, embedder, tenant, case, field):
    good = memory.remember("Bob likes tea", scope="acme/bob")
    bad = {
        "missing": lambda: "no-such-id",
        "entity": lambda: memory.upsert_entity("Bob", type="person", scope="acme").id,
        "sibling": lambda: memory.remember("Carol likes coffee", scope="acme/carol").id,
        "forgotten": lambda: _forgotten(memory),
        "insight": lambda: memory.add_insight("Bob drinks tea", cites=[good], scope="acme/bob").id,
        "empty": lambda: None,
        "other_tenant": lambda: _other_tenant_fact(neo4j, embedder, tenant),
        "rejected": lambda: memory.reject(memory.remember("Bob maybe likes mate", scope="acme", provenance="extraction").id).id,
    }[case]()
    before = insight_count(driver, memory.tenant)
    with pytest.raises(InvalidInputError) as info:
        memory.add_insight("Bob is a tea person", cites=[] if bad is None else [good, bad], scope="acme/bob")
    assert info.value.field == field
    assert insight_count(driver, memory.tenant) == before


def _forgotten(memory) -> str:
    fact = memory.remember("Bob likes milk", scope="acme")
    memory.forget(scope="acme", id=fact.id)
    return fact.id


def _other_tenant_fact(neo4j, embedder, tenant) -> str:
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-other", embedder=embedder) as other:
        return other.remember("Bob likes tea", scope="acme/bob").id


def test_an_insight_is_as_sensitive_as_its_evidence(memory):
    secret = memory.remember("Alice has a heart condition", scope="s", sensitivity="restricted")
    insight = memory.add_insight("Alice should avoid strenuous hikes", cites=[secret], scope="s")
    assert insight.sensitivity.value == "restricted"
    hits = memory.recall("Alice strenuous hikes", scope="s", max_sensitivity="internal")
    assert insight.id not in [h.record.id for h in hits]


def test_invalidating_a_cited_fact_lowers_salience_in_the_same_transaction(neo4j, schema, embedder, tenant):
    def failing_tracer(name, params, seconds):
        if name == "insight_salience_drop" and armed:
            raise RuntimeError("crash after the salience drop")

    armed = False
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, tracer=failing_tracer) as m:
        fact = m.remember("Alice lives in Paris", scope="s", subject="alice", predicate="lives_in", object="Paris",
                          provenance="extraction")
        insight = m.add_insight("Alice is a Parisian", cites=[fact], scope="s")
        armed = True
        with pytest.raises(RuntimeError):
            m.forget(scope="s", id=fact.id)
        # the crash rolled back the forget too: both writes are one transaction
        assert m.get(fact.id).believed and m.get(insight.id).salience == 2
        armed = False
        assert m.forget(scope="s", id=fact.id) == 1
        assert m.get(insight.id).salience == 1
        # a world change is not an invalidation: the superseded fact stays believed
        other = m.remember("Alice lives in Lyon", scope="s", subject="alice", predicate="lives_in", object="Lyon")
        second = m.add_insight("Alice lives in France", cites=[other], scope="s")
        m.remember("Alice lives in Berlin", scope="s", subject="alice", predicate="lives_in", object="Berlin")
        assert m.get(second.id).salience == 2
        m.correct(other.id, "Alice lived in Marseille, not Lyon")
        assert m.get(second.id).salience == 1


def test_salience_reaching_zero_prunes_the_insight(memory):
    a = memory.remember("Dan runs every morning", scope="s")
    b = memory.remember("Dan ran a marathon", scope="s")
    insight = memory.add_insight("Dan is a keen runner", cites=[a, b], scope="s")
    memory.forget(scope="s", id=a.id)
    assert memory.get(insight.id).believed
    memory.forget(scope="s", id=b.id)
    pruned = memory.get(insight.id)
    assert (pruned.salience, pruned.invalidation_reason) == (0, "pruned")
    assert insight.id not in [r.record.id for r in memory.recall("Dan keen runner", scope="s")]


def test_a_restated_insight_corroborates_instead_of_duplicating(memory, driver):
    a = memory.remember("Eve books window seats", scope="s")
    b = memory.remember("Eve asked for a window seat again", scope="s")
    first = memory.add_insight("Eve prefers window seats", cites=[a], scope="s")
    second = memory.add_insight("Eve prefers window seats.", cites=[a, b], scope="s")
    assert second.id == first.id and second.salience == 3 and set(second.cites) == {a.id, b.id}
    assert second.last_corroborated_at is not None
    unrelated = memory.add_insight("Eve travels for work", cites=[b], scope="s")
    assert unrelated.id != first.id and insight_count(driver, memory.tenant) == 2


def test_maintain_counts_agreeing_facts_once_and_prunes_unsupported_insights(memory):
    chat = memory.add_episode("Frank: I cycle to work every day", scope="s")
    insight = memory.add_insight("Frank cycles to work every day", cites=[chat], scope="s")
    memory.remember("Frank cycles to work every day, rain or shine", scope="s", derived_from=[chat.id])
    memory.remember("Frank owns a red car", scope="s", derived_from=[chat.id])  # shares evidence, disagrees
    memory.remember("Frank cycles to work every day", scope="elsewhere")  # agrees, shares nothing
    report = memory.maintain("s")
    assert report.corroborated == {insight.id: 1} and not report.pruned
    assert memory.get(insight.id).salience == 3
    assert memory.maintain("s").changed is False  # counted once

    fact = memory.remember("Grace speaks Portuguese", scope="s")
    lonely = memory.add_insight("Grace could serve Brazilian customers", cites=[fact], scope="s/team")
    memory.forget(scope="s", id=fact.id)
    report = memory.maintain("s")
    assert report.unsupported == (lonely.id,)
    assert memory.get(lonely.id).invalidation_reason == "pruned"


def test_validate_and_reject_change_status_with_time(memory):
    fact = memory.remember("Hank reorders printer paper monthly", scope="s", importance=0.2)
    insight = memory.add_insight("Hank reorders printer paper monthly; offer a subscription", cites=[fact], scope="s")
    act = lambda: [r.record.id for r in memory.recall("Hank printer paper subscription", scope="s", purpose="act")]  # noqa: E731
    assert insight.id not in act()
    valid = memory.validate(insight.id, note="checked by Ida")
    assert valid.status.value == "active" and valid.status_changed_at is not None
    assert valid.status_log[-1].endswith("quarantined -> active (validated: checked by Ida)")
    results = memory.recall("Hank printer paper subscription", scope="s", purpose="act")
    order = [r.record.id for r in results]
    assert order.index(fact.id) < order.index(insight.id)
    assert [c.id for c in results[order.index(insight.id)].citations] == [fact.id]
    rejected = memory.reject(insight.id)
    assert rejected.status.value == "rejected" and len(rejected.status_log) == 2
    assert insight.id not in [r.record.id for r in memory.recall("Hank printer paper", scope="s")]
    with pytest.raises(NotFoundError):
        memory.validate("nope")
    memory.forget(scope="s", id=fact.id)
    gone = memory.remember("temporary", scope="s")
    memory.forget(scope="s", id=gone.id)
    with pytest.raises(InvalidInputError) as info:
        memory.validate(gone.id)
    assert info.value.field == "id"


def test_reflect_keeps_supported_insights_and_drops_invented_citations(memory):
    a = memory.remember("Jane flies to Tokyo in March", scope="s")
    b = memory.remember("Jane booked a hotel in Kyoto", scope="s")
    c = memory.add_episode("Jane: I am learning Japanese", scope="s")
    llm = scripted(reflection(
        {"text": "Jane is planning a trip to Japan", "cites": [a.id, b.id, "made-up-1"]},
        {"text": "Jane speaks fluent French", "cites": ["made-up-2"]},
        {"text": "Jane is preparing for Japan by learning the language", "cites": [c.id]},
        {"text": "Jane likes sushi", "cites": []},
    ))
    report = memory.reflect(scope="s", llm=llm)
    insights = report.insights
    assert llm.calls == 1
    assert [i.text for i in insights] == ["Jane is planning a trip to Japan", "Jane is preparing for Japan by learning the language"]
    assert set(insights[0].cites) == {a.id, b.id} and insights[1].cites == (c.id,)
    assert all(i.status.value == "quarantined" and i.provenance.value == "reflection" for i in insights)
    assert report.written == tuple(i.id for i in insights)
    dropped = {d.text: d for d in report.dropped}
    assert dropped["Jane speaks fluent French"].invented == ("made-up-2",)
    assert set(dropped) == {"Jane speaks fluent French", "Jane likes sushi"}

    memory.reject(insights[0].id)
    again = scripted(reflection({"text": "Jane is planning a trip to Japan", "cites": [a.id]}))
    report = memory.reflect(scope="s", llm=again)
    assert report.insights == ()
    assert report.dropped[0].reason == "a person rejected this insight before"


def test_reflect_retries_malformed_output_then_reports_it(memory, driver):
    fact = memory.remember("Kim walks her dog at 7", scope="s")
    flaky = scripted(
        tool_answer("Reflection", {"insights": "not a list"}),
        "I cannot help with that.",
        reflection({"text": "Kim has a morning routine", "cites": [fact.id]}),
    )
    assert [i.text for i in memory.reflect(scope="s", llm=flaky).insights] == ["Kim has a morning routine"]
    assert flaky.calls == 3
    broken = scripted(*["{not json"] * 3)
    before = insight_count(driver, memory.tenant)
    with pytest.raises(ModelError) as info:
        memory.reflect(scope="s", llm=broken)
    assert len(info.value.attempts) == 3 and broken.calls == 3
    assert insight_count(driver, memory.tenant) == before


def test_reflect_works_with_a_model_without_tool_calling(memory):
    fact = memory.remember("Leo reads a book a week", scope="s")
    llm = JsonChatModel(responses=['{"insights": [{"text": "Leo is an avid reader", "cites": ["%s"]}]}' % fact.id])
    assert [i.text for i in memory.reflect(scope="s", llm=llm, since=fact.created_at).insights] == ["Leo is an avid reader"]
    assert memory.reflect(scope="empty", llm=llm).insights == ()  # no evidence: no model call
    assert llm.calls == 1


async def test_async_insights(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        fact = await m.remember("Mia swims on Sundays", scope="s")
        llm = scripted(reflection({"text": "Mia keeps a weekly swim", "cites": [fact.id]}))
        [insight] = (await m.reflect(scope="s", llm=llm)).insights
        assert (await m.validate(insight.id)).status.value == "active"
        assert (await m.maintain("s")).changed is False


def test_the_evidence_trail_is_a_graph_down_to_the_episodes(memory):
    said = memory.add_episode("Nina: I moved to Oslo last spring", scope="s")
    lives = memory.remember("Nina lives in Oslo", scope="s", subject="nina", predicate="lives_in", object="Oslo",
                            derived_from=[said.id], provenance="extraction")
    likes = memory.remember("Nina likes skiing", scope="s")
    insight = memory.add_insight("Nina enjoys Norwegian winters", cites=[lives, likes], scope="s")
    memory.remember("Nina enjoys the Norwegian winters", scope="s", derived_from=[said.id])
    memory.maintain("s")
    memory.correct(likes.id, "Nina likes cross-country skiing")
    trail = memory.evidence(insight.id)
    edges = {(a, b, d["type"]) for a, b, d in trail.edges(data=True)}
    assert (insight.id, lives.id, "CITES") in edges and (lives.id, said.id, "DERIVED_FROM") in edges
    assert {t for _, _, t in edges} == {"CITES", "DERIVED_FROM", "CORROBORATES", "SUPERSEDES"}
    corrected = [a for a, b, d in trail.edges(data=True) if d["type"] == "SUPERSEDES" and b == likes.id]
    assert trail.nodes[corrected[0]]["text"] == "Nina likes cross-country skiing"
    assert trail.nodes[insight.id]["record"].salience == 2  # +1 corroborated, -1 evidence corrected
    lone = memory.remember("Otto likes jazz", scope="s")
    assert list(memory.evidence(lone.id).nodes) == [lone.id]
    with pytest.raises(NotFoundError):
        memory.evidence("nope")


def test_restating_an_insight_on_the_same_evidence_does_not_raise_salience(memory):
    fact = memory.remember("Pia jogs daily", scope="s")
    first = memory.add_insight("Pia is sporty", cites=[fact], scope="s")
    for _ in range(3):
        assert memory.add_insight("Pia is sporty", cites=[fact], scope="s").salience == 2
    child = memory.add_insight("Pia is sporty", cites=[fact], scope="s/team")  # another scope: its own record
    assert child.id != first.id and memory.get(first.id).cites == (fact.id,)
