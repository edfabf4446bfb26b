"""Cypher templates: one statement per ``.cypher`` file, loaded by name, checked on call.

A template file (see ``cypher/memory_get.cypher``) starts with a ``// name: <name>``
header that must match the file name, then ``//`` documentation lines, then the
statement. Every ``$parameter`` the statement references is part of its signature: a
call must pass exactly those keys, or ``TemplateError`` is raised before anything is
sent to Neo4j.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from ._errors import TemplateError

_HEADER = re.compile(r"^//\s*name:\s*([a-z][a-z0-9_]*)\s*$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Comment lines, then string literals and backquoted names, are blanked before parameters
# are collected (a template's comments are whole lines starting with //).
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
_COMMENT_LINE = re.compile(r"^\s*//[^\n]*$", re.MULTILINE)


@dataclass(frozen=True)
class Template:
    """One parsed Cypher template."""

    name: str
    doc: str
    text: str
    parameters: frozenset[str]

    def check(self, params: Mapping[str, Any]) -> None:
        """Raise ``TemplateError`` unless ``params`` has exactly this template's keys."""
        given = set(params)
        missing = sorted(self.parameters - given)
        extra = sorted(given - self.parameters)
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing {', '.join(missing)}")
            if extra:
                parts.append(f"unexpected {', '.join(extra)}")
            raise TemplateError(f"template {self.name!r} called with wrong parameters: {'; '.join(parts)}")


def parse(name: str, source: str) -> Template:
    """Parse the text of a template file named ``name``."""
    lines = source.splitlines()
    if not lines or not (m := _HEADER.match(lines[0].strip())):
        raise TemplateError(f"template {name!r}: first line must be '// name: {name}'")
    if m.group(1) != name:
        raise TemplateError(f"template {name!r}: header names {m.group(1)!r}")
    doc_lines = []
    for line in lines[1:]:
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        doc_lines.append(stripped[2:].strip())
    if not any(doc_lines):
        raise TemplateError(f"template {name!r}: needs at least one '//' doc line after its header")
    body = _QUOTED.sub("''", _COMMENT_LINE.sub("", source))
    if not body.strip():
        raise TemplateError(f"template {name!r} has no statement")
    # what is sent to Neo4j: the header (so query logs name the template) and the statement;
    # the documentation stays in the file (recall's is 2 KB, sent and hashed on every call)
    statement = [line for line in lines[1:] if not line.strip().startswith("//")]
    return Template(
        name=name,
        doc="\n".join(doc_lines).strip(),
        text="\n".join([lines[0].strip(), *statement]).strip() + "\n",
        parameters=frozenset(_PARAM.findall(body)),
    )


def _template_dir() -> Path:
    """The installed ``graphmem/cypher`` folder, or the source tree's ``cypher/``."""
    packaged = resources.files("graphmem").joinpath("cypher")
    if packaged.is_dir():
        return Path(str(packaged))
    source_tree = Path(__file__).resolve().parent.parent / "cypher"
    if source_tree.is_dir():
        return source_tree
    raise TemplateError("no cypher/ template folder found next to the graphmem package")


@lru_cache(maxsize=1)
def _all() -> dict[str, Template]:
    folder = _template_dir()
    found = {}
    for path in sorted(folder.glob("*.cypher")):
        found[path.stem] = parse(path.stem, path.read_text(encoding="utf-8"))
    return found


def names() -> list[str]:
    """Names of every template shipped with graphmem."""
    return sorted(_all())


def get(name: str) -> Template:
    """The template called ``name``; ``TemplateError`` if there is none."""
    try:
        return _all()[name]
    except KeyError:
        raise TemplateError(f"unknown Cypher template {name!r}") from None
