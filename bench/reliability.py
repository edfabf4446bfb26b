"""The reliability table: runs tests/reliability (bad input, fuzzing, races, lock waits,
faults, isolation) and writes bench/results/reliability.md, one row per kind of check with
what was tried and what was lost or leaked (the goal is zero on every row).

    python bench/reliability.py [extra pytest arguments]

Uses ``NEO4J_URI`` if set, otherwise the test session starts the embedded Neo4j (as
``make test`` does); the fault tests always start and kill a Neo4j of their own. A row's
"lost or leaked" cell is 0 only when every test behind it passed: those tests assert
exact counts (by direct Cypher), so a pass is a measured zero and a failure is named.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import harness  # noqa: E402


@dataclass(frozen=True)
class Row:
    area: str
    tried: str
    lost: str  # what the tests count that must be zero
    tests: tuple[str, ...]  # node id prefixes under tests/reliability/


ROWS = [
    Row("Bad input", "vectors of 1e308, 1e200, 1e-200, 1e-320 (one call and item 2 of a batch), then recall in "
        "3 scopes; dates with no UTC form; a lone surrogate, NUL, ESC sequence, BEL and C1 CSI in 7 fields "
        "(text, tags, name, aliases, user_id, scope, query); 1 bad item among 5,000; 100,000 tags, a 1 MB tag, "
        "1,000 aliases; an embedder that is not an Embeddings, one that raises",
        "writes left by a refused call; raw (non-graphmem) exceptions", ("test_bad_input.py",)),
    Row("Fuzzing (hypothesis)", "40 generated calls each of remember, remember_many, upsert_entity, add_episode, "
        "forget, recall + context, get + facts + history + evidence + suggest_procedures: any code point, "
        "surrogates, controls, empty and over-limit texts and scopes, dates from year 1 to 9999 at any offset, "
        "naive dates, NaN/inf/subnormal vectors, wrong types",
        "non-graphmem exceptions; nodes or relationships changed by a failed write", ("test_fuzz.py",)),
    Row("Stored bad vectors", "vectors of 1e200, 1e-200, NaN and the wrong dimension planted past validation (as "
        "older versions allowed), then recall in a child scope; setup() over a tenant holding them; the repair "
        "beside valid vectors", "recalls failing; refused vectors left after setup(); records or valid vectors lost",
        ("test_bad_vectors.py",)),
    Row("Look-alike keys", "C / C++ / C#, F# / F, .NET / NET, 東京 / 京都 / Москва, 👍 / 👎 as entity names; "
        "forget of 'Bob codes in C++' among C, C++, C#; re-keying records written by the old rule",
        "distinct names merged; facts forgotten beyond the target", ("test_keys.py",)),
    Row("Races", "8 threads: 320 upserts of 40 names; 160 writes of 20 explicit ids; 120 changes of one "
        "single-valued fact; 40 forgets racing writes in one scope; upserts of 40 names racing in a scope and its "
        "child, and in either order; one entity ingested from 8 sessions at once, and from sessions in a scope and "
        "its child; background turns of 6 users; erase racing writes of the erased user; a write that loses a "
        "uniqueness race and a read the server fails, with the driver's connections watched",
        "errors; duplicate entities or records; scope counter != count; current values != 1; SUPERSEDES cycles; "
        "facts forgotten beyond the target; records of an erased user left; driver calls on a connection "
        "already back in the pool", ("test_races.py", "test_races_turns.py", "test_connection_handoff.py")),
    Row("Lock waits", "a scope lock held by a transaction that never ends, then a write to that scope; the "
        "server's lock timeout setting", "writes hanging past 60 s; writes landing twice", ("test_lock_wait.py",)),
    Row("Neo4j down or refusing", "a closed port, a 0.3 s connection_timeout, a wrong password",
        "errors slower than the bound; passwords in messages", ("test_connection.py",)),
    Row("Launcher secrets", "`graphmem neo4j start` and `status` on a running server: both output streams; the "
        "printed lines evaluated by bash and sh, the Makefile's two eval lines, a program connecting from that shell; "
        "`--show-password`; a password made of shell syntax sourced from the env file",
        "passwords printed; settings not exported; an env file others may read; shell code run from the env file",
        ("test_secrets.py",)),
    Row("MCP over HTTP", "a real `graphmem mcp --http` on 127.0.0.1: requests without a token, with 4 wrong ones and "
        "other schemes, on an open session, GET, DELETE, another path; 7 foreign origins; the server's own two and "
        "an allowed one; a first start without a token; a token file others may read, a short token, a bad origin",
        "requests served without the token or from a foreign origin; records written by refused requests; tokens "
        "printed", ("test_mcp_http.py",)),
    Row("MCP writes and arguments", "remember, correct and add_episode through a server configured for a user (the "
        "stdio command) beside another user's server, then erase by user; `tenant`, `user_id` and an invented "
        "argument sent to each of the 9 tools; 7 kinds of bad value",
        "records of the erased user left; the other user's records lost; undeclared arguments accepted; writes by "
        "refused calls; pydantic text in errors", ("test_mcp_trust.py",)),
    Row("Faults: kill -9 mid remember_many", "4,000 facts in 20 batches of 200 (half with explicit ids, half "
        "deduplicated by text) on the default data folder; kill -9 after 3 batches returned; "
        "`graphmem neo4j start`; the same 20 calls again on the same Memory",
        "facts lost; facts duplicated; batches half-written; scope counter != count",
        ("test_faults.py::test_remember_many",)),
    Row("Faults: kill -9 mid ingest", "8 two-message conversations with a scripted model; kill -9 while the "
        "4th conversation's extraction is under way (its episodes committed); restart; the 8 ingests again; "
        "an idle Memory open across the crash",
        "episodes, facts or entities lost or duplicated; extractions half-landed; calls failing after the restart",
        ("test_faults.py::test_ingest",)),
    Row("Faults: stale state", "a pid file naming a dead process, store lock files left by the kill, a pid "
        "reused by another state dir's Neo4j; the restart's wait while Neo4j recovers its transaction log",
        "restarts refused or moved to another port; foreign servers reported or stopped; restarts without a "
        "recovery progress line", ("test_faults.py::test_a_pid_file", "test_faults.py::test_remember_many")),
    Row("Erasure", "a private marker planted in every kind of record a user can have (facts, episodes and their "
        "windows, an insight, an extracted fact, a summary, an induced procedure, profile fields, a core note, a "
        "correction, a decision, her entities, a scope named after her) beside another user's; erase by user, by "
        "scope, a rerun after an older erase, an erase interrupted between batches",
        "nodes, properties, edges or index entries still holding the marker or an erased id; the other user's "
        "records changed", ("test_erase_closure.py",)),
    Row("Owners", "the same statement from two users, from one user in two sessions, three times in one batch; "
        "the same message from two users at one instant; curation dedupe, forget and insight twins across users; "
        "an explicit id reused by another user; erase by session; LangGraph items owned through their namespace",
        "one person's record returned for, merged into, silenced by or erased with another's",
        tuple(f"test_trust.py::test_{name}" for name in (
            "two_people", "a_batch_keeps", "an_explicit_id", "the_same_words", "curation_never", "one_person",
            "an_insight", "erase_by_session", "store_items"))),
    Row("Import checks", "11 kinds of bad property in an export line (NUL, ESC, 10 MB text, NaN and short vectors, "
        "a control character in a tag, unknown provenance, importance 7, a padded user id, an untagged date, a "
        "property graphmem never writes); a lexKey chosen to flood another tenant's full-text key; export then "
        "import into another tenant; an id twice in one file, an id the tenant holds",
        "lines written from a refused file; another tenant's keyword recall changed; keyword recall lost in a copy",
        tuple(f"test_trust.py::test_{name}" for name in (
            "import_refuses", "a_chosen_lexkey", "an_exported_copy", "import_checks", "import_keeps"))),
    Row("Clear errors", "a memory without provenance under stats() and curate(); control characters deep in entity "
        "properties; text of zero-width characters only; derived_from naming nothing or a fact; store values that "
        "are not JSON, of 10 MB, with control characters; tenants and ids padded with spaces; correct() losing a "
        "race; the documented scope depth",
        "raw (non-graphmem) exceptions; writes left by a refused call",
        tuple(f"test_trust.py::test_{name}" for name in (
            "stats_and_curate", "control_characters", "text_of_only", "derived_from", "store_values",
            "tenants_and_ids", "a_correction_that", "limits_doc"))),
    Row("Fuzzing the outside doors", "mutated export files into import_records; hostile namespaces, keys, values, "
        "index fields and TTLs through the LangGraph store's put/get/search/delete; hostile and unknown arguments "
        "to every MCP tool (the SDK's in-memory client); counts below the table",
        "raw errors (an exception that is not graphmem's or LangGraph's, an MCP tool crash); partial writes",
        ("test_fuzz_surfaces.py",)),
    Row("Isolation", "10,000 randomized reads on 4 threads across 3 tenants sharing ids, scopes, subjects, texts "
        "and entity names, through 18 read paths: recall (graph expansion, citations), context, facts, history, "
        "get, evidence, suggest_procedures, messages, sessions, profile, notes, summaries, context_for_turn, "
        "corrections, decisions, graph, the LangChain retriever, the LangGraph store",
        "records or private markers of another tenant returned", ("test_isolation.py",)),
]


class Collector:
    """A pytest plugin that keeps each test's outcome and time by node id."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        nodeid = report.nodeid.split("tests/reliability/", 1)[-1]
        self.seconds[nodeid] = self.seconds.get(nodeid, 0.0) + report.duration
        if report.failed or report.when == "call":
            if self.outcomes.get(nodeid) != "failed":
                self.outcomes[nodeid] = report.outcome


def row_cells(row: Row, outcomes: dict[str, str], seconds: dict[str, float]) -> list[object]:
    """[area, tried, tests passed, seconds, lost/leaked] for one row."""
    mine = [n for n in outcomes if any(n.startswith(prefix) for prefix in row.tests)]
    passed = [n for n in mine if outcomes[n] == "passed"]
    if not mine:
        verdict = "not run"
    elif len(passed) == len(mine):
        verdict = f"**0** ({row.lost})"
    else:
        failing = ", ".join(n.split("::", 1)[-1] for n in mine if outcomes[n] != "passed")
        verdict = f"**FAILED**: {failing} ({row.lost})"
    return [row.area, row.tried, f"{len(passed)}/{len(mine)}", round(sum(seconds.get(n, 0.0) for n in mine), 1), verdict]


def fault_notes(figures: dict[str, Any]) -> str:
    """The fault tests' own measurements, in words."""
    if not figures.get("restart_s"):
        return ""
    lines = [f"Fault figures: restart after kill -9 (`graphmem neo4j start`, same data folder and port) took "
             f"{', '.join(f'{s} s' for s in figures['restart_s'])}; a call to the dead server failed with "
             f"Neo4jUnavailableError after {', '.join(f'{s} s' for s in figures['down_error_s'])} "
             "(connection_timeout 2 s)."]
    bulk = figures.get("remember_many")
    if bulk:
        lines.append(f"remember_many: {bulk['batches_returned']} batches had returned at the kill, "
                     f"{bulk['batches_on_disk']} were on disk after the restart (each whole), "
                     f"{bulk['after_repeat']:,} of {bulk['expected']:,} facts after the repeat.")
    recovery = figures.get("recovery_lines")
    if recovery:
        lines.append("The restarts' last progress lines: " + "; ".join(f"`{line}`" for line in recovery) + ".")
    ingest = figures.get("ingest")
    if ingest:
        plural = {"Entity": "entities", "Episode": "episodes", "Fact": "facts"}
        counts = ", ".join(f"{n} {plural.get(kind, kind)}" for kind, n in ingest["after_repeat"].items())
        lines.append(f"ingest: killed in conversation {ingest['killed_at'] + 1} of {ingest['conversations']}; "
                     f"after the repeat {counts}, each exactly once.")
    return " ".join(lines)


def fuzz_notes(tally: dict[str, Any]) -> str:
    """The outside doors' fuzz counts, in words."""
    if not tally:
        return ""
    parts = [f"{surface} {t['tried']} cases ({t['ok']} accepted, {t['clear']} clear errors, {t['raw']} raw errors, "
             f"{t['partial']} partial writes)" for surface, t in sorted(tally.items())]
    return "Fuzz counts: " + "; ".join(parts) + "."


def render(outcomes: dict[str, str], seconds: dict[str, float], figures: dict[str, Any], command: str,
           tally: dict[str, Any] | None = None) -> str:
    rows = [row_cells(row, outcomes, seconds) for row in ROWS]
    body = harness.table(["check", "what was tried", "tests passed", "seconds", "lost or leaked"], rows)
    notes = [fault_notes(figures), fuzz_notes(tally or {}),
             f"Reproduce with `{command}` (tests/reliability/, a real Neo4j; the fault tests start and kill one "
             "of their own). Each cell of the last column is a count the tests assert exactly, by direct Cypher "
             "or on every returned record: 0 means every test behind the row passed."]
    return body + "\n\n" + "\n\n".join(n for n in notes if n)


def main(argv: list[str] | None = None) -> int:
    import pytest

    extra = list(sys.argv[1:] if argv is None else argv)
    collector = Collector()
    started = time.monotonic()
    os.chdir(ROOT)
    code = pytest.main(["tests/reliability", "-q", "-p", "no:cacheprovider", *extra], plugins=[collector])
    elapsed = time.monotonic() - started
    faults = sys.modules.get("tests.reliability.test_faults")
    figures = getattr(faults, "FAULT_FIGURES", {})
    tally = getattr(sys.modules.get("tests.reliability.test_fuzz_surfaces"), "TALLY", {})
    body = render(collector.outcomes, collector.seconds, figures, "python bench/reliability.py", tally)
    path = harness.write_result("reliability", "Reliability: bad input, races, faults, isolation",
                                body, f"The whole run took {elapsed:.0f} s.")
    print(f"wrote {path}")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
