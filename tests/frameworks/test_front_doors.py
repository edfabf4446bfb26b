"""The five framework modules as users import them: each has ``__all__``, every class it
exports says it lives there, has a docstring, and so does every public method graphmem
defines on it (the dev venv's API-reference check cannot import these modules)."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ["graphmem.integrations.adk", "graphmem.integrations.agent_framework",
           "graphmem.integrations.openai_agents", "graphmem.integrations.pydantic_ai",
           "graphmem.integrations.llamaindex"]


@pytest.mark.parametrize("name", MODULES)
def test_a_framework_module_is_a_front_door(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__all__
    undocumented = []
    for export in module.__all__:
        value = getattr(module, export)
        if not inspect.getdoc(value):
            undocumented.append(export)
        if inspect.isclass(value):
            assert value.__module__ == name, f"{export} says it lives in {value.__module__}"
            for member, raw in vars(value).items():
                if member.startswith("_") or not inspect.isfunction(raw):
                    continue
                if raw.__module__.startswith("graphmem.") and not raw.__doc__:
                    undocumented.append(f"{export}.{member}")
    assert undocumented == []


EXTRAS = {"adk": "google-adk", "agent-framework": "agent-framework-core", "openai-agents": "openai-agents",
          "pydantic-ai": "pydantic-ai-slim", "llamaindex": "llama-index-core"}


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_framework_is_an_extra_and_the_installed_version_is_one_it_allows(extra):
    from importlib import metadata

    from packaging.requirements import Requirement

    meta = metadata.metadata("graphmem")
    assert extra in (meta.get_all("Provides-Extra") or [])
    wanted = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
    [requirement] = [r for r in wanted if r.marker is not None and r.marker.evaluate({"extra": extra})
                     and r.name == EXTRAS[extra]]
    assert requirement.specifier.contains(metadata.version(EXTRAS[extra]))
