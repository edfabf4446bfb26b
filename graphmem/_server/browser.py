"""The Neo4j Browser kit shipped with graphmem: a GraSS style and parameterised queries.

The files live in the source tree's ``browser/`` folder (``graphmem/browser`` in a wheel):
``style.grass`` gives every kind of memory a colour and a caption, and ``queries/*.cypher``
are queries a person runs from Browser, in the same format as the library's templates
(``// name:`` header, ``//`` doc lines with the ``:param`` commands to set, the statement).

Browser accepts a style as GraSS text or as JSON; ``style_command()`` turns the GraSS file
into the one-line ``:style {...}`` command that ``graphmem neo4j start`` hands Browser as
its post-connect command (JSON has no ``;`` outside strings, which Browser's split of
``browser.post_connect_cmd`` into several commands would otherwise cut).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from .._base import templates
from .._base.errors import LauncherError

_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def kit_dir() -> Path:
    """The installed ``graphmem/browser`` folder, or the source tree's ``browser/``."""
    packaged = Path(str(resources.files("graphmem").joinpath("browser")))
    if (packaged / "style.grass").is_file():
        return packaged
    source_tree = Path(__file__).resolve().parents[2] / "browser"
    if (source_tree / "style.grass").is_file():
        return source_tree
    raise LauncherError("the Neo4j Browser kit (browser/style.grass) is missing from this install")


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Parse GraSS (``selector { key: value; ... }``) into ``{selector: {key: value}}``.

    Values may be quoted (``caption: '{text}'``); quotes are dropped, as Browser does, and
    braces or semicolons inside them are kept. ``/* comments */`` are ignored.
    """
    rules: dict[str, dict[str, str]] = {}
    selector, body, quote, inside = "", "", "", False
    for char in _COMMENT.sub("", text):
        if quote:
            if char == quote:
                quote = ""
                body += "\0"
            else:
                body += char
        elif char in "'\"" and inside:
            quote = char
            body += "\0"  # \0 ... \0 marks a quoted stretch: a ';' in it is no separator
        elif char == "{" and not inside:
            inside = True
        elif char == "}" and inside:
            rules[selector.strip()] = _declarations(body, selector.strip())
            selector, body, inside = "", "", False
        elif inside:
            body += char
        elif not char.isspace() or selector:
            selector += char
    if inside or quote or selector.strip():
        raise LauncherError("browser/style.grass: unbalanced braces or quotes")
    return rules


def _declarations(body: str, selector: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for part in _split_outside_quotes(body, ";"):
        if not part.strip():
            continue
        key, sep, value = part.partition(":")
        if not sep or not key.strip():
            raise LauncherError(f"browser/style.grass: {selector}: expected 'key: value', got {part.strip()!r}")
        props[key.strip()] = value.replace("\0", "").strip()
    return props


def _split_outside_quotes(body: str, separator: str) -> list[str]:
    parts, current, quoted = [], "", False
    for char in body:
        if char == "\0":
            quoted = not quoted
            current += char
        elif char == separator and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def style() -> dict[str, dict[str, str]]:
    """graphmem's Browser style (``browser/style.grass``) as Browser's JSON form."""
    return parse_grass((kit_dir() / "style.grass").read_text(encoding="utf-8"))


def style_command(*, leading_colon: bool = True) -> str:
    """The one-line ``:style {...}`` command that applies graphmem's style in Browser."""
    command = "style " + json.dumps(style(), separators=(",", ":"))
    return (":" if leading_colon else "") + command


def query_names() -> list[str]:
    """Names of the Browser queries shipped in ``browser/queries``."""
    return sorted(path.stem for path in (kit_dir() / "queries").glob("*.cypher"))


def query(name: str) -> templates.Template:
    """One Browser query, parsed like a template (header, doc lines, ``$parameters``)."""
    path = kit_dir() / "queries" / f"{name}.cypher"
    if not path.is_file():
        raise LauncherError(f"no Browser query called {name!r} (see browser/queries)")
    return templates.parse(name, path.read_text(encoding="utf-8"))
