"""Procedures against a real Neo4j: author-defined rules, induction from trajectories
(deterministic and with a scripted chat model), merging, suggestion, binding, outcomes
and demotion."""

from __future__ import annotations

import pytest

from graphmem import AsyncMemory, InvalidInputError, LearningSettings, Memory, ModelError, NotFoundError
from tests.fakes import scripted, tool_answer

SHOES = [
    {"tool": "search", "args": {"query": "running shoes"}, "result": {"product_id": "p-42"}},
    {"tool": "add_to_cart", "args": {"product_id": "p-42", "quantity": 2}, "result": "ok"},
    {"tool": "checkout", "args": {"address": "1 Main St"}, "result": {"status": "paid"}},
]
SOCKS = [
    {"tool": "search", "args": {"query": "wool socks"}, "result": {"product_id": "p-7"}},
    {"tool": "add_to_cart", "args": {"product_id": "p-7", "quantity": 5}, "result": "ok"},
    {"tool": "checkout", "args": {"address": "9 Elm Rd"}, "result": {"status": "paid"}},
]


def believed_procedures(driver, tenant: str) -> list[str]:
    records, _, _ = driver.execute_query(
        "MATCH (p:Procedure {tenant: $t}) WHERE p.invalidatedAt IS NULL RETURN p.id AS id", {"t": tenant})
    return [r["id"] for r in records]


def test_an_author_defined_procedure_is_active_and_binds(memory):
    proc = memory.add_procedure(
        "Refund a damaged order", scope="shop", trigger="customer reports a damaged item",
        condition="order is less than 30 days old", priority=5,
        steps=["look up order {order_id}", "refund {amount} to the original card", "email {customer}"],
        success_criteria="refund {amount} confirmed",
    )
    assert (proc.status.value, proc.provenance.value, proc.priority) == ("active", "manual", 5)
    assert proc.variables == ("order_id", "amount", "customer")
    assert memory.bind(proc.id, order_id="A1", amount="$20", customer="Ann") == [
        "look up order A1", "refund $20 to the original card", "email Ann"]
    with pytest.raises(InvalidInputError) as missing:
        memory.bind(proc, order_id="A1", amount="$20")
    assert missing.value.field == "customer"
    with pytest.raises(InvalidInputError) as unknown:
        memory.bind(proc, order_id="A1", amount="$20", customer="Ann", cusotmer="x")
    assert unknown.value.field == "cusotmer"


@pytest.mark.parametrize("kwargs, field", [
    ({"steps": ["pay {amount}"], "variables": ["total"]}, "variables[0]"),
    ({"steps": ["pay {amount}", "ship {item}"], "variables": ["amount"]}, "steps[1]"),
    ({"priority": True}, "priority"),
    ({"steps": "pay"}, "steps"),
    ({"provenance": "gossip"}, "provenance"),
    ({"scope": "a//b"}, "scope"),
])
def test_bad_procedures_are_refused(memory, driver, kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        memory.add_procedure("Pay", **{"scope": "shop", **kwargs})
    assert info.value.field == field
    assert believed_procedures(driver, memory.tenant) == []


def test_induction_abstracts_values_and_cites_the_trajectory(memory, driver):
    proc = memory.induce_procedure(SHOES, scope="shop")
    assert (proc.provenance.value, proc.status.value) == ("induction", "quarantined")
    assert proc.steps == (
        "search(query={query})",
        "add_to_cart(product_id={product_id}, quantity={quantity})",
        "checkout(address={address})",
    )
    assert proc.variables == ("query", "product_id", "quantity", "address")
    assert proc.success_criteria == 'checkout completes and returns {"status": "paid"}'
    records, _, _ = driver.execute_query(
        "MATCH (:Procedure {tenant: $t, id: $id})-[:CITES]->(e:Episode) RETURN e.role AS role, e.text AS text "
        "ORDER BY e.occurredAt", {"t": memory.tenant, "id": proc.id})
    assert [r["role"] for r in records] == ["tool"] * 3 and '"running shoes"' in records[0]["text"]
    steps = memory.bind(proc, query="hiking boots", product_id="p-9", quantity=1, address="2 Oak Ave")
    assert steps[0] == "search(query=hiking boots)" and steps[1] == "add_to_cart(product_id=p-9, quantity=1)"
    # from the stored episodes, in order, the same procedure comes back (merged, not duplicated)
    again = memory.induce_procedure(_episode_ids(driver, memory.tenant, proc.id), scope="shop")
    assert again.steps == proc.steps
    assert believed_procedures(driver, memory.tenant) == [again.id]


def _episode_ids(driver, tenant: str, proc_id: str) -> list[str]:
    records, _, _ = driver.execute_query(
        "MATCH (:Procedure {tenant: $t, id: $id})-[:CITES]->(e:Episode) RETURN e.id AS id ORDER BY e.occurredAt",
        {"t": tenant, "id": proc_id})
    return [r["id"] for r in records]


def test_a_procedure_learned_twice_is_merged(memory, driver):
    first = memory.induce_procedure(SHOES, scope="shop")
    validated = memory.validate(first.id)
    memory.record_outcome(first.id, True)
    second = memory.induce_procedure(SOCKS, scope="shop")
    assert believed_procedures(driver, memory.tenant) == [second.id]
    old = memory.get(first.id)
    assert old.invalidation_reason == "merged"
    assert old.superseded_by[0].by == second.id and old.superseded_by[0].reason == "merged"
    assert len(second.cites) == 6 and set(first.cites) < set(second.cites)
    assert second.success_count == 1 and second.status.value == validated.status.value == "active"
    other = memory.induce_procedure([SHOES[0]], scope="shop")  # a different workflow stays separate
    assert sorted(believed_procedures(driver, memory.tenant)) == sorted([second.id, other.id])


def test_induction_with_a_model_checks_abstraction_and_retries(memory):
    leaky = tool_answer("ProcedureDraft", {
        "text": "Buy a product", "steps": ["search for running shoes", "add {quantity} to cart", "check out"],
        "variables": ["quantity"], "success_criteria": "order is paid"})
    good = tool_answer("ProcedureDraft", {
        "text": "Buy a product online", "trigger": "the user wants to buy something",
        "steps": ["search for {product}", "add {quantity} of the first hit to the cart", "check out to {address}"],
        "variables": ["product", "quantity", "address"], "success_criteria": "checkout reports status paid"})
    llm = scripted(leaky, good)
    proc = memory.induce_procedure(SHOES, scope="shop", llm=llm)
    assert llm.calls == 2
    assert proc.steps[0] == "search for {product}" and proc.trigger == "the user wants to buy something"
    assert memory.bind(proc, product="socks", quantity=3, address="x") == [
        "search for socks", "add 3 of the first hit to the cart", "check out to x"]
    undeclared = tool_answer("ProcedureDraft", {"text": "t", "steps": ["pay {amount}"], "variables": []})
    with pytest.raises(ModelError) as info:
        memory.induce_procedure(SOCKS, scope="shop", llm=scripted(*[undeclared] * 3))
    assert "undeclared variables" in info.value.attempts[-1]


def test_suggestions_rank_by_relevance_success_and_priority_and_respect_quarantine(memory):
    refund = memory.add_procedure("Refund a damaged order", scope="shop", trigger="customer reports a damaged item",
                                  steps=["refund {order}"])
    replace = memory.add_procedure("Replace a damaged order", scope="shop", trigger="customer reports a damaged item",
                                   steps=["ship a replacement for {order}"], priority=3)
    induced = memory.induce_procedure(SHOES, scope="shop", text="Buy a product for a customer")
    memory.add_procedure("Escalate legal threats", scope="shop", trigger="customer threatens to sue")
    memory.add_procedure("Damaged item in another shop", scope="other", trigger="customer reports a damaged item")
    task = "a customer reports a damaged item"
    ranked = [s.procedure.id for s in memory.suggest_procedures(task, scope="shop")]
    assert ranked[:2] == [replace.id, refund.id]  # same relevance: priority decides
    for _ in range(3):
        memory.record_outcome(refund.id, True)
    ranked = memory.suggest_procedures(task, scope="shop", k=2)
    assert [s.procedure.id for s in ranked] == [refund.id, replace.id]  # a track record beats priority 3
    assert ranked[0].success_rate == pytest.approx(0.8)
    buy = "buy a product for a customer"
    assert induced.id not in [s.procedure.id for s in memory.suggest_procedures(buy, scope="shop", k=5)]
    informed = {s.procedure.id: s for s in memory.suggest_procedures(buy, scope="shop", k=5, purpose="inform")}
    assert informed[induced.id].quarantined
    with pytest.raises(InvalidInputError) as info:
        memory.suggest_procedures(task, scope="shop", k=0)
    assert info.value.field == "k"


def test_outcomes_are_counted_and_failing_procedures_are_demoted(neo4j, schema, embedder, tenant, driver):
    settings = LearningSettings(max_failure_rate=0.5, min_outcomes=4)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, learning=settings) as m:
        proc = m.add_procedure("Reset a password", scope="it", trigger="user forgot password", steps=["send reset link to {email}"])
        run = m.add_episode("reset link sent, user locked out", scope="it", role="tool")
        after = m.record_outcome(proc.id, False, episode_id=run.id)
        assert (after.failure_count, after.status.value) == (1, "active") and after.last_used_at is not None
        m.record_outcome(proc.id, True)
        m.record_outcome(proc.id, False)
        assert m.get(proc.id).status.value == "active"  # 2 of 3: not enough outcomes yet
        demoted = m.record_outcome(proc.id, False)
        assert (demoted.status.value, demoted.success_count, demoted.failure_count) == ("quarantined", 1, 3)
        assert "active -> quarantined (demoted: failure rate above 0.5)" in demoted.status_log[-1]
        assert m.suggest_procedures("user forgot password", scope="it") == []
        records, _, _ = driver.execute_query(
            "MATCH (:Procedure {tenant: $t, id: $id})-[o:OUTCOME]->(e:Episode) RETURN o.success AS ok, e.id AS id",
            {"t": tenant, "id": proc.id})
        assert [(r["ok"], r["id"]) for r in records] == [(False, run.id)]
        with pytest.raises(NotFoundError):
            m.record_outcome("missing", True)
        with pytest.raises(InvalidInputError) as info:
            m.record_outcome(proc.id, True, episode_id=proc.id)
        assert info.value.field == "episode_id"
        with pytest.raises(InvalidInputError) as info:
            m.record_outcome(proc.id, "yes")
        assert info.value.field == "success"


@pytest.mark.parametrize("trajectory, field", [
    ([], "trajectory"), ("search", "trajectory"), ([{"tool": ""}], "trajectory[0].tool"),
    ([{"tool": "x", "argz": {}}], "trajectory[0].argz"), (["no-such-episode"], "trajectory[0]"),
])
def test_bad_trajectories_are_refused(memory, driver, trajectory, field):
    with pytest.raises(InvalidInputError) as info:
        memory.induce_procedure(trajectory, scope="shop")
    assert info.value.field == field
    assert believed_procedures(driver, memory.tenant) == []


async def test_async_procedures(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        proc = await m.induce_procedure(SOCKS, scope="shop")
        await m.validate(proc.id)
        [hit] = await m.suggest_procedures("search add_to_cart checkout", scope="shop")
        assert hit.procedure.id == proc.id
        assert (await m.bind(proc.id, query="q", product_id="p", quantity=1, address="a"))[0] == "search(query=q)"


def test_induction_never_retires_what_people_wrote_or_what_other_scopes_share(memory, driver):
    manual = memory.add_procedure("Buy", scope="shop", steps=[
        "search(query={query})", "add_to_cart(product_id={product_id}, quantity={quantity})", "checkout(address={address})"])
    shared = memory.induce_procedure(SHOES, scope="shop")
    child = memory.induce_procedure(SOCKS, scope="shop/eu")
    assert sorted(believed_procedures(driver, memory.tenant)) == sorted([manual.id, shared.id, child.id])
    assert memory.get(child.id).status.value == "quarantined"
    manual_twin = memory.induce_procedure(SOCKS, scope="shop")  # merges the induced one, not the manual one
    assert memory.get(shared.id).invalidation_reason == "merged" and memory.get(manual.id).believed
    assert manual_twin.status.value == "quarantined"  # never validated: nothing to carry over
    with pytest.raises(InvalidInputError) as info:
        memory.suggest_procedures(" ", scope="shop")
    assert info.value.field == "task"
