"""AsyncMemory: the same behaviour as Memory, on asyncio."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import AsyncMemory, InvalidInputError

from .helpers import utc

SCOPE = "acme/async"


@pytest.fixture
async def amem(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        yield m


async def test_async_remember_supersede_correct_forget(amem):
    paris = await amem.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in",
                                object="Paris", valid_from=utc(2020))
    berlin = await amem.remember("Alice lives in Berlin", scope=SCOPE, subject="alice", predicate="lives_in",
                                 object="Berlin", valid_from=utc(2023))
    assert (await amem.get(paris.id)).valid_to == utc(2023)
    fixed = await amem.correct(berlin.id, "Alice lives in Bonn", object="Bonn")
    assert [f.object for f in await amem.facts(scope=SCOPE)] == ["Bonn"]
    history = await amem.history(subject="alice", scope=SCOPE)
    assert [f.id for f in history] == [paris.id, berlin.id, fixed.id]
    assert await amem.forget(scope=SCOPE, subject="alice") == 2  # Paris (history) and Bonn
    assert await amem.facts(scope=SCOPE) == []


async def test_async_concurrent_writes_all_land(amem):
    facts = await asyncio.gather(*(amem.remember(f"note {i}", scope=f"{SCOPE}/s{i % 3}") for i in range(20)))
    assert len({f.id for f in facts}) == 20
    assert len(await amem.facts(scope=f"{SCOPE}/s0")) == 7


async def test_async_entities_episodes_and_errors(amem):
    alice = await amem.upsert_entity("Alice", type="person", scope=SCOPE)
    same = await amem.upsert_entity("ALICE", type="person", scope=SCOPE, aliases=["Al"])
    assert alice.id == same.id and same.aliases == ("Al",)
    episode = await amem.add_episode("I moved to Berlin", scope=SCOPE, role="user", occurred_at=utc(2023))
    assert episode.occurred_at == utc(2023) and episode.kind == "episode"
    with pytest.raises(InvalidInputError) as info:
        await amem.add_episode("x", scope=SCOPE, role="narrator")
    assert info.value.field == "role"
    # the episode, Alice, and the entities the episode gave: its speaker (the user) and Berlin
    assert (await amem.erase(scope=SCOPE)).by_kind == {"episode": 1, "entity": 3, "scope": 2}


async def test_async_recall_and_context(amem):
    tea = await amem.remember("Alice drinks green tea every morning", scope=SCOPE, provenance="user")
    await amem.remember("Invoices are due on the first of the month", scope=SCOPE)
    results = await amem.recall("what does Alice drink", scope=SCOPE, k=2)
    assert results[0].record.id == tea.id and results[0].parts.trust > 0
    block = await amem.context("what does Alice drink", scope=SCOPE, max_tokens=100)
    assert block.startswith("## Facts") and "[user] Alice drinks green tea" in block


async def test_async_corrections_decisions_and_curation(amem):
    wrong = await amem.remember("The refund window for kettles is 30 days", scope=SCOPE, provenance="extraction")
    fix = await amem.record_correction("bot", "30 days", "The refund window for kettles is 14 days", scope=SCOPE,
                                       original_input="How long can I return a kettle?")
    assert (await amem.get(wrong.id)).invalidation_reason == "contradicted"
    assert [c["correction_id"] for c in await amem.correction_eval_cases(scope=SCOPE)] == [fix.id]
    decision = await amem.log_decision("bot", "Refund it", reasoning="dented", decision_type="refund", scope=SCOPE)
    judged = await amem.record_decision_outcome(decision.id, "happy customer", quality="good")
    assert judged.quality == "good"
    for n in range(2):  # explicit ids: without them the second write returns the first
        await amem.remember("Kettles ship from Lyon", scope=SCOPE, provenance="extraction", id=f"kettle-{n}")
    report = await amem.curate(scope=SCOPE)
    assert report.deduplicated == 1 and report.after.by_reason["duplicate"] == 1
