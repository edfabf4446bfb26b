"""Names that differ only in symbols, scripts or emoji stay different things (issue 23.7)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.reliability]


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


def test_rekey_brings_keys_written_by_the_old_rule_up_to_date(memory, driver, neo4j):
    import importlib.util
    from pathlib import Path

    from graphmem import Settings, connect
    from graphmem._sync.executor import Executor

    old = memory.upsert_entity("C++", type="language", scope="old", aliases=["CPP!"])
    fact = memory.remember("Bob codes in C#", scope="old")
    driver.execute_query(  # what the old rule stored: every symbol folded away
        "MATCH (m:Memory {tenant: $t}) WHERE m.scope = 'old' "
        "SET m.textKey = CASE m.id WHEN $e THEN 'c' ELSE 'bob codes in c' END, "
        "    m.nameKey = CASE m.id WHEN $e THEN 'c' END, m.aliasKeys = CASE m.id WHEN $e THEN ['cpp'] END",
        {"t": memory.tenant, "e": old.id})
    assert memory.forget(scope="old", text="Bob codes in C#") == 0  # the stale key does not match
    path = Path(__file__).resolve().parents[2] / "tools" / "rekey.py"
    spec = importlib.util.spec_from_file_location("rekey", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    with connect(Settings(uri=neo4j.uri, user=neo4j.user, password=neo4j.password)) as raw:
        run = Executor(raw, database=None, tracer=None, owns_driver=False)
        assert tool.rekey(run, tenant=memory.tenant, page=7, progress=lambda m: None) >= 2
        assert tool.rekey(run, tenant=memory.tenant, progress=lambda m: None) == 0  # idempotent
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {tenant: $t, id: $id}) RETURN m.nameKey AS name, m.aliasKeys AS aliases",
        {"t": memory.tenant, "id": old.id})
    assert (records[0]["name"], records[0]["aliases"]) == ("c++", ["cpp"])
    assert memory.upsert_entity("c++", type="language", scope="old").id == old.id
    assert memory.forget(scope="old", text="Bob codes in C#.") == 1
    assert fact.id not in {f.id for f in memory.facts(scope="old")}
