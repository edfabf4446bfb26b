"""Generate graphmem/_sync/*.py from graphmem/_async/*.py: async written once, sync derived.

    python tools/unasync.py          rewrite the sync modules (and drop orphaned ones)
    python tools/unasync.py --check  exit 1 if any sync module differs from what would be generated

Every ``*.py`` in graphmem/_async except ``__init__.py`` is a source. The rewrite works on
``tokenize`` tokens, never on raw text, so code and prose get different rules:

Code (NAME and OP tokens)
  - ``async def``/``async with``/``async for`` lose ``async``; ``await x`` becomes ``x``.
  - ``Async`` + capital letter loses the prefix (``AsyncMemory`` -> ``Memory``), and the
    names in ``NAMES`` map one to one (``ainvoke`` -> ``invoke``, ``__aenter__`` -> ...).
  - ``Awaitable[T]`` becomes ``T`` (brackets matched, so ``Callable[[A], Awaitable[T]]``
    becomes ``Callable[[A], T]``); ``Awaitable`` leaves ``from typing import ...``.
  - ``asyncio.<X>`` maps through ``ASYNCIO`` (``Semaphore`` -> ``threading.Semaphore``) and
    ``import asyncio`` becomes an import of exactly the modules those uses need.
    Anything without a listed sync twin is an error naming file and line.

Prose (string literals and comments)
  - ``Async<Name>`` and the ``NAMES`` identifiers are renamed as whole words, so a
    docstring's ``AsyncMemory`` reads ``Memory``; no other word is touched.
  - The few sentences in ``PHRASES`` are rewritten on purpose, e.g. "the asyncio front
    door" and "``graphmem/_sync/x.py`` is generated from this file by ...".
  - Prose left with an asyncio-only word ("asyncio", "await", "coroutine") or a
    self-reference the phrases missed is reported as a warning, so it can be reworded.

Each generated file starts with a two-line "generated, do not edit" header.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path
from tokenize import TokenInfo

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "graphmem" / "_async"
TARGET = ROOT / "graphmem" / "_sync"
TOOL = "tools/unasync.py"

HEADER = (
    "# Generated from graphmem/_async/{name} by tools/unasync.py: do not edit.\n"
    "# Edit the async source and run `python tools/unasync.py` to regenerate.\n"
)
HEADER_MARK = "# Generated from graphmem/_async/"

# One-to-one renames that the generic ``Async<Capital>`` rule does not cover.
NAMES = {
    "ainvoke": "invoke",
    "abatch": "batch",
    "astream": "stream",
    "aembed_documents": "embed_documents",
    "aembed_query": "embed_query",
    "aextract": "extract",
    "aclose": "close",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "aiter": "iter",
    "anext": "next",
    "StopAsyncIteration": "StopIteration",
    "asynccontextmanager": "contextmanager",
    "aclosing": "closing",
    "async_pause": "pause",
}
# Code-only renames: ``_async`` is a package name in code but a path segment in prose.
CODE_NAMES = {**NAMES, "_async": "_sync"}
# Names with no mechanical sync twin (a different arity or meaning): refuse them.
UNSUPPORTED = {"AsyncGenerator", "Coroutine"}
# ``asyncio.<attribute>`` -> (module, attribute) in the generated code.
ASYNCIO = {
    "Semaphore": ("threading", "Semaphore"),
    "BoundedSemaphore": ("threading", "BoundedSemaphore"),
    "Lock": ("threading", "Lock"),
    "Event": ("threading", "Event"),
    "Condition": ("threading", "Condition"),
    "Barrier": ("threading", "Barrier"),
    "sleep": ("time", "sleep"),
}
FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", -1)  # Python 3.12+
ASYNC_PREFIX = re.compile(r"Async(?=[A-Z])")
IDENT = "A-Za-z0-9_"

# Deliberate sentence rewrites for prose, applied before the word renames. Whitespace
# groups are reused, so a sentence broken over two docstring lines stays broken there.
PHRASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b([Tt]he\s+)asyncio(\s+)front(\s+)door\b"), r"\1synchronous\2front\3door"),
    (re.compile(r"\((asyncio)\)"), "(synchronous)"),
    (re.compile(r"``graphmem/_sync/(\w+)\.py``(\s+)is(\s+)generated(\s+)from(\s+)this(\s+)file\b"),
     r"This\2file\3is\4generated\5from\6``graphmem/_async/\1.py``"),
    (re.compile(r"(``tools/unasync\.py``;\s+edit\s+)this(\s+one\b)"), r"\1that\2"),
]
LEFTOVER = re.compile(r"\b(asyncio|await(s|ed|ing)?|coroutines?|generated\s+from\s+this\s+file)\b", re.IGNORECASE)


class UnasyncError(Exception):
    """Source that has no mechanical sync translation."""


class Result:
    """A generated module's text and the warnings about its prose."""

    def __init__(self, text: str, warnings: list[str] | None = None) -> None:
        self.text = text
        self.warnings = warnings or []


def rename(name: str) -> str:
    """The sync spelling of one identifier."""
    if name in CODE_NAMES:
        return CODE_NAMES[name]
    return ASYNC_PREFIX.sub("", name, count=1) if name.startswith("Async") else name


def rewrite_prose(text: str) -> str:
    """A string literal's or comment's sync wording: the phrases, then whole-word renames."""
    for pattern, replacement in PHRASES:
        text = pattern.sub(replacement, text)
    # the whole-word guards stop a rename inside a longer identifier (``MyAsyncThing``)
    text = re.sub(rf"(?<![{IDENT}])Async(?=[A-Z][{IDENT}]*)", "", text)
    words = "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True))
    return re.sub(rf"(?<![{IDENT}])({words})(?![{IDENT}])", lambda m: NAMES[m.group(1)], text)


class _Rewriter:
    """Collects (start, end, replacement) edits over one module's source, then applies them.

    Only edited spans change; everything between them is copied verbatim from the source.
    """

    def __init__(self, source: str, name: str) -> None:
        self.source = source
        self.name = name
        self.tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        starts = [0]
        for line in source.split("\n"):
            starts.append(starts[-1] + len(line) + 1)
        self._line_starts = starts
        self.edits: list[tuple[int, int, str]] = []
        self.modules_needed: list[str] = []
        # the ``import asyncio`` statement (first, last token) and the modules imported anyway
        self.asyncio_import: tuple[tuple[int, int], set[str]] | None = None

    def offset(self, position: tuple[int, int]) -> int:
        return self._line_starts[position[0] - 1] + position[1]

    def faithful(self, tok: TokenInfo) -> bool:
        """Whether the token's text is the source from its start on (3.12 reports an f-string's
        ``{{`` as ``{``)."""
        start = self.offset(tok.start)
        return self.source[start:start + len(tok.string)] == tok.string

    def end(self, tok: TokenInfo) -> int:
        """Where the token ends in the source: from its start and length, because 3.12.1
        misplaces the end of a multi-line string that follows non-ASCII text."""
        if not self.faithful(tok):
            raise self.fail(tok, f"tokenize misplaced {tok.string[:40]!r}; please report with the Python version")
        return self.offset(tok.start) + len(tok.string)

    def fail(self, tok: TokenInfo, message: str) -> UnasyncError:
        return UnasyncError(f"graphmem/_async/{self.name}:{tok.start[0]}: {message}")

    def edit(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, text))

    def replace(self, tok: TokenInfo, text: str) -> None:
        self.edit(self.offset(tok.start), self.end(tok), text)

    def drop_with_gap_after(self, i: int) -> None:
        self.edit(self.offset(self.tokens[i].start), self.offset(self.tokens[i + 1].start), "")

    def is_op(self, i: int, text: str) -> bool:
        return 0 <= i < len(self.tokens) and self.tokens[i].type == tokenize.OP and self.tokens[i].string == text

    def is_name(self, i: int, text: str | None = None) -> bool:
        return (0 <= i < len(self.tokens) and self.tokens[i].type == tokenize.NAME
                and (text is None or self.tokens[i].string == text))

    # -- passes ---------------------------------------------------------------------------

    def run(self) -> str:
        handled: set[int] = set()
        handled |= self.imports()
        self.asyncio_uses(handled)
        for i, tok in enumerate(self.tokens):
            if i in handled:
                continue
            if tok.type == tokenize.NAME:
                self.name_token(i, tok)
            elif tok.type in (tokenize.STRING, tokenize.COMMENT, FSTRING_MIDDLE):
                self.prose(tok)
        return self.apply()

    def prose(self, tok: TokenInfo) -> None:
        new = rewrite_prose(tok.string)
        if new != tok.string and self.faithful(tok):  # an unfaithful f-string part stays as it is
            self.replace(tok, new)

    def name_token(self, i: int, tok: TokenInfo) -> None:
        word = tok.string
        if word == "async":
            if not (self.is_name(i + 1, "def") or self.is_name(i + 1, "with") or self.is_name(i + 1, "for")):
                raise self.fail(tok, "'async' not followed by def, with or for")
            self.drop_with_gap_after(i)
        elif word == "await":
            self.drop_with_gap_after(i)
        elif word == "Awaitable":
            self.awaitable(i, tok)
        elif word in UNSUPPORTED:
            raise self.fail(tok, f"{word} has no mechanical sync equivalent")
        elif word == "asyncio":
            raise self.fail(tok, "asyncio used other than as 'import asyncio' or 'asyncio.<name>'")
        elif rename(word) != word:  # definitions, uses and attributes (``neo4j.AsyncDriver``) alike
            self.replace(tok, rename(word))

    def awaitable(self, i: int, tok: TokenInfo) -> None:
        """``Awaitable[T]`` -> ``T``, ``typing.Awaitable[T]`` too."""
        if not self.is_op(i + 1, "["):
            raise self.fail(tok, "Awaitable without a subscript (only Awaitable[T] has a sync form)")
        start = i
        if self.is_op(i - 1, ".") and self.is_name(i - 2):
            start = i - 2
        depth = 0
        for j in range(i + 1, len(self.tokens)):
            if self.tokens[j].type == tokenize.OP and self.tokens[j].string in "([{":
                depth += 1
            elif self.tokens[j].type == tokenize.OP and self.tokens[j].string in ")]}":
                depth -= 1
                if depth == 0:
                    break
        else:
            raise self.fail(tok, "unbalanced Awaitable[...]")
        self.edit(self.offset(self.tokens[start].start), self.offset(self.tokens[i + 2].start), "")
        self.edit(self.end(self.tokens[j - 1]), self.end(self.tokens[j]), "")

    def asyncio_uses(self, handled: set[int]) -> None:
        for i, tok in enumerate(self.tokens):
            if i in handled or not self.is_name(i, "asyncio") or not self.is_op(i + 1, "."):
                continue
            if self.is_op(i - 1, "."):
                continue
            attr = self.tokens[i + 2]
            if attr.string not in ASYNCIO:
                raise self.fail(tok, f"asyncio.{attr.string} has no sync equivalent listed in tools/unasync.py")
            module, new_attr = ASYNCIO[attr.string]
            if module not in self.modules_needed:
                self.modules_needed.append(module)
            self.replace(tok, module)
            if new_attr != attr.string:
                self.replace(attr, new_attr)
            handled.update((i, i + 2))

    def imports(self) -> set[int]:
        """Rewrite import statements; return the token indices already dealt with."""
        handled: set[int] = set()
        already = self._imported_modules()
        statements = self._statements()
        asyncio_import = None
        for first, last in statements:
            if self.is_name(first, "import") and any(self.is_name(k, "asyncio") for k in range(first, last)):
                if last - first != 2 or not self.is_name(first + 1, "asyncio"):
                    raise self.fail(self.tokens[first], "write 'import asyncio' as a statement of its own")
                asyncio_import = (first, last)
                handled.update((first, first + 1))
            elif self.is_name(first, "from") and any(self.is_name(k, "import") for k in range(first, last)):
                handled |= self._from_import(first, last)
        if asyncio_import is not None:
            self.asyncio_import = (asyncio_import, already)
        return handled

    def _from_import(self, first: int, last: int) -> set[int]:
        handled = {k for k in range(first, last + 1) if self.tokens[k].type == tokenize.NAME}
        k = first + 1
        while not self.is_name(k, "import"):
            if self.is_name(k):
                if self.tokens[k].string == "asyncio":
                    raise self.fail(self.tokens[k], "'from asyncio import ...' is not supported; use asyncio.<name>")
                if self.tokens[k].string in CODE_NAMES:
                    self.replace(self.tokens[k], CODE_NAMES[self.tokens[k].string])
            k += 1
        # the imported names: (index of the name, index of its last token: the alias if any)
        entries: list[tuple[int, int]] = []
        j = k + 1
        while j < last:
            if self.is_name(j):
                entries.append((j, j + 2 if self.is_name(j + 1, "as") else j))
                j = entries[-1][1] + 1
            else:
                j += 1
        seen: set[str] = set()
        keep: list[bool] = []
        for index, end_index in entries:
            word = self.tokens[index].string
            if word in UNSUPPORTED:
                raise self.fail(self.tokens[index], f"{word} has no mechanical sync equivalent")
            aliased = end_index != index
            bound = self.tokens[end_index].string if aliased else rename(word)
            drop = (word == "Awaitable" and not aliased) or bound in seen
            seen.add(bound)
            keep.append(not drop)
            if not drop and rename(word) != word:
                self.replace(self.tokens[index], rename(word))
        if not any(keep):
            line_start = self._line_starts[self.tokens[first].start[0] - 1]
            self.edits = [e for e in self.edits if not (e[0] >= line_start and e[1] <= self.end(self.tokens[last]))]
            self.edit(line_start, self.end(self.tokens[last]), "")
            return handled
        last_kept = max(n for n, k in enumerate(keep) if k)
        for n, (index, _) in enumerate(entries):
            if keep[n]:
                continue
            if n < last_kept:  # the name, its comma and whatever lies before the next name
                self.edit(self.offset(self.tokens[index].start), self.offset(self.tokens[entries[n + 1][0]].start), "")
            elif n == last_kept + 1:  # a trailing run of dropped names, as one edit
                run_end = entries[-1][1]
                if self.is_op(run_end + 1, ","):  # a trailing comma: the run goes with it
                    start, end = self.offset(self.tokens[index].start), self.end(self.tokens[run_end + 1])
                    line_start = self._line_starts[self.tokens[index].start[0] - 1]
                    if not self.source[line_start:start].strip() and self.tokens[run_end + 2].type == tokenize.NL:
                        start, end = line_start, self.end(self.tokens[run_end + 2])  # its whole line
                else:  # the run goes with the comma before it
                    kept_end = entries[last_kept][1]
                    start, end = self.end(self.tokens[kept_end]), self.end(self.tokens[run_end])
                self.edit(start, end, "")
        return handled

    def _statements(self) -> list[tuple[int, int]]:
        """(first token, its NEWLINE token) of every logical line that opens a statement."""
        out = []
        first = None
        skip = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
        for i, tok in enumerate(self.tokens):
            if first is None and tok.type not in skip and tok.type != tokenize.NEWLINE:
                first = i
            elif first is not None and tok.type == tokenize.NEWLINE:
                out.append((first, i))
                first = None
        return out

    def _imported_modules(self) -> set[str]:
        found = set()
        for first, last in self._statements():
            if self.is_name(first, "import"):
                found |= {self.tokens[k].string for k in range(first + 1, last) if self.is_name(k)}
        return found

    def apply(self) -> str:
        if self.asyncio_import is not None:
            (first, last), already = self.asyncio_import
            wanted = [m for m in self.modules_needed if m not in already]
            tok = self.tokens[first]
            if wanted:
                indent = " " * tok.start[1]
                self.edit(self.offset(tok.start), self.offset(self.tokens[last].start),
                          f"\n{indent}".join(f"import {m}" for m in wanted))
            else:
                line_start = self._line_starts[tok.start[0] - 1]
                self.edit(line_start, self.end(self.tokens[last]), "")
        elif self.modules_needed:
            raise UnasyncError(f"graphmem/_async/{self.name}: asyncio.<name> used without 'import asyncio'")
        edits = sorted(self.edits)
        out, position = [], 0
        for start, end, text in edits:
            if start < position:
                raise UnasyncError(f"graphmem/_async/{self.name}: overlapping rewrites at offset {start}")
            out.append(self.source[position:start])
            out.append(text)
            position = end
        out.append(self.source[position:])
        return "".join(out)


def unasync(source: str, name: str = "module.py") -> Result:
    """The sync twin of one async module's source (without the header), and its warnings."""
    text = _Rewriter(source, name).run()
    result = Result(text)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in ("async", "await", "asyncio", "Awaitable"):
            raise UnasyncError(f"graphmem/_async/{name}:{tok.start[0]}: '{tok.string}' survived the rewrite")
        if tok.type in (tokenize.STRING, tokenize.COMMENT, FSTRING_MIDDLE):
            for match in LEFTOVER.finditer(tok.string):
                result.warnings.append(
                    f"graphmem/_sync/{name}:{tok.start[0]}: prose still says {match.group(0)!r}; "
                    f"reword graphmem/_async/{name} or add a phrase to {TOOL}")
    compile(text, f"graphmem/_sync/{name}", "exec")
    return result


def sources(source_dir: Path = SOURCE) -> list[Path]:
    """Every async module the sync package mirrors."""
    return sorted(p for p in source_dir.glob("*.py") if p.name != "__init__.py")


def generate(path: Path) -> Result:
    """The full generated sync file (header included) for one async module."""
    result = unasync(path.read_text(), path.name)
    result.text = HEADER.format(name=path.name) + result.text
    return result


def main(argv: list[str], *, source_dir: Path = SOURCE, target_dir: Path = TARGET) -> int:
    check = "--check" in argv
    unknown = [a for a in argv if a != "--check"]
    if unknown:
        print(f"usage: python {TOOL} [--check]", file=sys.stderr)
        return 2
    stale, written = [], []
    wanted_names = set()
    for path in sources(source_dir):
        wanted_names.add(path.name)
        try:
            result = generate(path)
        except (UnasyncError, SyntaxError) as exc:
            print(f"unasync: {exc}", file=sys.stderr)
            return 2
        for warning in result.warnings:
            print(f"unasync: warning: {warning}", file=sys.stderr)
        target = target_dir / path.name
        if target.is_file() and target.read_text() == result.text:
            continue
        if check:
            stale.append(target.name)
        else:
            target.write_text(result.text)
            written.append(target.name)
    # a module removed or renamed in _async leaves its generated twin behind: drop it
    for orphan in sorted(target_dir.glob("*.py")):
        if orphan.name in wanted_names or orphan.name == "__init__.py":
            continue
        if not orphan.read_text().startswith(HEADER_MARK):
            continue  # not ours: leave it alone
        if check:
            stale.append(f"{orphan.name} (no async source)")
        else:
            orphan.unlink()
            written.append(f"{orphan.name} (removed)")
    if check and stale:
        print(f"unasync: graphmem/_sync is out of date ({', '.join(stale)}); run python {TOOL}", file=sys.stderr)
        return 1
    if written:
        print(f"unasync: wrote {', '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
