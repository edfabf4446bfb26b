"""graphmem's modules, imported, for the tests that look at every one of them (row types,
hand-written async pairs). The five agent frameworks' adapters import a framework the dev
venv does not install (make test-frameworks has its own venv): a module whose import fails
for want of one of those, and only of those, is left out."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from types import ModuleType

import graphmem

FRAMEWORKS = ("google", "agent_framework", "agents", "pydantic_ai", "llama_index")
"""The top-level packages of google-adk (and google-genai), agent-framework-core,
openai-agents, pydantic-ai-slim and llama-index-core."""


def package_modules(skip: tuple[str, ...] = ()) -> Iterator[tuple[str, ModuleType]]:
    """``(name, module)`` for every graphmem module but ``__main__`` and those under ``skip``."""
    for info in pkgutil.walk_packages(graphmem.__path__, "graphmem."):
        if info.name.endswith("__main__") or info.name.startswith(skip):
            continue
        try:
            yield info.name, importlib.import_module(info.name)
        except ModuleNotFoundError as missing:
            if (missing.name or "").split(".")[0] not in FRAMEWORKS or not info.name.startswith("graphmem.integrations."):
                raise
