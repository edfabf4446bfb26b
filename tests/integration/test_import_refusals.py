"""Issue 49.8: import took edges and records graphmem never writes (a SUPERSEDES from a fact to
itself, the same edge twice, an invalidation without its reason), and the Python API took a
file without a header that the command line refused. Each bad file is now refused whole, by
the API and by ``graphmem import`` alike, naming the record and the field, with nothing
written (counted by direct Cypher); an honest export still round-trips, RELATES loops and the
two ABOUT edges of a fact about one entity as subject and object included."""

from __future__ import annotations

import copy
import json
import uuid
from datetime import datetime, timezone

import pytest

from graphmem import InvalidInputError, Memory
from graphmem._memory.transfer import NO_HEADER

pytestmark = pytest.mark.integration


def footprint(driver, tenant: str) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (n {tenant: $t}) OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels",
        {"t": tenant})
    return records[0]["nodes"], records[0]["rels"]


@pytest.fixture
def source(memory):
    """An export with a supersession, a forgotten fact, a fact about one entity as subject and
    object (a RELATES loop and two ABOUT edges between the same two memories), and a fact
    derived from one episode named twice (one DERIVED_FROM edge)."""
    ann = memory.upsert_entity("Ann", type="person", scope="acme")
    memory.remember("Ann lives in Paris", subject=ann.id, predicate="lives_in", object="Paris", scope="acme/ann",
                    valid_from=datetime(2020, 1, 1, tzinfo=timezone.utc), single_valued=True)
    memory.remember("Ann lives in Berlin", subject=ann.id, predicate="lives_in", object="Berlin", scope="acme/ann",
                    valid_from=datetime(2022, 1, 1, tzinfo=timezone.utc), single_valued=True)
    memory.relate(ann.id, "admires", ann.id, scope="acme/ann")
    gone = memory.remember("Ann dislikes tea", scope="acme/ann")
    memory.forget(id=gone.id, scope="acme/ann")
    said = memory.add_episode("Ann said hi", scope="acme/ann", role="user")
    memory.remember("Ann greets people", scope="acme/ann", derived_from=[said.id, said.id])
    return json.loads(json.dumps(list(memory.export_records())))  # as a file gives it back


@pytest.fixture
def fresh(neo4j, schema, embedder, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-in", embedder=embedder) as m:
        yield m


def at(records, kind: str, **match) -> int:
    return next(i for i, r in enumerate(records) if r["record"] == kind
                and all((r.get(k) if k in ("type",) else r["props"].get(k)) == v for k, v in match.items()))


def supersedes_itself(records):
    i = at(records, "edge", type="SUPERSEDES")
    records[i]["target"] = records[i]["source"]
    return records, f"records[{i}].target", "never writes a SUPERSEDES edge from a memory to itself"


def the_same_edge_twice(records):
    i = at(records, "edge", type="SUPERSEDES")
    records.insert(i + 1, copy.deepcopy(records[i]))
    return records, f"records[{i + 1}]", f"repeats the SUPERSEDES edge of records[{i}]"


def the_same_edge_twice_with_another_reason(records):
    i = at(records, "edge", type="SUPERSEDES")
    twin = copy.deepcopy(records[i])
    twin["props"]["reason"] = "corrected"
    records.append(twin)
    return records, f"records[{len(records) - 1}]", f"repeats the SUPERSEDES edge of records[{i}]"


def the_same_about_twice(records):
    i = at(records, "edge", type="ABOUT", role="object")
    records.append(copy.deepcopy(records[i]))
    return records, f"records[{len(records) - 1}]", f"repeats the ABOUT edge of records[{i}]"


def invalidated_without_a_reason(records):
    i = at(records, "node", text="Ann dislikes tea")
    assert records[i]["props"]["invalidationReason"] == "forgotten"
    del records[i]["props"]["invalidationReason"]
    return records, f"records[{i}].props.invalidationReason", "is required with invalidatedAt"


def a_reason_without_invalidation(records):
    i = at(records, "node", text="Ann dislikes tea")
    del records[i]["props"]["invalidatedAt"]
    return records, f"records[{i}].props.invalidatedAt", "is required with invalidationReason"


def no_header(records):
    return records[1:], "records[0]", NO_HEADER


def a_second_header(records):
    records.insert(3, copy.deepcopy(records[0]))
    return records, "records[3].record", "is a second header"


BAD = [supersedes_itself, the_same_edge_twice, the_same_edge_twice_with_another_reason, the_same_about_twice,
       invalidated_without_a_reason, a_reason_without_invalidation, no_header, a_second_header]


@pytest.mark.parametrize("spoil", BAD, ids=[f.__name__ for f in BAD])
def test_a_bad_file_is_refused_whole_by_the_api(source, fresh, driver, spoil):
    records, field, words = spoil(copy.deepcopy(source))
    with pytest.raises(InvalidInputError) as err:
        fresh.import_records(records, batch_size=1)
    assert err.value.field == field and words in err.value.message, str(err.value)
    assert footprint(driver, fresh.tenant) == (0, 0)  # not even the nodes before it


@pytest.mark.parametrize("spoil", BAD, ids=[f.__name__ for f in BAD])
def test_a_bad_file_is_refused_whole_by_the_command_line(cli, source, driver, tmp_path, spoil):
    records, field, words = spoil(copy.deepcopy(source))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    target = f"test-{uuid.uuid4().hex[:12]}"
    done = cli("import", str(bad), "--tenant", target, "--batch-size", "1")
    assert done.returncode == 2, done.stderr
    line = int(field.split("[", 1)[1].split("]", 1)[0]) + 1
    rest = field.split("]", 1)[1].lstrip(".")
    assert f"{bad}: line {line}{', ' + rest if rest else ''}: " in done.stderr, done.stderr
    assert words in done.stderr, done.stderr
    assert footprint(driver, target) == (0, 0)


def test_the_api_and_the_command_line_give_one_message_for_a_file_without_a_header(cli, fresh, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text('{"role": "user", "content": "hello"}\n')
    with pytest.raises(InvalidInputError) as err:
        fresh.import_records([{"role": "user", "content": "hello"}])
    assert (err.value.field, err.value.message) == ("records[0]", NO_HEADER)
    done = cli("import", str(transcript))
    assert done.returncode == 2 and f"{transcript}: line 1: {NO_HEADER}" in done.stderr, done.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(InvalidInputError) as err:
        fresh.import_records([])
    assert err.value.field == "records" and "is empty" in err.value.message
    done = cli("import", str(empty))
    assert done.returncode == 2 and f"{empty}: is empty: " in done.stderr, done.stderr


def test_an_edge_the_tenant_already_holds_is_refused(source, fresh, driver):
    fresh.import_records(source)
    before = footprint(driver, fresh.tenant)
    i = at(source, "edge", type="SUPERSEDES")
    with pytest.raises(InvalidInputError) as err:
        fresh.import_records([source[0], source[i]])  # both ends are the tenant's already
    assert err.value.field == "records[1]" and "already holds this SUPERSEDES edge" in err.value.message
    about = at(source, "edge", type="ABOUT", role="object")
    with pytest.raises(InvalidInputError):
        fresh.import_records([source[0], source[about]])
    assert footprint(driver, fresh.tenant) == before


def test_an_honest_export_round_trips_through_the_api_and_the_command_line(cli, memory, source, fresh, driver, tmp_path):
    assert fresh.import_records(source) == {"scopes": 2, "nodes": 8, "edges": 10}
    assert dict(fresh.graph(scope="acme/ann").nodes(data=True)) == dict(memory.graph(scope="acme/ann").nodes(data=True))
    assert sorted(map(str, fresh.graph(scope="acme/ann").edges(keys=False, data="type"))) == \
        sorted(map(str, memory.graph(scope="acme/ann").edges(keys=False, data="type")))
    file = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(file)).returncode == 0
    target = f"test-{uuid.uuid4().hex[:12]}"
    done = cli("import", str(file), "--tenant", target)
    assert done.returncode == 0, done.stderr
    assert footprint(driver, target) == footprint(driver, memory.tenant)
