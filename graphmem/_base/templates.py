"""Cypher templates: one statement per ``.cypher`` file, loaded by name, checked on call.

A template file (see ``cypher/memory_get.cypher``) starts with a ``// name: <name>``
header that must match the file name, then ``//`` documentation lines, then the
statement. Every ``$parameter`` the statement references is part of its signature: a
call must pass exactly those keys, or ``TemplateError`` is raised before anything is
sent to Neo4j.

Layout of the ``cypher/`` folder:

- ``*.cypher``: the statements graphmem runs;
- ``schema/*.cypher``: constraints and indexes that ``setup()`` applies, every one of them,
  in name order (the vector index, whose dimension comes from the embedder, is not there).
  Each names what it makes on its second line, ``// creates: <name>`` (``Template.creates``:
  what ``setup --check`` looks for among the store's constraints and indexes), as does
  ``schema_vector.cypher``;
- ``fragments/*.cypher``: text shared by several statements, or one part of a long one
  (recall's five sides). A statement includes one with ``{{name(var)}}``; the fragment's
  ``__node__`` becomes ``var``. A fragment may include others. Fragments are expanded when
  the template is loaded, so a missing fragment fails at load, and their parameters count
  in the including template's signature.
- ``fragments/cypher25/*.cypher``: the Cypher 25 text of a fragment, for servers that have
  it (Neo4j 2026: the vector index filtered in the index by ``SEARCH``). A template that
  includes such a fragment also has a Cypher 25 version, ``get("<name>:cypher25")``: the
  same statement with those fragments, sent as ``CYPHER 25``.
- ``fragments/b/*.cypher``: the fragments that name where a memory's vector lives (its
  property and the vector index over it) for a store whose vectors are in the second slot
  (``_base/layout.py``: ``graphmem reembed`` moves a store from one slot to the other). A
  template that includes one has a version for that slot, ``get("<name>:b")`` (and
  ``"<name>:cypher25:b"`` when it has both); ``in_slot`` names the one to run.

A fragment without ``__node__`` is a constant (an index's name), included as ``{{name}}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import TemplateError

_HEADER = re.compile(r"^//\s*name:\s*([a-z][a-z0-9_]*)\s*$")
_CREATES = re.compile(r"^//\s*creates:\s*([a-z][a-z0-9_]*)\s*$")
_FRAGMENT_HEADER = re.compile(r"^//\s*fragment:\s*([a-z][a-z0-9_]*)\s*$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_INCLUDE = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)(?:\(([a-z_][a-z0-9_]*)\))?\s*\}\}")
_NODE = "__node__"
CYPHER25 = "cypher25"  # the variant of a template for servers that speak Cypher 25 (fragments/cypher25/)
SLOT_B = "b"  # the variant of a template for a store whose vectors are in the second slot (fragments/b/)
# Comment lines, then string literals and backquoted names, are blanked before parameters
# are collected (a template's comments are whole lines starting with //).
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
_COMMENT_LINE = re.compile(r"^\s*//[^\n]*$", re.MULTILINE)
_RETURN = re.compile(r"\bRETURN\b")
_RETURN_END = re.compile(r"\b(?:ORDER\s+BY|SKIP|LIMIT|UNION)\b")
_ALIAS = re.compile(r"\bAS\s+([A-Za-z_][A-Za-z0-9_]*)\s*$")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class Template:
    """One parsed Cypher template."""

    name: str
    doc: str
    text: str
    parameters: frozenset[str]
    creates: str | None = None
    """The constraint or index a schema statement makes (its ``// creates:`` line)."""
    columns: tuple[str, ...] = ()
    """The columns its rows have, in order (its last ``RETURN`` outside a subquery); none
    for a statement that returns nothing. ``records.rows_of`` holds a row type to them."""

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


def _top_level(body: str) -> list[int]:
    """Where each character of ``body`` stands: how many brackets are open before it."""
    depth, depths = 0, []
    for char in body:
        if char in _CLOSE:
            depth -= 1
        depths.append(depth)
        if char in _OPEN:
            depth += 1
    return depths


def returns(body: str) -> tuple[str, ...]:
    """The columns of a statement (comments and quoted text blanked): the items of its last
    ``RETURN`` outside brackets (a ``CALL { ... RETURN ... }`` returns to the statement, not
    to the caller), each named by its alias, or its own text without one, as Neo4j names it."""
    depths = _top_level(body)
    found = [m.end() for m in _RETURN.finditer(body) if depths[m.start()] == 0]
    if not found:
        return ()
    items, start, end = [], found[-1], len(body)
    if (tail := next((m for m in _RETURN_END.finditer(body, start) if depths[m.start()] == 0), None)) is not None:
        end = tail.start()
    for i in range(start, end + 1):
        if i == end or (body[i] == "," and depths[i] == 0):
            item = body[start:i].strip()
            items.append(alias.group(1) if (alias := _ALIAS.search(item)) else item)
            start = i + 1
    items[0] = re.sub(r"^DISTINCT\s+", "", items[0])
    return tuple(items)


def _statement(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.strip().startswith("//")]


def parse_fragment(name: str, source: str) -> str:
    """The text of a fragment file named ``name`` (header ``// fragment: <name>``, doc lines,
    then the text, which refers to its node as ``__node__``, or a constant without it)."""
    lines = source.splitlines()
    if not lines or not (m := _FRAGMENT_HEADER.match(lines[0].strip())) or m.group(1) != name:
        raise TemplateError(f"fragment {name!r}: first line must be '// fragment: {name}'")
    body = "\n".join(_statement(lines[1:])).strip()
    if not body:
        raise TemplateError(f"fragment {name!r} has no text")
    return body


def expand(name: str, source: str, fragments: Mapping[str, str]) -> str:
    """``source`` with every ``{{fragment(var)}}`` replaced by the fragment's text (its
    ``__node__`` by ``var``) and every ``{{constant}}`` by the constant's text. A fragment
    of a node included as a constant, or the reverse, is refused."""
    def include(match: re.Match[str]) -> str:
        fragment, var = match.group(1), match.group(2)
        if fragment not in fragments:
            raise TemplateError(f"template {name!r} includes unknown fragment {fragment!r}")
        text = fragments[fragment]
        if (var is None) == (_NODE in text):
            usage = f"{{{{{fragment}}}}}" if var is None else f"{{{{{fragment}({var})}}}}"
            kind = "a fragment of a node" if _NODE in text else "a constant"
            raise TemplateError(f"template {name!r} includes {kind} as {usage}")
        return text if var is None else text.replace(_NODE, var)

    return _INCLUDE.sub(include, source)


def parse(name: str, source: str, fragments: Mapping[str, str] | None = None) -> Template:
    """Parse the text of a template file named ``name``."""
    source = expand(name, source, fragments or {})
    lines = source.splitlines()
    if not lines or not (m := _HEADER.match(lines[0].strip())):
        raise TemplateError(f"template {name!r}: first line must be '// name: {name}'")
    if m.group(1) != name:
        raise TemplateError(f"template {name!r}: header names {m.group(1)!r}")
    # a schema statement's second line names what it creates; the documentation follows
    creates = c.group(1) if len(lines) > 1 and (c := _CREATES.match(lines[1].strip())) else None
    doc_lines = []
    for line in lines[2 if creates else 1:]:
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        doc_lines.append(stripped[2:].strip())
    if not any(doc_lines):
        raise TemplateError(f"template {name!r}: needs at least one '//' doc line after its header")
    statement = "\n".join(_statement(lines[1:]))
    if creates is not None and creates not in statement:
        raise TemplateError(f"template {name!r} says it creates {creates!r}, which its statement does not name")
    body = _QUOTED.sub("''", _COMMENT_LINE.sub("", source))
    if not body.strip():
        raise TemplateError(f"template {name!r} has no statement")
    # what is sent to Neo4j: the header (so query logs name the template) and the statement;
    # the documentation stays in the file (recall's is 2 KB, sent and hashed on every call)
    return Template(
        name=name,
        doc="\n".join(doc_lines).strip(),
        text="\n".join([lines[0].strip(), statement]).strip() + "\n",
        parameters=frozenset(_PARAM.findall(body)),
        creates=creates,
        columns=returns(body),
    )


def template_dir() -> Path:
    """The installed ``graphmem/cypher`` folder, or the source tree's ``cypher/``."""
    packaged = resources.files("graphmem").joinpath("cypher")
    if packaged.is_dir():
        return Path(str(packaged))
    source_tree = Path(__file__).resolve().parents[2] / "cypher"
    if source_tree.is_dir():
        return source_tree
    raise TemplateError("no cypher/ template folder found next to the graphmem package")


def files() -> dict[str, Path]:
    """Template name -> its file (statements and schema statements; not fragments)."""
    folder = template_dir()
    found: dict[str, Path] = {}
    for path in sorted([*folder.glob("*.cypher"), *folder.glob("schema/*.cypher")]):
        if path.stem in found:
            raise TemplateError(f"two templates are named {path.stem!r}")
        found[path.stem] = path
    return found


def _read_fragments(folder: Path) -> dict[str, str]:
    return {p.stem: parse_fragment(p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.cypher"))}


@lru_cache(maxsize=8)
def fragments(*variants: str) -> dict[str, str]:
    """Fragment name -> its text, with the fragments it includes expanded (a part of recall
    includes vector_neighbours, which includes the vector's property); with ``variants``, the
    fragments of those subfolders replace those of the same name, in order, at every depth."""
    folder = template_dir() / "fragments"
    raw = _read_fragments(folder)
    for variant in variants:
        own = _read_fragments(folder / variant)
        if unknown := sorted(set(own) - set(raw)):
            raise TemplateError(f"fragments/{variant}/ has no base fragment for {', '.join(unknown)}")
        raw.update(own)
    # each pass expands one level more; a chain of includes without a cycle is at most as
    # deep as there are fragments, so one more pass than that that still changes is a cycle
    expanded = raw
    for _ in range(len(raw) + 1):
        deeper = {name: expand(f"fragment {name}", body, expanded) for name, body in expanded.items()}
        if deeper == expanded:
            return expanded
        expanded = deeper
    raise TemplateError("fragments include each other in a cycle")


def as_cypher25(name: str, template: Template) -> Template:
    """``template`` sent as Cypher 25: its ``CYPHER`` options line gains the version, or a
    ``CYPHER 25`` line is put before the statement."""
    header, statement = template.text.split("\n", 1)
    if statement.startswith("CYPHER "):
        statement = "CYPHER 25 " + statement[len("CYPHER "):]
    else:
        statement = "CYPHER 25\n" + statement
    return replace(template, name=name, text=f"{header}\n{statement}")


@lru_cache(maxsize=1)
def _all() -> dict[str, Template]:
    shared = fragments()
    found: dict[str, Template] = {}
    for name, path in files().items():
        source = path.read_text(encoding="utf-8")
        found[name] = parse(name, source, shared)
        base = expand(name, source, shared)
        # a version per variant whose fragments change the text (it includes one of them),
        # and one with both when each changes it
        own = [v for v in (CYPHER25, SLOT_B) if expand(name, source, fragments(v)) != base]
        for variants in [*([v] for v in own), *([own] if len(own) == 2 else [])]:
            variant = ":".join([name, *variants])
            parsed = parse(name, source, fragments(*variants))
            found[variant] = as_cypher25(variant, parsed) if CYPHER25 in variants else replace(parsed, name=variant)
    return found


def names() -> list[str]:
    """Names of every template shipped with graphmem (one per file)."""
    return sorted(name for name in _all() if ":" not in name)


def variant_names() -> list[str]:
    """Names of the templates' other versions: Cypher 25 (``<name>:cypher25``), the second
    vector slot (``<name>:b``), both (``<name>:cypher25:b``)."""
    return sorted(name for name in _all() if ":" in name)


def in_slot(name: str, slot: str) -> str:
    """The name of the version of template ``name`` (or of its Cypher 25 version) to run on a
    store whose vectors are in ``slot`` (``_base/layout.py``): ``name`` itself unless the slot
    is the second and the template names where vectors live."""
    if slot == SLOT_B and f"{name}:{SLOT_B}" in _all():
        return f"{name}:{SLOT_B}"
    return name


@lru_cache(maxsize=1)
def schema_names() -> tuple[str, ...]:
    """The constraints and indexes ``setup()`` applies, in the order it applies them."""
    return tuple(name for name, path in files().items() if path.parent.name == "schema")


@lru_cache(maxsize=1)
def schema_objects() -> tuple[str, ...]:
    """The names of the constraints and indexes ``setup()`` creates (the vector index aside),
    from each schema template's ``// creates:`` line."""
    found = [(name, get(name).creates) for name in schema_names()]
    if unnamed := [name for name, creates in found if creates is None]:
        raise TemplateError(f"schema templates without a '// creates: <name>' line: {', '.join(unnamed)}")
    return tuple(creates for _, creates in found if creates is not None)


def get(name: str) -> Template:
    """The template called ``name``; ``TemplateError`` if there is none."""
    try:
        return _all()[name]
    except KeyError:
        raise TemplateError(f"unknown Cypher template {name!r}") from None
