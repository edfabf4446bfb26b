"""The registry of kinds (_base/kinds.py): every table that lists kinds is derived from it, and
the templates and the schema hold each kind it declares."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from graphmem._base import props, records, templates
from graphmem._base.kinds import KINDS, LABELS, REGISTRY
from graphmem._memory import embedded
from graphmem._memory.erase import EraseReport, counted
from graphmem._recall import context

CYPHER = Path(__file__).resolve().parents[2] / "cypher"


def test_each_kind_is_declared_once_with_its_own_model_label_and_section():
    assert len({k.name for k in REGISTRY}) == len({k.label for k in REGISTRY}) == len(REGISTRY)
    assert len({k.section for k in REGISTRY}) == len(REGISTRY)
    for kind in REGISTRY:
        assert kind.model.model_fields["kind"].default == kind.name
    assert KINDS == ("fact", "episode", "entity", "insight", "procedure", "correction", "decision", "note", "summary")


def test_the_tables_that_list_kinds_are_derived_from_the_registry():
    from graphmem.integrations._mcp_tools import Kind

    assert {name: cls for name, cls in records._KINDS.items()} == {k.name: k.model for k in REGISTRY}
    assert {t: k for t, k in props.CREATES.items() if k} == {k.create: k.name for k in REGISTRY}
    assert get_args(Kind) == KINDS
    assert {context._SECTION_OF[k.name]: context.SECTIONS[k.section] for k in REGISTRY} == {
        k.section: k.title for k in REGISTRY}
    assert list(context.SECTIONS)[:len(context.DEFAULT_SECTIONS)] == list(context.DEFAULT_SECTIONS)
    assert LABELS == {**{k.name: k.label for k in REGISTRY}, "chunk": "Chunk"}


@pytest.mark.parametrize("kind", REGISTRY, ids=lambda k: k.name)
def test_each_kind_has_its_create_template_and_its_id_constraint(kind):
    create = templates.get(kind.create).text
    assert re.search(rf"\(\w+:Memory:{kind.label}\b", create), kind.create
    schema = (CYPHER / "schema" / f"schema_{kind.name}_id.cypher").read_text()
    assert f"(n:{kind.label})" in schema and "(n.tenant, n.id) IS UNIQUE" in schema


def test_import_sets_the_label_the_registry_names_and_no_other():
    text = templates.get("import_nodes").text
    assert "SET m:$($labels[row.kind])" in text
    assert not re.search(r"SET m:[A-Z]", text)  # no label written out in the template


def test_a_kind_is_embedded_as_its_registry_entry_says():
    stored = {"text": "Use Postgres", "reasoning": "the team knows it", "trigger": "t", "condition": None}
    for kind in REGISTRY:
        if kind.name == "fact":
            continue  # the predicate is put in words (tests/unit/test_layout_reembed.py)
        want = "\n".join(str(stored[p]) for p in kind.embedded if stored.get(p))
        assert embedded.text_of(kind.name, stored) == want, kind.name


def test_a_kind_without_a_field_of_its_own_in_the_erase_report_is_counted(monkeypatch):
    from graphmem._memory import erase

    monkeypatch.setattr(erase, "KINDS", (*KINDS, "plan"))
    report = counted([{"kind": "plan", "n": 3}, {"kind": "fact", "n": 2}, {"kind": "nope", "n": 1}], chunk=4)
    assert (report.total, report.by_kind) == (6, {"fact": 2, "other": 1, "chunk": 4, "plan": 3})
    both = report + EraseReport(fact=1)
    assert (both.total, both.fact, both.by_kind["plan"]) == (7, 3, 3)
    assert {field for field in EraseReport.model_fields} >= set(KINDS)  # today's kinds are typed fields


def test_the_registry_names_what_imports_check_a_text_against():
    from graphmem._base.errors import InvalidInputError
    from graphmem._memory import import_rules

    long = "x" * 40_000
    from datetime import datetime, timezone

    base = {"id": "a", "scope": "s", "createdAt": datetime(2026, 1, 1, tzinfo=timezone.utc)}
    assert import_rules.node("episode", {**base, "text": long}, "nodes[0]", tenant="t", dimension=None)["text"] == long
    with pytest.raises(InvalidInputError, match=r"nodes\[0\]\.text"):
        import_rules.node("note", {**base, "text": long}, "nodes[0]", tenant="t", dimension=None)
    assert [k.name for k in REGISTRY if k.long_text] == ["episode"]
    assert [k.name for k in REGISTRY if k.text_is_name] == ["entity"]
