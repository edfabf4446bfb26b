"""What graphmem keeps at module level, held to a reviewed list.

Issue 50 asks for no module-level mutable cache: what the code knows about a server lives in
``_memory/known.py`` (per memory object, per driver), where it expires by one rule. This test
reads every module's syntax tree and fails when module-level state appears outside the few
process-wide things that are not knowledge of any server (design note ``module-state``).
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import graphmem

ROOT = Path(graphmem.__file__).parent
MUTABLE_CALLS = {"dict", "set", "list", "defaultdict", "OrderedDict", "Counter", "deque",
                 "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}
# a name rebound at run time through `global`: each says something once per process, or
# builds the default observability (the global OpenTelemetry providers) on first use
GLOBALS = {
    ("_base/ner.py", "_told_no_pipeline"),
    ("_memory/core.py", "_told_lexical_only"),
    ("_base/traced.py", "_default"),
}
# functions whose results are kept for the process: the package's own files, the sample
# conversation shipped with the CLI, and the default models (one WordLlama, one spaCy
# pipeline per process); none reads a server
CACHED = {
    ("_base/templates.py", "fragments"), ("_base/templates.py", "_all"),
    ("_base/templates.py", "schema_names"), ("_base/templates.py", "schema_objects"),
    ("_base/embeddings.py", "default_embedder"), ("_base/ner.py", "default_extractor"),
    ("_cli/sample.py", "conversation"),
}


@cache  # parsed once for the module's three scans
def _modules() -> list[tuple[str, ast.Module]]:
    return [(path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(ROOT.rglob("*.py"))]


def _is_mutable(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in MUTABLE_CALLS
    return False


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""


def test_no_module_level_variable_holds_a_mutable_container():
    found = []
    for name, tree in _modules():
        for node in tree.body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name) and target.id != "__all__" and _is_mutable(value):
                    # a table in capitals is a constant built at import (read, never grown at run time)
                    if not target.id.lstrip("_").isupper():
                        found.append(f"{name}: {target.id}")
    assert found == []


def test_only_the_reviewed_names_are_rebound_through_global():
    found = {(name, global_name) for name, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, ast.Global) for global_name in node.names}
    assert found == GLOBALS


def test_only_the_reviewed_functions_keep_their_results():
    found = {(name, node.name) for name, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and any(_decorator_name(d) in {"lru_cache", "cache"} for d in node.decorator_list)}
    assert found == CACHED


def test_the_scan_sees_what_it_looks_for():
    tree = ast.parse("_seen = {}\nLIMITS = {}\n\n@lru_cache(maxsize=1)\ndef f():\n    global _seen\n")
    assigned = [node for node in tree.body if isinstance(node, ast.Assign)]
    assert [_is_mutable(node.value) for node in assigned] == [True, True]
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
    assert _decorator_name(function.decorator_list[0]) == "lru_cache"
