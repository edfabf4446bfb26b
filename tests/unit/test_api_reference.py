"""Unit tests for tools/apidoc.py: the API reference is built from docstrings, and a public
name without one is caught (on graphmem itself and on small packages made here)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import textwrap
from pathlib import Path

import pdoc.doc
import pytest

import graphmem
from graphmem._base import public

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("graphmem_tools_apidoc_tests", ROOT / "tools" / "apidoc.py")
apidoc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(apidoc)


@pytest.fixture
def make_package(tmp_path, monkeypatch):
    """Write a package ``name`` with the given files into tmp_path and import it."""
    made: list[str] = []

    def make(name: str, files: dict[str, str]):
        folder = tmp_path / name
        folder.mkdir()
        for filename, source in files.items():
            (folder / filename).write_text(textwrap.dedent(source))
        monkeypatch.syspath_prepend(str(tmp_path))
        made.append(name)
        return importlib.import_module(name)

    yield make
    for name in made:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


DOCUMENTED = {
    "_mixin.py": '''
        """A private mixin, the way Memory's methods live in private modules."""

        class Mixin:
            def shared(self) -> int:
                """A documented method every user sees on the public class."""
                return 1
        ''',
    "__init__.py": '''
        """A small documented package. ``LIMIT`` caps everything."""

        import dataclasses
        import enum

        from ._mixin import Mixin

        LIMIT = 10


        class Colour(enum.Enum):
            """Colours (members are values, not names to document)."""

            RED = "red"

            @property
            def warm(self) -> bool:
                """Whether the colour is warm."""
                return True


        class Base(Exception):
            """Every error of the package."""


        class Child(Base):
            """A narrower error."""


        @dataclasses.dataclass
        class Pair:
            """Two numbers."""

            left: int
            """The first."""
            right: int = 0
            """The second."""


        class Front(Mixin):
            """The front door."""

            @property
            def name(self) -> str:
                """What it is called."""
                return "front"

            def own(self) -> None:
                """Its own method."""


        def helper() -> int:
            """Help."""
            return 2


        __all__ = ["LIMIT", "Base", "Child", "Colour", "Front", "Pair", "helper"]
        ''',
}


def test_a_fully_documented_package_passes(make_package):
    module = make_package("apidoc_documented", DOCUMENTED)
    assert apidoc.missing_docstrings(module) == []


def test_an_undocumented_public_method_inherited_from_a_private_mixin_is_named(make_package):
    files = dict(DOCUMENTED)
    files["_mixin.py"] = files["_mixin.py"].replace(
        '"""A documented method every user sees on the public class."""', "")
    module = make_package("apidoc_mixin", files)
    assert apidoc.missing_docstrings(module) == ["apidoc_mixin.Front.shared (defined in apidoc_mixin._mixin.Mixin.shared)"]


def test_every_kind_of_undocumented_public_name_is_named(make_package):
    module = make_package("apidoc_bare", {
        "__init__.py": '''
            """A package whose docstring names no constant (a bare LIMIT is not enough)."""

            import dataclasses
            import enum

            LIMIT = 10


            class Colour(enum.Enum):
                """Colours."""

                RED = "red"

                @property
                def warm(self) -> bool:
                    return True


            class Base(Exception):
                """Every error of the package."""


            class Child(Base):
                pass


            @dataclasses.dataclass
            class Pair:
                left: int
                right: int = 0
                """The second."""


            class Front:
                """The front door."""

                @property
                def name(self) -> str:
                    return "front"

                def own(self) -> None:
                    pass

                def _private(self) -> None:
                    pass


            def helper() -> int:
                return 2


            __all__ = ["LIMIT", "Base", "Child", "Colour", "Front", "Pair", "helper"]
            ''',
    })
    assert apidoc.missing_docstrings(module) == [
        "apidoc_bare.LIMIT (a constant: name it in the package docstring)",
        "apidoc_bare.Child",  # its parent's docstring does not count
        "apidoc_bare.Colour.warm",  # a property of an enum, though its members are not names to document
        "apidoc_bare.Front.name",
        "apidoc_bare.Front.own",
        "apidoc_bare.Pair",  # the signature dataclasses writes does not count
        "apidoc_bare.Pair.left",
        "apidoc_bare.helper",
    ]


def test_a_field_named_in_its_class_docstring_counts_as_documented_but_a_property_does_not(make_package):
    module = make_package("apidoc_named", {
        "__init__.py": '''
            """Settings."""

            import dataclasses


            @dataclasses.dataclass
            class Knobs:
                """``speed``: how fast (the other field is left out here)."""

                speed: int = 1
                size: int = 2

                @property
                def doubled(self) -> int:
                    return 2 * self.speed


            __all__ = ["Knobs"]
            ''',
    })
    assert apidoc.missing_docstrings(module) == ["apidoc_named.Knobs.size", "apidoc_named.Knobs.doubled"]


def test_check_fails_with_the_names_and_build_writes_the_reference(make_package, tmp_path, capsys):
    files = dict(DOCUMENTED)
    files["__init__.py"] = files["__init__.py"].replace('"""Help."""', "")
    make_package("apidoc_cli", files)
    assert apidoc.main(["--check", "--module", "apidoc_cli"]) == 1
    err = capsys.readouterr().err
    assert "no docstring: apidoc_cli.helper" in err
    assert "1 problem(s)" in err
    out = tmp_path / "site"
    assert apidoc.main(["--module", "apidoc_cli", "--out", str(out)]) == 0
    page = (out / "apidoc_cli.html").read_text()
    # a member inherited from the private mixin is rendered in full on the public class
    assert 'id="Front.shared"' in page and "A documented method every user sees" in page


def test_pdoc_warnings_are_reported(make_package, tmp_path):
    files = dict(DOCUMENTED)
    files["__init__.py"] = files["__init__.py"].replace(
        "def helper() -> int:", 'def helper() -> "NoSuchName":')
    make_package("apidoc_warn", files)
    warned = apidoc.build("apidoc_warn", tmp_path / "site")
    assert any("NoSuchName" in w for w in warned), warned


def test_graphmem_has_a_docstring_for_every_public_name():
    assert apidoc.missing_docstrings(graphmem) == []


def _map_names() -> list[str]:
    """The names docs/api.md's "Where things are" section mentions in backticks."""
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    names = []
    for token in re.findall(r"`([^`]+)`", section):
        name = token.lstrip(".").split("(", 1)[0]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            names.append(name)
    return names


def test_the_map_in_api_md_names_every_public_name_and_only_real_ones():
    named = set(_map_names())
    public_methods = {n for n in dir(graphmem.Memory) if not n.startswith("_")}
    exported = {n for n in graphmem.__all__ if not n.startswith("_")}
    assert public_methods - named == set(), "Memory methods missing from docs/api.md"
    assert exported - named == set(), "graphmem.__all__ names missing from docs/api.md"
    with public.as_written():  # pdoc reads the classes' source where they are written (graphmem/_base/public.py)
        module = pdoc.doc.Module(graphmem)  # its members include instance attributes (ModelError.purpose)
        attributes = {a for n in exported if isinstance(module.get(n), pdoc.doc.Class) for a in module.get(n).members}
    assert named - exported - public_methods - attributes == set(), "docs/api.md names what does not exist"
