"""Unit tests for tools/unasync.py, the generator of graphmem/_sync from graphmem/_async."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import textwrap
from pathlib import Path

import pytest

from graphmem._base import public

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("graphmem_tools_unasync_tests", ROOT / "tools" / "unasync.py")
unasync = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(unasync)


def sync(source: str) -> str:
    return unasync.unasync(textwrap.dedent(source), "snippet.py").text


def same(source: str, expected: str) -> None:
    assert sync(source) == textwrap.dedent(expected)


# -- code -------------------------------------------------------------------------------------

def test_await_is_removed_with_its_space_and_parentheses_stay():
    same(
        """\
        async def f(tx):
            rows = await tx.run("a", x=1)
            first = (await tx.run("b"))[0]
            return await g(await h(rows), first)
        """,
        """\
        def f(tx):
            rows = tx.run("a", x=1)
            first = (tx.run("b"))[0]
            return g(h(rows), first)
        """,
    )


def test_async_with_for_and_comprehensions_lose_async():
    same(
        """\
        async def rows(session):
            async with session() as s:
                async for record in s.run("q"):
                    print(record)
                return [row(r) async for r in s.run("q")]
        """,
        """\
        def rows(session):
            with session() as s:
                for record in s.run("q"):
                    print(record)
                return [row(r) for r in s.run("q")]
        """,
    )


def test_awaitable_inside_callable_keeps_the_inner_type():
    same(
        """\
        from typing import Any, Awaitable, Callable, TypeVar
        import typing

        async def write(work: Callable[[AsyncTx], Awaitable[T]]) -> T: ...
        def nested(f: Callable[[], Awaitable[dict[str, list[int]]]]) -> None: ...
        def dotted(f: Callable[[], typing.Awaitable[int]]) -> None: ...
        """,
        """\
        from typing import Any, Callable, TypeVar
        import typing

        def write(work: Callable[[Tx], T]) -> T: ...
        def nested(f: Callable[[], dict[str, list[int]]]) -> None: ...
        def dotted(f: Callable[[], int]) -> None: ...
        """,
    )


def test_awaitable_leaves_an_import_wherever_it_stands():
    assert sync("from typing import Callable, Awaitable\n") == "from typing import Callable\n"
    assert sync("from typing import (\n    Awaitable,\n    Callable,\n)\n") == "from typing import (\n    Callable,\n)\n"
    assert sync("import os\nfrom typing import Awaitable\nx = 1\n") == "import os\nx = 1\n"


def test_async_prefixed_names_lose_the_prefix_anywhere_in_code():
    same(
        """\
        from neo4j import AsyncDriver, AsyncGraphDatabase
        import neo4j

        class AsyncWhatever(AsyncMixin):
            driver: neo4j.AsyncDriver

            def make(self) -> AsyncWhatever:
                return AsyncWhatever(AsyncGraphDatabase.driver("u"))
        """,
        """\
        from neo4j import Driver, GraphDatabase
        import neo4j

        class Whatever(Mixin):
            driver: neo4j.Driver

            def make(self) -> Whatever:
                return Whatever(GraphDatabase.driver("u"))
        """,
    )


def test_names_that_only_look_async_are_left_alone():
    source = "class MyAsyncThing(Asyncish):\n    Async = 1\n    asynchrony = MyAsyncThing\n"
    assert sync(source) == source


def test_a_renamed_import_that_duplicates_another_is_dropped():
    assert sync("from typing import AsyncIterator, Iterator\n") == "from typing import Iterator\n"
    assert sync("from x import AsyncA as A1, A\n") == "from x import A as A1, A\n"


def test_the_explicit_table_renames_methods_and_dunders():
    same(
        """\
        class AsyncCaller:
            async def __aenter__(self): return self
            async def __aexit__(self, *exc): await self.aclose()
            def __aiter__(self): return self
            async def __anext__(self): raise StopAsyncIteration
            async def go(self, llm, emb):
                await emb.aembed_documents(["a"]) + [await emb.aembed_query("b")]
                return await llm.ainvoke("p")
        """,
        """\
        class Caller:
            def __enter__(self): return self
            def __exit__(self, *exc): self.close()
            def __iter__(self): return self
            def __next__(self): raise StopIteration
            def go(self, llm, emb):
                emb.embed_documents(["a"]) + [emb.embed_query("b")]
                return llm.invoke("p")
        """,
    )


def test_the_async_package_becomes_the_sync_package_in_imports():
    assert sync("from graphmem._async.memory import AsyncMemory\n") == "from graphmem._sync.memory import Memory\n"


def test_asyncio_primitives_become_threading_and_the_import_follows():
    same(
        """\
        import asyncio

        slots = asyncio.Semaphore(4)
        lock = asyncio.Lock()
        """,
        """\
        import threading

        slots = threading.Semaphore(4)
        lock = threading.Lock()
        """,
    )


def test_asyncio_import_becomes_each_needed_module_once():
    same(
        """\
        import asyncio
        import os

        async def pause():
            async with asyncio.Lock():
                await asyncio.sleep(1)
        """,
        """\
        import threading
        import time
        import os

        def pause():
            with threading.Lock():
                time.sleep(1)
        """,
    )
    assert sync("import asyncio\nimport time\n\nasync def p():\n    await asyncio.sleep(1)\n") == (
        "import time\n\ndef p():\n    time.sleep(1)\n")


def test_asyncio_without_a_sync_twin_is_refused_with_its_line():
    with pytest.raises(unasync.UnasyncError, match=r"snippet\.py:4: asyncio\.gather"):
        sync("import asyncio\n\nasync def f(a, b):\n    return await asyncio.gather(a, b)\n")
    with pytest.raises(unasync.UnasyncError, match="Coroutine"):
        sync("from typing import Coroutine\n")
    with pytest.raises(unasync.UnasyncError, match="Awaitable without a subscript"):
        sync("x = isinstance(y, Awaitable)\n")


def test_source_without_async_comes_back_byte_for_byte():
    source = textwrap.dedent(
        """\
        # a comment, some layout   and spacing
        x = f"{a!r:>{width}} {{literal}}"  \\
            + 'b'
        def g(  y ,z ):  # trailing
            return [i for i in y]\r
        """
    )
    assert sync(source) == source


# -- strings and comments -------------------------------------------------------------------------

def test_prose_renames_async_names_and_identifiers_as_whole_words_only():
    same(
        '''\
        def f(llm):
            """Mixed into ``AsyncMemory``; calls ``llm.ainvoke``. MyAsyncThing stays."""
            return hasattr(llm, "ainvoke")  # AsyncTx rows, like ainvoke_later stays
        ''',
        '''\
        def f(llm):
            """Mixed into ``Memory``; calls ``llm.invoke``. MyAsyncThing stays."""
            return hasattr(llm, "invoke")  # Tx rows, like ainvoke_later stays
        ''',
    )


def test_prose_words_are_not_rewritten_except_the_deliberate_phrases():
    result = unasync.unasync('"""async written once; uses the asyncio event loop."""\n# await here\n', "m.py")
    assert result.text == '"""async written once; uses the asyncio event loop."""\n# await here\n'
    assert "threading" not in result.text
    assert any("'asyncio'" in w and "m.py:1" in w for w in result.warnings)
    assert any("'await'" in w and "m.py:2" in w for w in result.warnings)


def test_the_front_door_docstring_reads_as_sync_code():
    source = (
        '"""``AsyncMemory``: the asyncio front door. ``graphmem/_sync/memory.py`` is generated from\n'
        'this file by ``tools/unasync.py``; edit this one and regenerate."""\n'
        "class AsyncMemory:\n"
        '    """Memory in Neo4j (asyncio)."""\n'
    )
    result = unasync.unasync(source, "memory.py")
    assert result.text == (
        '"""``Memory``: the synchronous front door. This file is generated\n'
        'from ``graphmem/_async/memory.py`` by ``tools/unasync.py``; edit that one and regenerate."""\n'
        "class Memory:\n"
        '    """Memory in Neo4j (synchronous)."""\n'
    )
    assert result.warnings == []


def test_a_self_reference_the_phrases_miss_is_reported():
    result = unasync.unasync('"""The sync twin is generated from this file."""\n', "x.py")
    assert result.warnings and "generated from this file" in result.warnings[0]


# -- files ----------------------------------------------------------------------------------------

def test_every_generated_file_starts_with_the_do_not_edit_header(tmp_path):
    (tmp_path / "thing.py").write_text('"""Doc."""\n\nasync def f():\n    pass\n')
    text = unasync.generate(tmp_path / "thing.py").text
    assert text.splitlines()[:3] == [
        "# Generated from graphmem/_async/thing.py by tools/unasync.py: do not edit.",
        "# Edit the async source and run `python tools/unasync.py` to regenerate.",
        '"""Doc."""',
    ]
    assert ast.get_docstring(ast.parse(text)) == "Doc."


def test_modules_are_discovered_drift_is_reported_and_orphans_removed(tmp_path, capsys):
    src, dst = tmp_path / "_async", tmp_path / "_sync"
    src.mkdir()
    dst.mkdir()
    (src / "__init__.py").write_text("")
    (src / "alpha.py").write_text("async def a():\n    await b()\n")
    (src / "beta.py").write_text("class AsyncBeta:\n    pass\n")
    (dst / "__init__.py").write_text("")
    (dst / "gone.py").write_text(unasync.HEADER.format(name="gone.py") + "x = 1\n")
    (dst / "handmade.py").write_text("y = 2\n")

    assert unasync.main(["--check"], source_dir=src, target_dir=dst) == 1
    err = capsys.readouterr().err
    assert "alpha.py" in err and "beta.py" in err and "gone.py (no async source)" in err
    assert unasync.main([], source_dir=src, target_dir=dst) == 0
    assert sorted(p.name for p in dst.iterdir()) == ["__init__.py", "alpha.py", "beta.py", "handmade.py"]
    assert (dst / "alpha.py").read_text().endswith("def a():\n    b()\n")
    assert (dst / "__init__.py").read_text() == ""
    assert unasync.main(["--check"], source_dir=src, target_dir=dst) == 0

    (dst / "beta.py").write_text((dst / "beta.py").read_text() + "# hand edit\n")
    assert unasync.main(["--check"], source_dir=src, target_dir=dst) == 1
    assert unasync.main(["--bogus"], source_dir=src, target_dir=dst) == 2


def test_the_committed_sync_package_is_exactly_what_the_generator_makes():
    assert unasync.main(["--check"]) == 0
    names = [p.name for p in unasync.sources()]
    assert names and "__init__.py" not in names
    assert sorted(p.name for p in (ROOT / "graphmem" / "_sync").glob("*.py") if p.name != "__init__.py") == names


def test_the_real_async_modules_translate_without_warnings():
    for path in unasync.sources():
        result = unasync.generate(path)
        assert result.warnings == [], result.warnings
        assert "threading front door" not in result.text
        assert "is generated from this file" not in result.text


def test_generated_modules_compile_import_and_mirror_the_async_classes():
    mirrored = []
    for path in unasync.sources():
        module_name = path.stem
        async_module = importlib.import_module(f"graphmem._async.{module_name}")
        sync_module = importlib.import_module(f"graphmem._sync.{module_name}")
        compile((ROOT / "graphmem" / "_sync" / path.name).read_text(), path.name, "exec")
        for name, value in vars(async_module).items():
            if not (isinstance(value, type) and name.startswith("Async")):
                continue
            # a published class (AsyncMemory) says it is graphmem's: where it is written counts
            if public.WRITTEN_IN.get(value, value.__module__) == async_module.__name__:
                twin = getattr(sync_module, name[len("Async"):])
                assert isinstance(twin, type), name
                async_methods = {m for m, f in vars(value).items() if callable(f)}
                sync_methods = {m for m, f in vars(twin).items() if callable(f)}
                assert {unasync.rename(m) for m in async_methods} == sync_methods, name
                mirrored.append(name)
    assert "AsyncMemory" in mirrored and len(mirrored) > 10, mirrored


def test_dropped_import_names_take_their_commas_in_any_position():
    assert sync("from t import X, Awaitable, AsyncX\n") == "from t import X\n"
    assert sync("from t import Awaitable, AsyncX, X\n") == "from t import X\n"
    assert sync("from t import (\n    A,  # keep\n    Awaitable,\n)\n") == "from t import (\n    A,  # keep\n)\n"
    assert sync("from t import (  # AsyncTx lives here\n    AsyncTx,\n)\n") == "from t import (  # Tx lives here\n    Tx,\n)\n"


def test_f_strings_and_non_ascii_docstrings_are_rewritten_on_every_python():
    # f-strings are one token before 3.12 and many after; 3.12.1 misplaces the end of a
    # multi-line string that follows non-ASCII text: the output must not depend on either
    same(
        '''\
        """On ``AsyncMemory`` (design §2, §3).
        ``graphmem/_sync/x.py`` is generated from this file by ``tools/unasync.py``."""
        msg = f"{{AsyncTx}} {x.ainvoke!r:>{width}} AsyncMemory é {{lit}}"
        ''',
        '''\
        """On ``Memory`` (design §2, §3).
        This file is generated from ``graphmem/_async/x.py`` by ``tools/unasync.py``."""
        msg = f"{{Tx}} {x.invoke!r:>{width}} Memory é {{lit}}"
        ''',
    )
