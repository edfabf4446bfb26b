"""Correction (with semantic collisions), forgetting with tombstones, hard erase."""

from __future__ import annotations

from graphmem import Memory

from .helpers import utc

SCOPE = "acme/alice"


def test_correction_invalidates_similar_extraction_facts_only(neo4j, schema, embedder, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                contradiction_threshold=0.6) as m:
        wrong = m.remember("Alice is allergic to peanuts", scope=SCOPE, provenance="extraction")
        echo = m.remember("Alice is allergic to peanuts and cashews", scope=SCOPE, provenance="extraction")
        said = m.remember("Alice is allergic to peanuts, she said", scope=SCOPE, provenance="user")
        elsewhere = m.remember("Alice is allergic to peanuts", scope="acme/bob", provenance="extraction")
        unrelated = m.remember("The office wifi password rotates monthly", scope=SCOPE, provenance="extraction")
        fixed = m.correct(wrong.id, "Alice is allergic to shellfish, not peanuts")
        assert m.get(wrong.id).invalidation_reason == "corrected"
        collided = m.get(echo.id)
        assert collided.invalidation_reason == "contradicted"
        assert collided.superseded_by[0].by == fixed.id and collided.superseded_by[0].reason == "contradicted"
        assert m.get(said.id).believed  # user records are never invalidated automatically
        assert m.get(elsewhere.id).believed  # not visible in the correction's scope
        assert m.get(unrelated.id).believed


def test_correction_and_collisions_are_one_transaction(neo4j, schema, embedder, tenant):
    """If the correction cannot be written, the old record stays believed."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        old = m.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in", object="Paris")
        m.add_episode("taken id", scope=SCOPE, id="taken")
        try:
            m.correct(old.id, "Alice lives in Rome", object="Rome", id="taken")
        except Exception as exc:
            assert "taken" in str(exc)
        else:
            raise AssertionError("correct() with a used id must fail")
        assert m.get(old.id).believed


def test_forget_leaves_a_tombstone_that_extraction_honours(memory):
    fact = memory.remember("Alice's PIN is 1234", scope=SCOPE, subject="alice", predicate="pin", object="1234",
                           provenance="user")
    assert memory.forget(scope=SCOPE, text="alice's pin is 1234!") == 1
    assert memory.get(fact.id).invalidation_reason == "forgotten"
    assert memory.facts(scope=SCOPE) == []
    # extraction restating it (same text, or same triple in other words) is suppressed
    assert memory.remember("Alice's PIN is 1234", scope=SCOPE, provenance="extraction") is None
    assert memory.remember("PIN of Alice: 1234", scope=SCOPE, subject="alice", predicate="pin", object="1234",
                           provenance="extraction") is None
    batch = memory.remember_many([
        {"text": "Alice's PIN is 1234", "scope": SCOPE, "provenance": "extraction"},
        {"text": "Alice likes tea", "scope": SCOPE, "provenance": "extraction"},
    ])
    assert [f.text for f in batch] == ["Alice likes tea"]
    # the user saying it again themselves is honoured, and lifts the tombstone
    again = memory.remember("Alice's PIN is 1234", scope=SCOPE, provenance="user")
    assert again is not None and again.believed
    assert memory.remember("Alice's PIN is 1234", scope=SCOPE, provenance="extraction") is not None


def test_forget_by_subject_and_predicate(memory):
    memory.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in", object="Paris")
    memory.remember("Alice likes tea", scope=SCOPE, subject="alice", predicate="likes", object="tea")
    assert memory.forget(scope=SCOPE, subject="alice", predicate="lives_in") == 1
    assert [f.predicate for f in memory.facts(scope=SCOPE)] == ["likes"]
    assert memory.forget(scope=SCOPE, subject="alice", predicate="lives_in") == 0


def test_erase_deletes_nodes_edges_and_projections(memory, driver):
    alice = memory.upsert_entity("Alice", type="person", scope="acme")
    berlin = memory.upsert_entity("Berlin", type="city", scope="acme")
    rel = memory.relate(alice, "lives_in", berlin, scope=SCOPE, user_id="u-alice")
    memory.remember("Alice likes tea", scope=SCOPE, user_id="u-alice")
    memory.remember("Office opens at 9", scope="acme")
    # Alice and Berlin were referred to only by u-alice's facts: they go with them
    report = memory.erase(user_id="u-alice")
    assert (report.total, report.by_kind) == (4, {"fact": 2, "entity": 2, "scope": 1})
    assert memory.get(rel.id) is None and memory.get(alice.id) is None
    records, _, _ = driver.execute_query(
        "MATCH (:Entity {tenant: $t})-[r:RELATES]->() RETURN count(r) AS n", {"t": memory.tenant})
    assert records[0]["n"] == 0
    assert int(memory.erase(scope="acme")) == 1  # the office fact
    records, _, _ = driver.execute_query("MATCH (m:Memory {tenant: $t}) RETURN count(m) AS n", {"t": memory.tenant})
    assert records[0]["n"] == 0


def test_erase_by_scope_means_the_subtree(memory):
    memory.remember("a", scope="org")
    memory.remember("b", scope="org/team")
    memory.remember("c", scope="org/team/x")
    memory.remember("d", scope="org/teammate")
    assert memory.erase(scope="org/team").total == 2
    assert sorted(f.text for f in memory.facts(scope="org/teammate")) == ["a", "d"]


def test_a_tombstone_is_lifted_only_by_a_later_statement_and_covers_child_scopes(memory):
    memory.add_episode("Alice lives in Paris", scope=SCOPE, role="user")  # said before the forget
    fact = memory.remember("Alice lives in Paris", scope=SCOPE, provenance="extraction")
    assert memory.forget(scope=SCOPE, id=fact.id) == 1
    assert memory.remember("Alice lives in Paris", scope=SCOPE, provenance="extraction") is None
    # written higher up it would be visible in the forgetting scope again: suppressed too
    assert memory.remember("Alice lives in Paris", scope="acme", provenance="extraction") is None
    # an unrelated sibling scope is not affected
    assert memory.remember("Alice lives in Paris", scope="other", provenance="extraction") is not None


def test_correcting_a_historic_fact_keeps_its_valid_time(memory):
    old = memory.remember("Alice lived in Paris", scope=SCOPE, subject="alice", predicate="lived_in",
                          object="Paris", valid_from=utc(2019), valid_to=utc(2021))
    fixed = memory.correct(old.id, "Alice lived in Lyon", object="Lyon")
    assert (fixed.valid_from, fixed.valid_to) == (utc(2019), utc(2021))
    assert memory.facts(scope=SCOPE) == []


def test_large_erases_run_in_batches(memory, monkeypatch):
    import graphmem._sync.records as sync_records

    monkeypatch.setattr(sync_records, "_ERASE_BATCH", 3)
    facts = memory.remember_many([{"text": f"note {i}", "scope": "big/part", "user_id": "u-big"} for i in range(10)])
    kept = memory.remember("a note of someone else", scope="big/part")
    # derived from facts that fall in different batches: found whichever batch comes first
    insight = memory.add_insight("notes 0 and 9 agree", cites=[facts[0], facts[9]], scope="big/part")
    mixed = memory.add_insight("notes 5 and another agree", cites=[facts[5], kept], scope="big/part")
    report = memory.erase(user_id="u-big")
    assert report.by_kind == {"fact": 10, "insight": 1} and report.total == 11
    assert memory.get(insight.id) is None and memory.get(mixed.id).cites == (kept.id,)
    assert memory.erase(scope="big").by_kind == {"fact": 1, "insight": 1, "scope": 2}
    assert memory.facts(scope="big/part") == []
    assert "big/part" not in {row["path"] for row in memory.scopes()}  # left empty: pruned


def _lives(memory, city, user, at):
    return memory.remember(f"Alice lives in {city}", scope=SCOPE, subject="alice", predicate="lives_in", object=city,
                           user_id=user, valid_from=at)


def test_erasing_the_user_whose_fact_superseded_another_s_restores_it(memory, driver):
    """Issue 43.6: Maria says Alice lives in Paris, Bob later that she lives in Berlin; erasing
    Bob gives Paris back its open end, as if Bob had never said anything."""
    paris = _lives(memory, "Paris", "maria", utc(2024, 1, 1))
    _lives(memory, "Berlin", "bob", utc(2024, 6, 1))
    assert memory.get(paris.id).valid_to == utc(2024, 6, 1)
    report = memory.erase(user_id="bob")
    assert (report.fact, report.restored, report.total) == (1, 1, 1)
    assert str(report) == "1 memories erased (fact: 1); 1 superseded facts current again"
    back = memory.get(paris.id)
    assert back.valid_to is None and back.believed and back.superseded_by == ()
    assert [f.text for f in memory.facts(scope=SCOPE, subject="alice")] == ["Alice lives in Paris"]
    closed, _, _ = driver.execute_query("MATCH (f:Fact {tenant: $t, id: $id}) RETURN f.closedAt AS c",
                                        {"t": memory.tenant, "id": paris.id})
    assert closed[0]["c"] is None


def test_a_later_survivor_takes_over_what_the_erased_fact_superseded(memory):
    paris = _lives(memory, "Paris", "maria", utc(2024, 1, 1))
    _lives(memory, "Berlin", "bob", utc(2024, 6, 1))
    rome = _lives(memory, "Rome", "carol", utc(2025, 1, 1))
    assert memory.erase(user_id="bob").restored == 1
    back = memory.get(paris.id)
    assert back.valid_to == utc(2025, 1, 1)  # Paris until Rome, not until the erased Berlin
    assert [s.by for s in back.superseded_by] == [rome.id]
    assert [f.text for f in memory.facts(scope=SCOPE, subject="alice")] == ["Alice lives in Rome"]
    assert [f.text for f in memory.facts(scope=SCOPE, subject="alice", valid_at=utc(2024, 8, 1))] == [
        "Alice lives in Paris"]


def test_a_fact_the_erased_one_corrected_is_believed_again(memory):
    paris = _lives(memory, "Paris", "maria", utc(2024, 1, 1))
    _lives(memory, "Berlin", "bob", utc(2024, 1, 1))  # the same start: Paris is corrected, not ended
    assert not memory.get(paris.id).believed
    assert memory.erase(user_id="bob").restored == 1
    back = memory.get(paris.id)
    assert back.believed and back.invalidated_at is None and back.invalidation_reason is None
    assert [f.text for f in memory.facts(scope=SCOPE, subject="alice")] == ["Alice lives in Paris"]
