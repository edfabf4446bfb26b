"""Names that differ only in symbols, scripts or emoji stay different things (issue 23.7)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def test_c_cpp_and_csharp_are_three_entities(memory):
    ids = {memory.upsert_entity(name, type="language", scope="k").id for name in ("C", "C++", "C#")}
    assert len(ids) == 3
    assert memory.upsert_entity("c++", type="language", scope="k").id in ids  # case still folds
    assert len({memory.upsert_entity(n, type="brand", scope="k").id for n in ("F#", "F", ".NET", "NET")}) == 4
    assert len({memory.upsert_entity(n, type="city", scope="k").id for n in ("東京", "京都", "Москва")}) == 3
    assert len({memory.upsert_entity(n, type="mood", scope="k").id for n in ("👍", "👎")}) == 2


def test_forgetting_cpp_forgets_only_cpp(memory):
    for language in ("C", "C++", "C#"):
        memory.remember(f"Bob codes in {language}", scope="k")
    assert memory.forget(scope="k", text="Bob codes in C++.") == 1
    assert sorted(f.text for f in memory.facts(scope="k")) == ["Bob codes in C", "Bob codes in C#"]
