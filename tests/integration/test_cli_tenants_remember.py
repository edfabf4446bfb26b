"""What a user meets in the second hour with the ``graphmem`` console script (issue 29.4):
``remember`` writes facts, ``tenants`` lists the tenants with their counts, a read of an
unknown tenant says so, ``erase`` needs a selector or ``--all``, an untimed transcript line
follows the line before it, ``graph`` counts the NEXT edges the export has, and bad files
are refused with where and why, writing nothing."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

SCOPE = "acme/support/ann"


def test_remember_writes_a_fact_and_a_new_value_replaces_the_old(cli, memory):
    paris = cli("remember", "Ann lives in Paris", "--scope", SCOPE, "--subject", "ann", "--predicate", "lives_in",
                "--object", "Paris", "--valid-from", "2020-01-01", "--provenance", "user", "--tags", "home, city",
                "--json")
    assert paris.returncode == 0, paris.stderr
    first = json.loads(paris.stdout)
    assert (first["object"], first["provenance"], first["tags"], first["supersedes"]) == ("Paris", "user",
                                                                                         ["home", "city"], [])
    assert first["valid_from"].startswith("2020-01-01T00:00:00")  # a date without an offset is read as UTC
    berlin = cli("remember", "Ann moved to Berlin", "--scope", SCOPE, "--subject", "ann", "--predicate", "lives_in",
                 "--object", "Berlin", "--valid-from", "2024-03-01")
    assert berlin.returncode == 0, berlin.stderr
    assert berlin.stdout.startswith("remembered ") and f"replaces {first['id']} (Paris)" in berlin.stdout
    assert [f.object for f in memory.facts(scope=SCOPE)] == ["Berlin"]
    assert [f.object for f in memory.facts(scope=SCOPE, valid_at=datetime(2021, 1, 1, tzinfo=timezone.utc))] == ["Paris"]
    again = cli("remember", "Ann moved to Berlin", "--scope", SCOPE, "--subject", "ann", "--predicate", "lives_in",
                "--object", "Berlin", "--valid-from", "2024-03-01")
    assert again.returncode == 0 and again.stdout.startswith("already remembered")
    likes = cli("remember", "Ann likes tea", "--scope", SCOPE, "--subject", "ann", "--predicate", "likes",
                "--object", "tea", "--no-single-valued", "--json")
    assert likes.returncode == 0 and json.loads(likes.stdout)["single_valued"] is False
    assert len(memory.history(subject="ann", scope=SCOPE)) == 3


def test_remember_refuses_bad_input_naming_the_field_and_writes_nothing(cli, memory):
    memory.remember("Ann lives in Paris", scope=SCOPE)  # the tenant exists: only the refused fact is missing
    for args, field in ((["--importance", "7"], "importance"), (["--scope", "acme//ann"], "scope"),
                        (["--valid-from", "2024-05-01", "--valid-to", "2024-01-01"], "valid_to")):
        done = cli("remember", "Ann likes tea", *(["--scope", SCOPE] if "--scope" not in args else []), *args)
        assert done.returncode == 2, done.stderr
        assert f"error: {field}:" in done.stderr, done.stderr
    assert cli("remember", "Ann likes tea").returncode == 2  # no scope
    assert cli("remember", "Ann likes tea", "--scope", SCOPE, "--valid-from", "soon").returncode == 2
    assert [f.text for f in memory.facts(scope=SCOPE)] == ["Ann lives in Paris"]


def test_tenants_lists_every_tenant_with_its_counts(cli, memory, neo4j, embedder):
    from graphmem import Memory

    other = f"test-{uuid.uuid4().hex[:12]}"
    memory.remember("Ann lives in Paris", scope=SCOPE)
    memory.add_episode("Ann: hello", scope="acme/support/bob")
    memory.upsert_entity("Acme", type="organisation", scope="acme")
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=other, embedder=embedder) as second:
        second.remember("Bo likes jazz", scope="music")
        listed = cli("tenants", "--json")
        table = cli("tenants")
        second.erase(scope="music")
    assert listed.returncode == 0, listed.stderr
    rows = {r["tenant"]: r for r in json.loads(listed.stdout)}
    total = sum(r["total"] for r in memory.counts())
    assert total == 4  # the fact, the episode, its speaker's entity (the user, by role), Acme
    assert (rows[memory.tenant]["memories"], rows[memory.tenant]["scopes"]) == (total, 4)  # acme, acme/support, ann, bob
    assert (rows[other]["memories"], rows[other]["scopes"]) == (1, 1)
    assert [r["tenant"] for r in json.loads(listed.stdout)] == sorted(rows)
    assert table.stdout.splitlines()[0].split() == ["TENANT", "MEMORIES", "SCOPES"]
    assert any(line.split() == [other, "1", "1"] for line in table.stdout.splitlines())
    gone = {r["tenant"] for r in json.loads(cli("tenants", "--json").stdout)}
    assert other not in gone and memory.tenant in gone  # a tenant erased to the last memory is no longer listed


def test_reads_of_an_unknown_tenant_say_there_is_no_such_tenant(cli, memory):
    unknown = f"no-such-{uuid.uuid4().hex[:8]}"
    for args in (["stats"], ["facts", "--scope", SCOPE], ["recall", "tea", "--scope", SCOPE], ["export"],
                 ["history", "ann", "--scope", SCOPE], ["graph", "--scope", SCOPE],
                 ["forget", "--scope", SCOPE, "--subject", "ann"], ["erase", "--all", "--yes"]):
        done = cli(*args, "--tenant", unknown)
        assert done.returncode == 1, (args, done.stderr)
        assert f"no such tenant {unknown!r}" in done.stderr and "graphmem tenants" in done.stderr, args
        assert done.stdout == "", args  # no empty table that looks like an empty tenant
    memory.remember("Ann likes tea", scope=SCOPE)
    empty_scope = cli("facts", "--scope", "acme/elsewhere")  # a tenant that exists, a scope with nothing in it
    assert empty_scope.returncode == 1 and "no such tenant" not in empty_scope.stderr
    assert empty_scope.stdout.strip() == "(none)"
    usage = cli("facts", "--tenant", unknown)  # usage is checked before the tenant
    assert usage.returncode == 2 and "--scope" in usage.stderr


def test_erase_needs_a_selector_or_all(cli, memory):
    memory.remember("Ann likes tea", scope=SCOPE)
    memory.remember("Bob likes coffee", scope="acme/support/bob")
    for args in (["--yes"], ["--yes", "--json"], []):
        refused = cli("erase", *args)
        assert refused.returncode == 2, refused.stderr
        assert "--all" in refused.stderr and "nothing was deleted" in refused.stderr
    both = cli("erase", "--all", "--scope", SCOPE, "--yes")
    assert both.returncode == 2 and "without --scope" in both.stderr
    assert sum(r["total"] for r in memory.counts()) == 2  # nothing was deleted
    one = cli("erase", "--scope", "acme/support/bob", "--yes", "--json")
    assert one.returncode == 0 and json.loads(one.stdout)["erased"] == 1
    everything = cli("erase", "--all", "--yes")
    assert everything.returncode == 0 and "everything in tenant" in everything.stdout
    assert memory.counts() == []


def test_erase_by_session_takes_that_conversation_only(cli, memory):
    memory.remember("Ann likes tea", scope=SCOPE, session_id="s1")
    memory.remember("Ann likes jazz", scope=SCOPE, session_id="s2")
    done = cli("erase", "--session-id", "s1", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["erased"] == 1
    assert [f.text for f in memory.facts(scope=SCOPE)] == ["Ann likes jazz"]


def test_an_untimed_transcript_line_follows_the_line_before_it(cli, memory, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "Is my order late?", "occurred_at": "2026-11-20T09:00:00Z", "session_id": "s1"},
             {"role": "assistant", "content": "It ships tomorrow", "session_id": "s1"},
             {"role": "user", "content": "Thanks", "occurred_at": "2026-11-21T10:00:00", "session_id": "s2"},
             {"role": "assistant", "content": "You are welcome", "session_id": "s3"}]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = cli("ingest", str(transcript), "--scope", SCOPE)
    assert done.returncode == 0, done.stderr
    stored = {e.text: e.occurred_at for s in ("s1", "s2", "s3") for e in memory.messages(s, scope=SCOPE)}
    nine = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    ten = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)  # no offset: read as UTC
    assert stored == {"Is my order late?": nine, "It ships tomorrow": nine + timedelta(microseconds=1),
                      "Thanks": ten, "You are welcome": ten + timedelta(microseconds=1)}


def test_graph_counts_the_next_edges_the_export_has(cli, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text("\n".join(json.dumps({"role": role, "content": f"turn {i}", "session_id": "s1",
                                                "occurred_at": f"2026-11-20T09:0{i}:00Z"})
                                    for i, role in enumerate(["user", "assistant"] * 2 + ["user"])) + "\n")
    assert cli("ingest", str(transcript), "--scope", SCOPE).returncode == 0
    exported = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(exported)).returncode == 0
    edges = [json.loads(line) for line in exported.read_text().splitlines() if '"record": "edge"' in line]
    # the turns in order, and who said each: the user's and the assistant's entities (by role),
    # derived from the turns they said
    wanted = ["DERIVED_FROM"] * 5 + ["NEXT"] * 4 + ["SPOKE"] * 5
    assert sorted(e["type"] for e in edges) == wanted
    drawn = cli("graph", "--scope", SCOPE, "--format", "json")
    assert drawn.returncode == 0, drawn.stderr
    assert "7 memories, 14 edges" in drawn.stderr
    graph = json.loads(drawn.stdout)
    links = graph.get("links", graph.get("edges"))
    assert sorted(link["type"] for link in links) == wanted


def test_a_malformed_line_is_refused_with_its_line_and_column_and_nothing_is_written(cli, memory, tmp_path):
    memory.remember("Ann likes tea", scope=SCOPE)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hello"}\n\n{"role": "user", "content": "cut off}\n')
    done = cli("ingest", str(bad), "--scope", SCOPE)
    assert done.returncode == 2
    assert f"{bad}: line 3, column 29: not JSON (Unterminated string starting at line 3, column 29)" in done.stderr
    document = tmp_path / "bad.json"
    document.write_text('[\n  {"role": "user",\n   "content": "a" "b"}\n]\n')
    done = cli("ingest", str(document), "--scope", SCOPE)
    assert done.returncode == 2 and "line 3, column 19: not JSON (Expecting ',' delimiter)" in done.stderr
    role = tmp_path / "role.jsonl"
    role.write_text('{"role": "user", "content": "one", "session_id": "a"}\n'
                    '{"role": "user", "content": "two", "session_id": "b"}\n'
                    '{"role": "robot", "content": "three", "session_id": "b"}\n')
    done = cli("ingest", str(role), "--scope", SCOPE)
    assert done.returncode == 2 and f"{role}: line 3, role: 'robot' is not one of" in done.stderr
    assert [(r["kind"], r["total"]) for r in memory.counts()] == [("fact", 1)]  # not even session a was written


def test_importing_a_file_that_is_not_an_export_says_so_and_writes_nothing(cli, memory, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text('{"role": "user", "content": "hello"}\n')
    done = cli("import", str(transcript))
    assert done.returncode == 2
    # the API's own refusal (issue 49.8: the API took such a file), told as the file's line
    assert f"{transcript}: line 1: is not an export's header" in done.stderr and "ingested, not imported" in done.stderr
    assert "records[0]" not in done.stderr
    memory.remember("Ann likes tea", scope=SCOPE)
    exported = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(exported)).returncode == 0
    lines = exported.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines, '{"record": "edge", "type": "LIKES", "source": "a", "target": "b"}']) + "\n")
    fresh = f"test-{uuid.uuid4().hex[:12]}"
    done = cli("import", str(broken), "--tenant", fresh)
    assert done.returncode == 2
    assert f"{broken}: line {len(lines) + 1}, type: 'LIKES' is not one of" in done.stderr, done.stderr
    assert "no such tenant" in cli("stats", "--tenant", fresh).stderr  # the nodes before it were not written either
