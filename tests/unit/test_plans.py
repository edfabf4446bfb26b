"""Unit tests for the pure write plans: facts (graphmem/_memory/facts.py), entities (_memory/entities.py)
and the shared configuration (_memory/core.py)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import DEFAULT_SINGLE_VALUED, InvalidInputError
from graphmem._memory import entities, facts
from graphmem._memory.core import Core

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)


def core(**overrides) -> Core:
    options = dict(tenant="t1", embedder=None, clock=lambda: NOW, single_valued_predicates=None,
                   contradiction_threshold=0.9)
    options.update(overrides)
    return Core(**options)


def plan(item, c=None):
    c = c or core()
    return facts.row(item, tenant=c.tenant, now=NOW, single_valued=c.single_valued_predicates, dimension=None)


def plan_many(items, c=None):
    c = c or core()
    return facts.rows(items, tenant=c.tenant, now=NOW, single_valued=c.single_valued_predicates, dimension=None)


def fact(**fields):
    return {"text": "Alice lives in Paris", "scope": "acme/alice", **fields}


def test_fact_row_minimal_defaults():
    row = plan(fact())
    p = row["props"]
    assert p["text"] == "Alice lives in Paris"
    assert p["textKey"] == "alice lives in paris"
    assert p["scope"] == "acme/alice"
    assert p["validFrom"] == NOW
    assert p["validTo"] is None and p["closedAt"] is None
    assert p["provenance"] == "manual"
    assert p["status"] == "active"
    assert p["sensitivity"] == "internal"
    assert p["importance"] == 0.5
    assert p["singleValued"] is False
    assert p["id"] and isinstance(p["id"], str)
    assert row["chain"] == ["acme", "acme/alice"]
    assert row["derivedFrom"] == []


def test_fact_row_unknown_field_is_named():
    with pytest.raises(InvalidInputError) as info:
        plan(fact(colour="red"))
    assert info.value.field == "colour"
    assert "not a field of remember()" in info.value.message


def test_fact_row_subject_without_predicate():
    with pytest.raises(InvalidInputError) as info:
        plan(fact(subject="alice"))
    assert info.value.field == "predicate"
    with pytest.raises(InvalidInputError) as info:
        plan(fact(predicate="lives_in"))
    assert info.value.field == "subject"


def test_fact_row_valid_to_before_valid_from():
    start = NOW - timedelta(days=10)
    with pytest.raises(InvalidInputError) as info:
        plan(fact(valid_from=start, valid_to=start - timedelta(days=1)))
    assert info.value.field == "valid_to"
    with pytest.raises(InvalidInputError) as info:
        plan(fact(valid_from=datetime(2024, 1, 1)))  # naive
    assert info.value.field == "valid_from"


def test_fact_row_closed_interval_sets_closed_at():
    start, end = NOW - timedelta(days=10), NOW - timedelta(days=1)
    p = plan(fact(valid_from=start, valid_to=end))["props"]
    assert (p["validFrom"], p["validTo"], p["closedAt"]) == (start, end, NOW)


def test_fact_row_single_valued_default_from_predicate():
    c = core()
    assert "lives_in" in DEFAULT_SINGLE_VALUED
    assert plan(fact(subject="alice", predicate="Lives In"), c)["props"]["singleValued"] is True
    assert plan(fact(subject="alice", predicate="likes"), c)["props"]["singleValued"] is False
    # an explicit value wins over the default
    assert plan(fact(subject="alice", predicate="lives_in", single_valued=False), c)["props"]["singleValued"] is False


def test_fact_row_custom_single_valued_predicates():
    c = core(single_valued_predicates=["Favourite Colour"])
    assert c.single_valued_predicates.names == frozenset({"favourite_colour"})
    assert plan(fact(subject="a", predicate="favouriteColour"), c)["props"]["singleValued"] is True
    assert plan(fact(subject="a", predicate="lives_in"), c)["props"]["singleValued"] is False


def test_fact_row_single_valued_needs_predicate_and_bool():
    with pytest.raises(InvalidInputError) as info:
        plan(fact(single_valued=True))
    assert info.value.field == "single_valued"
    with pytest.raises(InvalidInputError) as info:
        plan(fact(subject="a", predicate="p", single_valued="yes"))
    assert info.value.field == "single_valued"


@pytest.mark.parametrize("provenance, status", [
    ("reflection", "quarantined"),
    ("induction", "quarantined"),
    ("extraction", "active"),
    ("user", "active"),
])
def test_fact_row_status_follows_provenance(provenance, status):
    p = plan(fact(provenance=provenance))["props"]
    assert p["provenance"] == provenance
    assert p["status"] == status


def test_fact_row_object_must_be_string():
    with pytest.raises(InvalidInputError) as info:
        plan(fact(subject="a", predicate="age", object=42))
    assert info.value.field == "object"


def test_fact_rows_prefixes_field_of_bad_item():
    items = [fact(), fact(), fact(importance=3), fact()]
    with pytest.raises(InvalidInputError) as info:
        plan_many(items)
    assert info.value.field.startswith("items[2].")
    assert info.value.field == "items[2].importance"


def test_fact_rows_rejects_non_mapping_item_and_mapping_batch():
    with pytest.raises(InvalidInputError) as info:
        plan_many([fact(), "oops"])
    assert info.value.field == "items[1]"
    with pytest.raises(InvalidInputError) as info:
        plan_many(fact())
    assert info.value.field == "items"


def test_fact_rows_rejects_duplicate_ids():
    with pytest.raises(InvalidInputError) as info:
        plan_many([fact(id="x"), fact(id="y"), fact(id="x")])
    assert info.value.field == "items[2].id"
    assert "items[0].id" in info.value.message
    rows = plan_many([fact(id="a"), fact(id="b", scope="other")])
    assert [r["props"]["id"] for r in rows] == ["a", "b"]
    assert rows[1]["chain"] == ["other"]


def test_supersede_waves_splits_same_key_by_valid_time():
    c = core()
    t0 = NOW - timedelta(days=300)
    items = [
        fact(id="late", subject="alice", predicate="lives_in", valid_from=t0 + timedelta(days=200)),
        fact(id="early", subject="alice", predicate="lives_in", valid_from=t0),
        fact(id="mid", subject="alice", predicate="lives_in", valid_from=t0 + timedelta(days=100)),
        fact(id="bob", subject="bob", predicate="lives_in", provenance="extraction"),
        fact(id="multi", subject="alice", predicate="likes"),  # not single-valued
        fact(id="plain"),  # no subject
    ]
    waves = facts.supersede_waves(plan_many(items, c))
    assert [[w["id"] for w in wave] for wave in waves] == [["early", "bob"], ["mid"], ["late"]]
    explicit = {w["id"]: w["explicit"] for wave in waves for w in wave}
    assert explicit["bob"] is False and explicit["early"] is True
    # supersession acts within the fact's own scope, which fact_supersede reads from the node
    assert set(waves[0][0]) == {"id", "explicit"}
    assert facts.supersede_waves(plan_many(items[4:], c)) == []  # nothing single-valued


def _entity(**kw):
    return entities.props(kw.pop("name", "Acme"), tenant="t1", type="org", scope="acme", aliases=kw.pop("aliases", None),
                               properties=kw.pop("properties", None), id=None, importance=None,
                               sensitivity=None, provenance="manual")


def test_merged_entity_adds_new_aliases_and_properties():
    existing = _entity(name="Acme", properties={"a": 1, "b": 2})
    new = _entity(name="ACME Corp", aliases=["acme", "Acme Inc."], properties={"b": 3})
    merged = entities.merged(existing, new)
    assert merged["aliases"] == ["ACME Corp", "Acme Inc."]  # "acme" is the name itself
    assert merged["aliasKeys"] == ["acme corp", "acme inc"]
    assert json.loads(merged["propertiesJson"]) == {"a": 1, "b": 3}


def test_merged_entity_returns_none_when_nothing_changes():
    existing = _entity(name="Acme", aliases=["Acme Inc"], properties={"a": 1})
    same = _entity(name="ACME", aliases=["acme inc."], properties={"a": 1})
    assert entities.merged(existing, same) is None


def test_core_rejects_bad_threshold_and_tenant():
    with pytest.raises(InvalidInputError) as info:
        core(contradiction_threshold=0.0)
    assert info.value.field == "contradiction_threshold"
    with pytest.raises(InvalidInputError) as info:
        core(tenant="")
    assert info.value.field == "tenant"

