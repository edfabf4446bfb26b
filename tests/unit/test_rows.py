"""Typed rows at the template boundary: every template that returns rows has one row type,
whose fields are its columns (``_base/records.py``), and the columns a template returns are
read from its statement (``templates.returns``)."""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import graphmem
from graphmem._base import templates
from graphmem._base.errors import TemplateError
from graphmem._base.records import NodeRow, Row, checked, columns_of, typed
from graphmem._memory.entities import KnownRow
from tests.unit.package_modules import package_modules

ROOT = Path(graphmem.__file__).parent


def row_types() -> list[type[Row]]:
    for _ in package_modules():
        pass
    found, todo = [], list(Row.__subclasses__())
    while todo:
        cls = todo.pop()
        # a dataclass with slots is a new class: the one it replaced stays among the
        # subclasses until collected, and a test's own classes are not the package's
        if getattr(sys.modules[cls.__module__], cls.__qualname__, None) is cls:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_each_row_type_is_a_frozen_dataclass_with_the_columns_of_its_templates():
    for cls in row_types():
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls  # type: ignore[attr-defined]
        assert "__slots__" in vars(cls), f"{cls.__name__} keeps a __dict__ per row"
        for name in cls.TEMPLATES:
            assert templates.get(name).columns == columns_of(cls), (cls.__name__, name)
            for variant in templates.variant_names():
                if variant.split(":")[0] == name:
                    assert templates.get(variant).columns == columns_of(cls), (cls.__name__, variant)


def test_no_two_row_types_share_a_name():
    # a name says which rows it is in every module that imports it (issue 50: names that clash)
    names: dict[str, list[str]] = {}
    for cls in row_types():
        names.setdefault(cls.__name__, []).append(cls.__module__)
    assert {name: modules for name, modules in names.items() if len(modules) > 1} == {}


def test_every_template_that_returns_rows_has_exactly_one_row_type():
    # one that names it, or else one shape of its columns (a node, an id) that names no template
    owners: dict[str, list[str]] = {}
    shapes: dict[tuple[str, ...], list[str]] = {}
    for cls in row_types():
        for name in cls.TEMPLATES:
            owners.setdefault(name, []).append(f"{cls.__module__}.{cls.__name__}")
        if not cls.TEMPLATES:
            shapes.setdefault(columns_of(cls), []).append(cls.__name__)
    assert {n: o for n, o in owners.items() if len(o) > 1} == {}
    assert {c: s for c, s in shapes.items() if len(s) > 1} == {}
    returning = {name for name in templates.names() if templates.get(name).columns}
    assert set(owners) - returning == set()
    assert {name for name in returning - set(owners) if templates.get(name).columns not in shapes} == set()
    assert sorted(shapes) == [("id",), ("node",), ("node", "supersededBy")]


_CALL = re.compile(r"\.(run|read|read_in|write_one)\(\s*(?:[a-z_.]+,\s*)?\"([a-z0-9_]+)\"")


def test_no_call_site_reads_a_returning_template_as_untyped_dicts():
    # a literal template name handed to run/read/read_in/write_one must return nothing;
    # templates that return rows go through run_as/read_as/read_in_as/write_one_as
    untyped = []
    for path in sorted(ROOT.rglob("*.py")):
        for method, name in _CALL.findall(path.read_text(encoding="utf-8")):
            if name in templates.names() and templates.get(name).columns:
                untyped.append(f"{path.relative_to(ROOT)}: {method}({name!r})")
    assert untyped == []


def test_a_row_type_that_does_not_fit_its_template_is_refused_naming_both():
    @dataclass(frozen=True, slots=True)
    class Wrong(Row):
        TEMPLATES = ("memory_existing",)
        memory: dict

    with pytest.raises(TemplateError, match=r"'memory_existing' returns columns node; Wrong is built from memory"):
        checked(Wrong, "memory_existing", templates.get("memory_existing").columns)
    with pytest.raises(TemplateError, match=r"'memory_get' returns columns node, supersededBy; NodeRow is built from node"):
        checked(NodeRow, "memory_get", templates.get("memory_get").columns)  # a shared shape: its columns decide
    with pytest.raises(TemplateError, match=r"'memory_existing' is not among KnownRow.TEMPLATES"):
        checked(KnownRow, "memory_existing", ("name", "type", "aliases"))


def test_a_row_is_built_from_a_records_values_in_order_and_made_native():
    from neo4j.time import DateTime

    @dataclass(frozen=True, slots=True)
    class Pair(Row):
        TEMPLATES = ("x",)
        scope_path: str
        valid_from: object

    class Record:  # what the driver hands over: values in column order
        def values(self):
            return ["a/b", DateTime(2026, 1, 2, 3, 4, 5)]

    assert columns_of(Pair) == ("scopePath", "validFrom")
    built = typed(Pair, Record())
    assert built.scope_path == "a/b" and built.valid_from.year == 2026 and type(built.valid_from).__name__ == "datetime"


@pytest.mark.parametrize(("statement", "columns"), [
    ("MATCH (n) RETURN n {.*} AS node", ("node",)),
    ("MATCH (n) RETURN DISTINCT n.id AS id, count(*) AS n ORDER BY id LIMIT 3", ("id", "n")),
    ("MATCH (n) CALL (n) { WITH n RETURN n.x AS x } RETURN x, [a IN [1, 2] | a] AS list", ("x", "list")),
    ("MATCH (n) RETURN n.id", ("n.id",)),
    ("MATCH (a) RETURN a.id AS id UNION MATCH (b) RETURN b.id AS id", ("id",)),
    ("MATCH (n) SET n.x = 1", ()),
    ("MATCH (n) RETURN {a: 1, b: 2} AS map, f(1, 2) AS call SKIP 1", ("map", "call")),
])
def test_the_columns_of_a_statement_are_those_of_its_last_return_outside_brackets(statement, columns):
    assert templates.returns(statement) == columns
