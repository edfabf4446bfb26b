"""Build graphmem's API reference from its docstrings, and check that none is missing.

    python tools/apidoc.py                 build the HTML reference into site/ (``make docs``)
    python tools/apidoc.py --check         list every public name without a docstring and
                                           build the reference into a temporary folder with
                                           pdoc's warnings treated as errors (``make test``)
    python tools/apidoc.py --out DIR       build into DIR instead of site/

The reference is rendered by pdoc (see docs/api.md for why pdoc) from the live objects that
``import graphmem`` exposes, so it always shows what users get, including the generated sync
``Memory``. What counts as public, and so needs a docstring:

- every name in the package's ``__all__``: a class or callable needs its own docstring (a
  class does not borrow its parent's, and a dataclass's generated signature does not
  count); a constant needs a line in the package docstring that names it in double
  backticks;
- every public method, property and field of those classes that graphmem itself defines,
  including the members a class inherits from graphmem's own (private) bases such as
  ``MemoryRecord``, and the ``Memory`` methods that hand a call to a service; members inherited from outside the package (``BaseModel``,
  ``Exception``, ``Enum``) are not ours to document, and enum members are values. A field
  (an attribute, not a method or property) also counts as documented when the class's
  docstring names it in double backticks, as settings classes that describe their fields
  together do.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import functools
import importlib
import inspect
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType

import pdoc
import pdoc.doc
import pdoc.render

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "docs" / "pdoc-templates"


def _root_package(module: ModuleType) -> str:
    return module.__name__.split(".")[0]


def _own_class_doc(cls: pdoc.doc.Class) -> str:
    """The class's own docstring (pdoc's view, which drops a dataclass's generated one),
    or '' when the class only inherits one from a parent."""
    if not (cls.obj.__dict__.get("__doc__") or "").strip():
        return ""
    return cls.docstring.strip()


def _is_ours(doc: pdoc.doc.Doc, package: str) -> bool:
    return doc.taken_from[0] == package or doc.taken_from[0].startswith(package + ".")


def _is_field(cls: pdoc.doc.Class, doc: pdoc.doc.Doc) -> bool:
    """An attribute (pydantic or dataclass field, class or instance variable), not a property."""
    raw = inspect.getattr_static(cls.obj, doc.name, None)
    return isinstance(doc, pdoc.doc.Variable) and not isinstance(raw, (property, functools.cached_property))


def _class_members(cls: pdoc.doc.Class, package: str) -> list[pdoc.doc.Doc]:
    """Public members of ``cls`` that the package defines, own or inherited, enum values left out."""
    found = []
    for member in cls.members.values():
        if member.name.startswith("_") or not _is_ours(member, package):
            continue
        if issubclass(cls.obj, enum.Enum) and member.name in cls.obj.__members__:
            continue
        found.append(member)
    return found


def _as_written(module: ModuleType) -> contextlib.AbstractContextManager[object]:
    """pdoc reads a class's source through its ``__module__``: while it works, the classes a
    package shows under their public module (graphmem/_base/public.py) go back to the modules
    they are written in, or their attribute docstrings would be lost."""
    try:
        public = importlib.import_module(f"{_root_package(module)}._base.public")
    except ImportError:
        return contextlib.nullcontext()
    return public.as_written()


def missing_docstrings(module: ModuleType) -> list[str]:
    """Every public name of ``module`` (see this file's docstring) that has no docstring,
    as dotted names such as ``graphmem.Memory.recall``, in ``__all__`` order. A member that
    several public classes share (a field of a common base) is named once, where it is
    first met, with the place that defines it."""
    with _as_written(module):
        return _missing_docstrings(module)


def _missing_docstrings(module: ModuleType) -> list[str]:
    package = _root_package(module)
    mod_doc = pdoc.doc.Module(module)
    module_text = mod_doc.docstring
    missing: list[str] = []
    seen: set[tuple[str, str]] = set()
    for name in getattr(module, "__all__", []):
        member = mod_doc.get(name)
        dotted = f"{module.__name__}.{name}"
        if member is None:
            missing.append(f"{dotted} (in __all__ but not found)")
            continue
        if isinstance(member, pdoc.doc.Class):
            if not _own_class_doc(member):
                missing.append(dotted)
            class_text = _own_class_doc(member)
            for attr in _class_members(member, package):
                if attr.docstring.strip() or attr.taken_from in seen:
                    continue
                if _is_field(member, attr) and f"``{attr.name}``" in class_text:
                    continue
                seen.add(attr.taken_from)
                where = ".".join(attr.taken_from)
                shown = f"{dotted}.{attr.name}"
                missing.append(shown if where.endswith(f"{member.qualname}.{attr.name}") else f"{shown} (defined in {where})")
        elif isinstance(member, pdoc.doc.Function):
            if not member.docstring.strip():
                missing.append(dotted)
        elif f"``{name}``" not in module_text and not member.docstring.strip():
            missing.append(f"{dotted} (a constant: name it in the package docstring)")
    return missing


def build(module_name: str, out: Path) -> list[str]:
    """Render the reference of ``module_name`` into ``out``; return pdoc's warnings as text."""
    pdoc.render.configure(docformat="restructuredtext", template_directory=TEMPLATES,
                          footer_text=f"{module_name} API reference")
    with _as_written(importlib.import_module(module_name)), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(module_name, output_directory=out)
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on a missing docstring or a pdoc warning")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default site/, or a temporary one with --check)")
    parser.add_argument("--module", default="graphmem")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    module = importlib.import_module(args.module)  # imported first: its own import warnings are not pdoc's
    problems = [f"no docstring: {name}" for name in missing_docstrings(module)] if args.check else []
    if args.out is None and args.check:
        out = Path(tempfile.mkdtemp(prefix="apidoc-"))
    else:
        out = args.out or ROOT / "site"
        shutil.rmtree(out, ignore_errors=True)
    try:
        problems += [f"pdoc warning: {w}" for w in build(args.module, out)]
    finally:
        if args.check and args.out is None:
            shutil.rmtree(out, ignore_errors=True)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in the API reference of {args.module}", file=sys.stderr)
        return 1
    if not args.check:
        print(f"API reference written to {out / (args.module + '.html')}")
    else:
        print(f"API reference of {args.module}: every public name documented, pdoc built it without warnings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
