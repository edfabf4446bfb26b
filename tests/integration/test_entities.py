"""Entities, resolution by name and alias, relate() and the RELATES projection."""

from __future__ import annotations

import pytest

from graphmem import NotFoundError

from .helpers import utc


def relates(driver, tenant):
    records, _, _ = driver.execute_query(
        "MATCH (a:Entity {tenant: $t})-[r:RELATES]->(b:Entity {tenant: $t}) "
        "RETURN a.name AS a, b.name AS b, r.predicate AS p, r.validTo AS validTo, r.invalidatedAt AS inv, r.factId AS fact "
        "ORDER BY r.validFrom", {"t": tenant})
    return [r.data() for r in records]


def test_upsert_resolves_case_spacing_and_aliases(memory):
    a = memory.upsert_entity("Acme Corp", type="org", scope="acme", aliases=["ACME"], properties={"hq": "Berlin"})
    b = memory.upsert_entity("  acme   corp ", type="org", scope="acme/sales")
    c = memory.upsert_entity("ACME", type="org", scope="acme", properties={"founded": 1999})
    d = memory.upsert_entity("Acme Corporation", type="org", scope="acme", aliases=["acme corp"])
    assert a.id == b.id == c.id == d.id
    assert d.properties == {"hq": "Berlin", "founded": 1999}
    assert "Acme Corporation" in d.aliases
    other_type = memory.upsert_entity("Acme Corp", type="product", scope="acme")
    assert other_type.id != a.id


def test_relate_writes_fact_about_edges_and_projection(memory, driver):
    alice = memory.upsert_entity("Alice", type="person", scope="acme")
    paris = memory.upsert_entity("Paris", type="city", scope="acme")
    berlin = memory.upsert_entity("Berlin", type="city", scope="acme")
    first = memory.relate(alice, "lives in", paris, scope="acme/hr", valid_from=utc(2020))
    assert first.text == "Alice lives in Paris" and first.predicate == "lives_in"
    second = memory.relate(alice.id, "lives_in", berlin.id, scope="acme/hr", valid_from=utc(2023))
    rows = relates(driver, memory.tenant)
    assert [(r["a"], r["p"], r["b"]) for r in rows] == [("Alice", "lives_in", "Paris"), ("Alice", "lives_in", "Berlin")]
    assert rows[0]["validTo"].to_native() == utc(2023) and rows[1]["validTo"] is None
    assert rows[0]["fact"] == first.id and rows[1]["fact"] == second.id
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {tenant: $t, id: $id})-[a:ABOUT]->(e:Entity) RETURN a.role AS role, e.name AS name ORDER BY role",
        {"t": memory.tenant, "id": second.id})
    assert [(r["role"], r["name"]) for r in records] == [("object", "Berlin"), ("subject", "Alice")]
    memory.correct(second.id, "Alice lives in Paris again", object=paris.id)
    rows = relates(driver, memory.tenant)
    assert [r["inv"] is not None for r in rows if r["fact"] == second.id] == [True]


def test_relate_needs_visible_entities(memory):
    alice = memory.upsert_entity("Alice", type="person", scope="acme/a")
    bob = memory.upsert_entity("Bob", type="person", scope="acme/b")
    with pytest.raises(NotFoundError, match="object_entity"):
        memory.relate(alice, "knows", bob, scope="acme/a")
