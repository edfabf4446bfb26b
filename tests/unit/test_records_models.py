"""Unit tests for node-map conversion (graphmem/_base/records.py) and the models (graphmem/_base/models.py)."""

from __future__ import annotations

import ast
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from neo4j.time import DateTime as Neo4jDateTime
from pydantic import ValidationError

from graphmem import Entity, Episode, Fact, Procedure, Provenance, Scope, Sensitivity, Status, Supersession
from graphmem._base import models as _models
from graphmem._base.kinds import KINDS
from graphmem._base.models import MemoryRecord
from graphmem._base.records import to_record

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def node(kind="fact", **extra):
    base = {"kind": kind, "id": "m1", "tenant": "t", "scope": "acme", "text": "Alice lives in Paris",
            "createdAt": T0, "textKey": "alice lives in paris", "closedAt": None}
    base.update(extra)
    return base


def test_to_record_fact_maps_camel_case_fields():
    record = to_record(node(
        subject="alice", predicate="lives_in", object="paris", validFrom=T0, validTo=T0 + timedelta(days=1),
        singleValued=True, userId="u1", agentId="a1", sessionId="s1", provenance="user", status="quarantined",
        sensitivity="confidential", importance=0.8, tags=["home"],
    ))
    assert isinstance(record, Fact)
    assert record.created_at == T0
    assert (record.subject, record.predicate, record.object) == ("alice", "lives_in", "paris")
    assert record.valid_from == T0 and record.valid_to == T0 + timedelta(days=1)
    assert record.single_valued is True
    assert (record.user_id, record.agent_id, record.session_id) == ("u1", "a1", "s1")
    assert record.provenance is Provenance.USER
    assert record.status is Status.QUARANTINED
    assert record.sensitivity is Sensitivity.CONFIDENTIAL
    assert record.tags == ("home",)
    assert record.superseded_by == ()


def test_to_record_converts_neo4j_temporals():
    record = to_record(node(createdAt=Neo4jDateTime.from_native(T0), validFrom=Neo4jDateTime.from_native(T0)))
    assert isinstance(record.created_at, datetime)
    assert record.created_at == T0 and record.valid_from == T0


def test_to_record_kind_selects_model_and_drops_internal_keys():
    episode = to_record(node("episode", role="assistant", occurredAt=T0, source="chat"))
    assert isinstance(episode, Episode)
    assert (episode.role, episode.occurred_at, episode.source) == ("assistant", T0, "chat")
    entity = to_record(node("entity", name="Acme", type="org", aliases=["ACME"], nameKey="acme",
                            aliasKeys=["acme"], propertiesJson='{"size": 3}'))
    assert isinstance(entity, Entity)
    assert entity.properties == {"size": 3}
    assert entity.aliases == ("ACME",)
    dumped = entity.model_dump()
    for internal in ("textKey", "nameKey", "aliasKeys", "closedAt", "propertiesJson", "text_key"):
        assert internal not in dumped
    procedure = to_record(node("procedure", steps=["a", "b"], successCount=2, lastUsedAt=T0))
    assert isinstance(procedure, Procedure)
    assert procedure.steps == ("a", "b") and procedure.success_count == 2 and procedure.last_used_at == T0


def test_to_record_unknown_kind_raises():
    with pytest.raises(KeyError):
        to_record(node("gossip"))


def test_to_record_superseded_by():
    record = to_record(node(), superseded_by=[
        {"by": "m2", "reason": "contradiction", "at": Neo4jDateTime.from_native(T0), "note": "moved"},
        {"by": None, "reason": None, "at": None},  # OPTIONAL MATCH with no edge: skipped
    ])
    assert record.superseded_by == (Supersession(by="m2", reason="contradiction", at=T0, note="moved"),)
    assert isinstance(record.superseded_by[0].at, datetime)


def test_kinds_name_every_record_model_and_the_kind_docstring_lists_them_all():
    models = MemoryRecord.__subclasses__()
    assert sorted(KINDS) == sorted(cls.model_fields["kind"].default for cls in models)
    source = ast.parse(Path(_models.__file__).read_text(encoding="utf-8"))
    record = next(n for n in source.body if isinstance(n, ast.ClassDef) and n.name == "MemoryRecord")
    fields = record.body
    at = next(i for i, n in enumerate(fields) if isinstance(n, ast.AnnAssign) and n.target.id == "kind")
    docstring = fields[at + 1].value.value
    assert [k for k in KINDS if f"``{k}``" not in docstring] == []


def test_provenance_trust_order():
    P = Provenance
    assert P.HUMAN_CORRECTION.trust > P.USER.trust > P.MANUAL.trust > P.EXTRACTION.trust > P.REFLECTION.trust
    assert P.REFLECTION.trust == P.INDUCTION.trust
    assert {p for p in P if p.automatic} == {P.EXTRACTION, P.REFLECTION, P.INDUCTION}


def test_sensitivity_level_order():
    levels = [s.level for s in (Sensitivity.PUBLIC, Sensitivity.INTERNAL, Sensitivity.CONFIDENTIAL, Sensitivity.RESTRICTED)]
    assert levels == sorted(levels) and len(set(levels)) == 4


def test_scope_chain_and_parent():
    scope = Scope(path="acme/support/alice")
    assert scope.chain == ["acme", "acme/support", "acme/support/alice"]
    assert scope.parent == Scope(path="acme/support")
    assert scope.parent.parent.parent is None
    with pytest.raises(ValidationError):
        Scope(path="acme//alice")


def test_fact_valid_at_is_half_open():
    fact = Fact(id="f", tenant="t", scope="s", text="x", created_at=T0,
                valid_from=T0, valid_to=T0 + timedelta(days=1))
    assert not fact.valid_at(T0 - timedelta(seconds=1))
    assert fact.valid_at(T0)
    assert fact.valid_at(T0 + timedelta(hours=12))
    assert not fact.valid_at(T0 + timedelta(days=1))
    open_ended = Fact(id="g", tenant="t", scope="s", text="x", created_at=T0)
    assert open_ended.valid_at(T0 - timedelta(days=10_000))
    assert open_ended.believed


def test_native_converts_nested_driver_values_and_passes_plain_ones_through():
    from graphmem._base.records import native, row

    value = {"at": Neo4jDateTime.from_native(T0), "list": [Neo4jDateTime.from_native(T0), 1, "x", None],
             "flag": True, "n": 2.5, "nested": {"deep": [Neo4jDateTime.from_native(T0)]}}
    out = native(value)
    assert out == {"at": T0, "list": [T0, 1, "x", None], "flag": True, "n": 2.5, "nested": {"deep": [T0]}}
    assert type(out["at"]) is type(T0) and out["flag"] is True
    assert row({"a": Neo4jDateTime.from_native(T0), "b": "plain"}) == {"a": T0, "b": "plain"}
