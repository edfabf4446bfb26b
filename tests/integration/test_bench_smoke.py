"""A tiny run of each benchmark: the harness works end to end (no timing asserts).

Each runs a bench script in a process of its own (graphmem and its models loaded again: 8 to
37 s each, three minutes together), so the smokes are marked long and run in
``make test-reliability``, which CI runs beside ``make test`` (docs/development.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_bench(neo4j, results: Path | None, script: str, *args: str) -> subprocess.CompletedProcess:
    """bench/<script> with these arguments against the test server, its tables written to
    ``results`` (a test's own folder, never bench/results) when given."""
    env = dict(os.environ, NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password)
    if results is not None:
        env["GRAPHMEM_BENCH_RESULTS"] = str(results)
    return subprocess.run([sys.executable, str(ROOT / "bench" / script), *args],
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.long
def test_recall_benchmark_smoke(neo4j, schema, tmp_path):
    # 1,200 memories: the whole tenant (1,000) takes the index path with the open Lucene query
    done = run_bench(neo4j, tmp_path, "recall.py", "--sizes", "1200", "--queries", "3", "--warmup", "5")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "recall.md").read_text()
    assert "| 1,200 | whole tenant |" in table and "200-memory scope (in 1,200)" in table
    assert "hybrid floor p50 ms" in table
    whole = next(line for line in table.splitlines() if line.startswith("| 1,200 | whole tenant |"))
    cells = [c.strip() for c in whole.strip("|").split("|")]
    assert len(cells) == 12 and float(cells[8].replace(",", "")) > 0 and cells[9].endswith("x")
    # the candidate floor names the rows it asked the two indexes for (18 + 48: 10 x 1.5 and
    # 40, over-fetched by 1,200 / 1,000; the benchmark counts on a server of its own)
    assert re.fullmatch(r"[\d.,]+ \(18 \+ 48\)", cells[10]) and cells[11].endswith("x")
    scoped = next(line for line in table.splitlines() if "200-memory scope" in line)
    assert [c.strip() for c in scoped.strip("|").split("|")][10:] == ["-", "-"]  # scanned exactly, narrowed
    assert "2 cores" in table or "cores" in table
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_write_benchmark_smoke(neo4j, schema, tmp_path, driver):
    done = run_bench(neo4j, tmp_path, "write.py", "--sizes", "120", "--batch", "50", "--warmup", "30")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "write.md").read_text()
    assert "| 120 |" in table and "floor rows/s" in table
    assert "indexed floor rows/s" in table and "where remember_many's time goes" in table
    assert "statement fact_create" in table and "validation (rows built in Python)" in table
    assert "import facts/s" in table and "import / indexed floor" in table
    records, _, _ = driver.execute_query("MATCH (m:Memory) WHERE m.tenant STARTS WITH 'bench-write-' RETURN count(m) AS n")
    assert records[0]["n"] == 0  # the written and the imported facts erased
    records, _, _ = driver.execute_query("MATCH (n) WHERE n:Floor OR n:FloorIndexed RETURN count(n) AS n")
    assert records[0]["n"] == 0  # the benchmark cleans up after itself
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name WHERE name STARTS WITH 'floor_' RETURN count(*) AS n")
    assert records[0]["n"] == 0  # its indexes too


def lme_questions() -> list[dict]:
    """Three made-up questions in LongMemEval's format (the real data set lives outside the
    repository): two answered in one session each, and an abstention question."""
    def session(*turns):
        return [{"role": role, "content": text} for role, text in turns]

    questions = [{
        "question_id": f"q{i}", "question_type": kind, "question": question, "question_date": "2024/05/01 (Wed) 10:00",
        "answer": answer, "answer_session_ids": ["s-hit"],
        "haystack_session_ids": ["s-miss", "s-hit", "s-later"],
        "haystack_dates": ["2024/01/01 (Mon) 09:00", "2024/02/01 (Thu) 09:00", "2024/06/01 (Sat) 09:00"],
        "haystack_sessions": [
            session(("user", "I repainted the kitchen blue."), ("assistant", "Nice colour!")),
            [{"role": "user", "content": evidence, "has_answer": True}, {"role": "assistant", "content": "Noted."}],
            session(("user", evidence + " (said later)")),
        ],
    } for i, (kind, question, evidence, answer) in enumerate([
        ("single-session-user", "What is my hamster called?", "My hamster is called Biscuit.", "Biscuit"),
        ("temporal-reasoning", "When did I adopt the parrot?", "I adopted a parrot named Kiwi in February.", "February"),
    ])]
    abstention = dict(questions[0], question_id="q9_abs", question="What is my goldfish called?")
    return [*questions, abstention]


@pytest.mark.long
def test_longmemeval_benchmark_smoke(neo4j, schema, tmp_path):
    """Three made-up questions in LongMemEval's format: the harness ingests, recalls, scores
    and writes its table (the real data set lives outside the repository); the abstention
    question gets a row of its own and counts in no type and not overall."""
    import json

    questions = lme_questions()
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(questions))
    done = run_bench(neo4j, tmp_path, "longmemeval.py", "--data", str(data))
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "longmemeval.md").read_text()
    assert "| overall | graphmem | 2 |" in table and "| overall | BM25 | 2 |" in table and "| overall | dense | 2 |" in table
    assert "| single-session-user | graphmem | 1 | 1.000 | 1.000 | 1.000 | 1.000 |" in table
    assert "| abstention (not scored) | graphmem | 1 |" in table and "| abstention (not scored) | dense | 1 |" in table
    assert "3 questions (2 scored, 1 abstention questions left out" in table
    assert "| all questions, abstention included | graphmem | 3 |" in table


@pytest.mark.long
def test_graphiti_comparison_smoke(neo4j, schema, tmp_path, driver):
    """Both systems on a few facts: Graphiti's adapters (embedder, cross-encoder, oracle LLM,
    bulk writer) still fit the pinned graphiti-core, the temporal scenario is scored for all
    three rows, and Graphiti's data is removed afterwards."""
    done = run_bench(neo4j, tmp_path, "graphiti_compare.py",
                     "--sizes", "40", "--subjects", "3", "--changes", "3", "--queries", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "graphiti.md").read_text()
    assert "| 40 |" in table
    for system in ("graphmem", "graphiti", "graphiti+filters"):
        assert f"| {system} |" in table
    graphmem_row = next(line for line in table.splitlines() if line.startswith("| graphmem |"))
    assert graphmem_row.split("|")[2].strip() == "100.0%"  # valid-time recall gets every answer right
    assert "EdgeDuplicate" in table  # Graphiti's own contradiction prompt reached the oracle
    assert neo4j.password not in table + done.stdout + done.stderr
    group = re.search(r"Graphiti group (bench_[0-9a-f]+)", done.stderr).group(1)
    records, _, _ = driver.execute_query("MATCH (n {group_id: $group}) RETURN count(n) AS n", {"group": group})
    assert records[0]["n"] == 0  # this run's Graphiti nodes and edges are gone


def locomo_sample() -> dict:
    """A made-up conversation in LoCoMo's format (the real data set is licensed for
    non-commercial use and lives outside the repository, in ../shared/data: never a line of it
    here): two dated sessions, an image caption, evidence written as "D1:3; D2:4", a question
    whose evidence turn does not exist and an adversarial (category 5) question."""
    said = {
        1: [("Mira", "Good morning! How was the weekend?"), ("Theo", "Quiet. I repaired the garden fence."),
            ("Mira", "We adopted a beagle puppy called Pepper on Saturday!"), ("Theo", "Wonderful, send a photo."),
            ("Mira", "Here she is, asleep on the sofa."), ("Theo", "She looks tiny."),
            ("Mira", "I also signed up for a pottery class on Thursdays."), ("Theo", "You always wanted to try that.")],
        2: [("Theo", "I started training for the autumn half marathon."), ("Mira", "How far do you run now?"),
            ("Theo", "Twelve kilometres on Sundays, along the canal."), ("Mira", "Pepper chewed my pottery bowl."),
            ("Theo", "Puppies chew everything."), ("Mira", "My sister Lena visits from Porto next month."),
            ("Theo", "Say hello to Lena from me."), ("Mira", "Will do, and good luck with the running.")],
    }
    conversation = {"speaker_a": "Mira", "speaker_b": "Theo",
                    "session_1_date_time": "9:15 am on 6 March, 2023", "session_2_date_time": "6:40 pm on 2 April, 2023"}
    for n, turns in said.items():
        conversation[f"session_{n}"] = [{"speaker": who, "dia_id": f"D{n}:{i}", "text": text}
                                        for i, (who, text) in enumerate(turns, 1)]
    conversation["session_1"][4]["blip_caption"] = "a photo of a small dog sleeping on a sofa"
    qa = [
        {"question": "When did Mira adopt the beagle Pepper?", "answer": "early March 2023", "evidence": ["D1:3"],
         "category": 2},
        {"question": "What did Pepper chew, and which class made it?", "answer": "a pottery bowl",
         "evidence": ["D2:4; D1:7"], "category": 1},
        {"question": "Where does Mira's sister Lena live?", "answer": "Porto", "evidence": ["D2:6"], "category": 4},
        {"question": "What colour is Theo's fence?", "answer": "-", "evidence": ["D9:1"], "category": 4},
        {"question": "Which marathon did Mira train for?", "adversarial_answer": "the autumn half marathon",
         "evidence": ["D2:1"], "category": 5},
    ]
    return {"sample_id": "made-up-1", "conversation": conversation, "qa": qa}


@pytest.mark.long
def test_locomo_benchmark_smoke(neo4j, schema, tmp_path):
    """A made-up conversation in LoCoMo's format: every turn stored, each question recalled
    and scored for graphmem and both baselines, the table written. The real data runs in the
    benchmark itself (make bench, bench/locomo.py), never in the suite."""
    import json

    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([locomo_sample()]))
    done = run_bench(neo4j, tmp_path, "locomo.py", "--data", str(data))
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "locomo.md").read_text()
    assert "1 conversations (made-up-1) of locomo.json, 16 turns, 4 questions recalled (1 without an evidence turn left out)" in table
    # the reference harness's baselines when ../shared is beside the repository, else the project's own
    assert "baselines: the reference harness's baselines" in table or "baselines: the project's own baselines" in table
    for system in ("graphmem", "BM25", "dense", "RRF"):
        assert f"| overall (categories 1-4) | {system} | 3 |" in table
        assert f"| 5 adversarial (not scored) | {system} | 1 |" in table
    # the adoption is said in one turn, in the question's words: every system finds it
    assert "| 2 temporal | graphmem | 1 | " in table
    temporal = next(line for line in table.splitlines() if line.startswith("| 2 temporal | graphmem |"))
    assert float(temporal.split("|")[6]) == 1.0  # recall@10
    multi = next(line for line in table.splitlines() if line.startswith("| 1 multi-hop | graphmem |"))
    assert float(multi.split("|")[6]) > 0  # "D2:4; D1:7": two evidence turns, read from one string
    assert neo4j.password not in table + done.stdout + done.stderr


def test_locomo_turn_text_appends_the_image_caption():
    sys.path.insert(0, str(ROOT / "bench"))
    import locomo

    turn = {"speaker": "Caroline", "dia_id": "D1:5", "text": "Look at this!", "blip_caption": "a photo of a dog"}
    assert locomo.turn_text(turn) == "Caroline: Look at this! [shares a photo of a dog]"  # as the reference check writes it
    assert locomo.turn_text({"speaker": "Mel", "text": "Hi"}) == "Mel: Hi"
    assert locomo.evidence_of({"evidence": ["D8:6; D9:17", "D1:1"]}, {"D8:6", "D1:1"}) == ["D8:6", "D1:1"]
    assert locomo.when("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"


@pytest.mark.long
def test_curation_benchmark_smoke(neo4j, schema, tmp_path):
    """400 facts: the planted restatements are deduplicated (the machine-made ones only),
    the stale ones pruned, the near-duplicates merged, and a second pass changes nothing."""
    done = run_bench(neo4j, tmp_path, "curation.py", "--size", "400", "--near", "5", "--batch", "50")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "curation.md").read_text()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in table.splitlines() if line.startswith("| ") and not line.startswith("| step")}
    first = rows["curate: dedupe + prune"]
    # 40 restatements planned, 4 of them by a person (never invalidated; the machine-made
    # originals they restate go): the benchmark exits 1 unless the counts match its plan
    assert 36 <= int(first[2]) <= 40 and first[4] == "18"
    assert "user records 4 before, 4 after" in table
    near = next(v for k, v in rows.items() if k.startswith("consolidate"))
    assert near[3] == "10" and near[5] == "10" and near[6] == "5"
    again = rows["curate again (nothing to do)"]
    assert (again[2], again[4], again[5], again[6]) == ("0", "0", again[6], again[5])
    assert "Curation of a 400-memory tenant" in table
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_scale_benchmark_smoke(neo4j, schema, tmp_path, driver):
    """1,000 memories in one tenant, a 250-memory tenant erased, 1,000 across 10 tenants:
    every table is written, the erased tenant leaves no node, the server's memory is read
    from /proc when it runs on this machine, and --cleanup leaves none of the run's data."""
    done = run_bench(neo4j, tmp_path, "scale.py",
                     "--memories", "1000", "--tenants", "10", "--erase", "250", "--checkpoints", "500", "--batch", "250",
                     "--queries", "5", "--warmup", "3", "--progress", "500", "--cleanup")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1,000 written" in done.stderr  # progress while loading
    table = (tmp_path / "scale.md").read_text()
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:3]): [c.strip() for c in line.strip("|").split("|")]
            for line in table.splitlines() if line.startswith("| 1") and "|---" not in line}
    one = rows[("1", "500", "500")], rows[("1", "1,000", "1,000")]
    many = rows[("10", "100", "2,000")]
    def num(cell: str) -> float:  # the tables write 1,234.5 (a slow machine gives p95s over a second)
        return float(cell.replace(",", ""))

    for row in (*one, many):
        assert num(row[4]) > 0 and 0 < num(row[7]) <= num(row[8])  # rate, p50 <= p95
        assert num(row[6]) > 0  # the machine's load average during the step
    assert one[0][3] == "250" and many[3] == "100"  # the batch: a 100-memory tenant is one call
    erased = next(line for line in table.splitlines() if line.startswith("| 250 memories, beside 1,000"))
    assert [c.strip() for c in erased.strip("|").split("|")][1::4] == ["250", "0"]  # all erased, no node left
    assert "**Partial" not in table
    if "embedded" in neo4j.source:
        process = table.split("| Neo4j heap (-Xmx) |")[1].splitlines()[2]
        assert float(process.split("|")[3]) > 0.1  # peak RSS in GiB, read from /proc
        assert all(num(row[5]) > 0 for row in (*one, many))  # the server's CPU per 1,000 written
    tenants = re.findall(r"\bbench-scale-\S+", done.stderr)
    records, _, _ = driver.execute_query("MATCH (n) WHERE n.tenant STARTS WITH 'bench-scale-' RETURN count(n) AS n")
    assert records[0]["n"] == 0, tenants  # --cleanup erased every tenant the run wrote
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_small_tenants_benchmark_smoke(neo4j, schema, tmp_path, driver):
    """Two groups of small tenants: a row per group and round, p50 <= p95, and --cleanup
    leaves none of the run's data."""
    done = run_bench(neo4j, tmp_path, "scale_tenants.py",
                     "--groups", "4x50,3x20", "--queries", "5", "--warmup", "2", "--progress", "100", "--cleanup")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "scale-tenants.md").read_text()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| round")]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("1", "4", "50", "260"), ("1", "3", "20", "260"), ("2", "4", "50", "260"), ("2", "3", "20", "260")]
    assert all(0 < float(r[4].replace(",", "")) <= float(r[5].replace(",", "")) for r in rows)  # p50 <= p95 (1,234.5 on a slow machine)
    records, _, _ = driver.execute_query("MATCH (n) WHERE n.tenant STARTS WITH 'bench-tenants-' RETURN count(n) AS n")
    assert records[0]["n"] == 0
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_offline_ingest_benchmark_smoke(neo4j, schema, tmp_path, driver):
    done = run_bench(neo4j, tmp_path, "ingest_offline.py", "--data", str(tmp_path / "none"), "--rounds", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "ingest-offline.md").read_text()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in table.splitlines() if line.startswith("| episodes") or line.startswith("| with")}
    # the sample's 29 turns, 8 times: speakers on every turn either way, names only with the extractor
    assert rows["episodes and speakers only"][1:2] == ["232"] and rows["with SpacyExtractor"][1:2] == ["232"]
    assert rows["episodes and speakers only"][5:] == ["0", "232"] and int(rows["with SpacyExtractor"][5]) > 100
    records, _, _ = driver.execute_query("MATCH (n:Memory) WHERE n.tenant STARTS WITH 'bench-ingest-' RETURN count(n) AS n")
    assert records[0]["n"] == 0  # every run erased what it wrote


@pytest.mark.long
def test_ingest_llm_benchmark_smoke(neo4j, schema, tmp_path, driver):
    """A made-up two-session conversation in LoCoMo's format with observations: each way in
    lands the observations as facts, one extraction request per batch, tokens counted."""
    import json

    talk = {"speaker_a": "Ana", "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_2_date_time": "2:10 pm on 9 June, 2023",
            "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I just moved to Porto for a nursing job."},
                          {"speaker": "Bo", "dia_id": "D1:2", "text": "Congrats! I still teach chemistry in Lyon."}],
            "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "I adopted a cat called Miso."},
                          {"speaker": "Bo", "dia_id": "D2:2", "text": "Lovely. I started running marathons."}]}
    observation = {"session_1_observation": {"Ana": [["Ana moved to Porto for a nursing job.", "D1:1"]],
                                             "Bo": [["Bo teaches chemistry in Lyon.", "D1:2"]]},
                   "session_2_observation": {"Ana": [["Ana adopted a cat called Miso.", "D2:1"]],
                                             "Bo": [["Bo runs marathons.", "D2:2"]]}}
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([{"sample_id": "tiny", "conversation": talk, "observation": observation, "qa": []}]))
    done = run_bench(neo4j, tmp_path, "ingest_llm.py",
                     "--data", str(data), "--latencies", "0.05", "--users", "3", "--warmup", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "ingest-llm.md").read_text()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("| 0.05 |")]
    assert [r[1] for r in rows] == ["ingest per session, 1 conversation", "after_turn per turn, 1 conversation",
                                    "ingest per session, 3 conversations at once"]
    # messages, extraction requests per batch, facts landed, errors: every observation became a fact
    assert [(r[2], r[7], r[10], r[11]) for r in rows] == [("4", "1.00", "4", "0"), ("4", "1.00", "4", "0"),
                                                           ("12", "1.00", "12", "0")]
    assert all(int(r[8]) > 50 and float(r[9]) > 5 for r in rows)  # prompt and completion tokens per message
    assert "cl100k_base" in table and "graphiti#186" in table
    records, _, _ = driver.execute_query("MATCH (n:Memory) WHERE n.tenant STARTS WITH 'bench-llm-' RETURN count(n) AS n")
    assert records[0]["n"] == 0  # every run erased what it wrote


def _rows(table: str, first: str) -> dict[str, list[str]]:
    """A markdown table's rows by their first cell (the header, whose first cell is ``first``, left out)."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith(f"| {first} |")]
    return {row[0]: row[1:] for row in rows}


@pytest.mark.long
def test_graph_walk_benchmark_smoke(neo4j, schema, tmp_path, driver):
    """The made-up LoCoMo conversation, recall as shipped beside one PageRank weight: a row
    per weight, a recall per category in [0, 1], the walk's cost in the notes, the table
    written to the run's results folder (never over bench/results/graph-walk.md) and every
    turn the run stored erased."""
    import json

    committed = (ROOT / "bench" / "results" / "graph-walk.md").read_bytes()
    other = dict(locomo_sample(), sample_id="made-up-2")  # left out by --samples
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([locomo_sample(), other]))
    done = run_bench(neo4j, tmp_path, "graph_walk.py",
                     "--data", str(data), "--samples", "made-up-1", "--weights", "0,1", "--hits", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    written = tmp_path / "graph-walk.md"
    assert f"written to {written}" in done.stdout
    table = written.read_text()
    assert "| ranking | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop | 1-4 |" in table
    rows = _rows(table, "ranking")
    shipped = "recall as shipped (one-hop ties, two hops through rare names)"
    assert list(rows) == [shipped, "+ 1 x PageRank"]
    for label, cells in rows.items():
        # one question each in categories 1, 2 and 4 (none in 3: no figure; one without evidence, one adversarial)
        assert len(cells) == 5 and cells[2] == "-", (label, cells)
        assert all(re.fullmatch(r"[01]\.\d{3}", c) for i, c in enumerate(cells) if i != 2), (label, cells)
        values = [float(c) for i, c in enumerate(cells) if i != 2]
        assert all(0.0 <= v <= 1.0 for v in values)
        assert abs(values[3] - (values[0] + values[1] + values[2]) / 3) < 0.0015, (label, cells)
    # the adoption is said in one turn, in the question's words: recall as shipped finds it in its top 10
    assert rows[shipped][1] == "1.000"
    assert "1 conversations of locomo.json" in table and "restart 0.5" in table and "the best 3 hits" in table
    took = re.search(r"The walk took ([\d.,]+) ms p50, ([\d.,]+) ms p95 per question", table)
    assert took and 0 <= float(took.group(1).replace(",", "")) <= float(took.group(2).replace(",", ""))
    assert table.split("\n\n", 2)[2] in done.stdout  # printed as written
    assert (ROOT / "bench" / "results" / "graph-walk.md").read_bytes() == committed
    records, _, _ = driver.execute_query("MATCH (n:Memory) WHERE n.tenant STARTS WITH 'walk-' RETURN count(n) AS n")
    assert records[0]["n"] == 0  # the run erased what it wrote
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_observability_benchmark_smoke(neo4j, schema, tmp_path, driver):
    """60 memories, 8 queries: a row per way of running OpenTelemetry, 'bare' the baseline
    (+0.0%), every measured recall of the SDK row in the histogram (the warm-up read away),
    spans exported, the table and plot in the run's results folder, the tenant erased."""
    committed = {name: (ROOT / "bench" / "results" / name).read_bytes() for name in ("observability.md", "observability.png")}
    done = run_bench(neo4j, tmp_path, "observability.py", "--size", "60", "--queries", "8", "--warmup", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "loaded 60 in" in done.stderr
    table = (tmp_path / "observability.md").read_text()
    assert "| memories: 60 | recall p50 ms | recall p95 ms | p50 vs bare | per-query ratio to bare, median |" in table
    rows = _rows(table, "memories: 60")
    assert list(rows) == ["bare", "off", "API, no SDK", "SDK"]
    for mode, (p50, p95, versus, ratio) in rows.items():
        assert 0 < float(p50.replace(",", "")) <= float(p95.replace(",", "")), (mode, p50, p95)
        assert re.fullmatch(r"[+-]\d[\d,]*\.\d%", versus) and re.fullmatch(r"[+-]\d[\d,]*\.\d%", ratio), mode
    assert rows["bare"][2:] == ["+0.0%", "+0.0%"]  # the baseline against itself
    # only the SDK row records metrics; the warm-up's 3 recalls were read away before the 8 measured
    histogram = re.search(r"graphmem.operation = graphmem.recall, (\d+) recalls after the warm-up\): p50 in the "
                          r"([\d.]+)-([\d.]+) ms bucket, p95 in (> )?([\d.]+)(-[\d.]+)? ms; ([\d,]+) spans exported",
                          table)
    assert histogram, table
    assert int(histogram.group(1)) == 8 and float(histogram.group(2)) < float(histogram.group(3))
    assert int(histogram.group(7).replace(",", "")) >= 8 * 3  # each SDK recall: the call, its embedding, a statement
    assert table.split("\n\n", 2)[2].split("\n\n")[0] in done.stdout  # the table, printed
    assert (tmp_path / "observability.png").stat().st_size > 1000  # the histogram's plot
    assert {name: (ROOT / "bench" / "results" / name).read_bytes() for name in committed} == committed
    records, _, _ = driver.execute_query("MATCH (n:Memory) WHERE n.tenant STARTS WITH 'bench-otel-' RETURN count(n) AS n")
    assert records[0]["n"] == 0  # the run erased its memories
    assert neo4j.password not in table + done.stdout + done.stderr


@pytest.mark.long
def test_span_tree_smoke(neo4j, schema, driver):
    """The span trees docs/observability.md shows: after_turn with its writes and, one level
    down, its background extraction holding the model's span and its tokens; recall with its
    embedding and statement. It writes no results file; its tenant is erased."""
    results = sorted((ROOT / "bench" / "results").iterdir())
    stamps = {p.name: p.stat().st_mtime_ns for p in results}
    done = run_bench(neo4j, None, "span_tree.py")
    assert done.returncode == 0, done.stderr[-2000:]
    turn, recall = done.stdout.split("\n\nrecall:\n")
    assert turn.startswith("after_turn:\n")
    line = re.compile(r"( *)(\S.*?)  ([\d.]+) ms(?:  (.*))?")
    spans = [line.fullmatch(s) for s in turn.splitlines()[1:]]
    assert all(spans), turn
    depth = [(len(m.group(1)) // 2, m.group(2), m.group(4) or "") for m in spans]  # type: ignore[union-attr]
    assert depth[0][:2] == (0, "graphmem.after_turn")
    assert "graphmem.messages=2" in depth[0][2] and "graphmem.scope.depth=2" in depth[0][2]
    assert all(d >= 1 for d, _, _ in depth[1:])  # one tree: everything under the turn's span
    tenant = re.search(r"graphmem.tenant=(spans-[0-9a-f]{8})", depth[0][2]).group(1)  # type: ignore[union-attr]
    direct = [name for d, name, _ in depth if d == 1]
    assert {"episode_create", "graphmem.after_turn.background"} <= set(direct)
    assert any(n.startswith("embeddings ") for n in direct)
    at = [name for _, name, _ in depth].index("graphmem.after_turn.background")
    background = depth[at][2]
    assert "graphmem.episodes=2" in background and "graphmem.ok=True" in background
    under = []
    for d, name, told in depth[at + 1:]:
        if d <= 1:
            break
        under.append((d, name, told))
    assert under and all(d == 2 for d, _, _ in under)
    [chat] = [told for _, name, told in under if name == "chat PromptedChatModel"]
    assert "gen_ai.usage.output_tokens=48" in chat and "graphmem.purpose=ingest" in chat
    assert int(re.search(r"gen_ai.usage.input_tokens=(\d+)", chat).group(1)) > 0  # type: ignore[union-attr]
    assert {"fact_create", "fact_supersede"} <= {name for _, name, _ in under}
    assert re.search(r"^ +fact_create  [\d.]+ ms  db.response.returned_rows=1$", turn, re.M)
    # the recall: its own tree, its embedding and its statement below it
    tree = [line.fullmatch(s) for s in recall.strip().splitlines()]
    assert all(tree), recall
    assert tree[0].group(1) == "" and tree[0].group(2) == "graphmem.recall"  # type: ignore[union-attr]
    assert f"graphmem.tenant={tenant}" in tree[0].group(4) and "graphmem.returned=" in tree[0].group(4)  # type: ignore[union-attr]
    children = [m.group(2) for m in tree[1:] if m.group(1) == "  "]  # type: ignore[union-attr]
    assert any(n.startswith("embeddings ") for n in children) and any(n.startswith("recall") for n in children)
    assert "Priya" not in done.stdout and "Glasgow" not in done.stdout  # no text, no question (record_content off)
    records, _, _ = driver.execute_query("MATCH (n:Memory {tenant: $tenant}) RETURN count(n) AS n", {"tenant": tenant})
    assert records[0]["n"] == 0  # both scopes it wrote were erased
    assert {p.name: p.stat().st_mtime_ns for p in sorted((ROOT / "bench" / "results").iterdir())} == stamps
    assert neo4j.password not in done.stdout + done.stderr


@pytest.mark.long
def test_context_benchmark_smoke(neo4j, tmp_path):
    """bench/context.py on the made-up LoCoMo conversation and LongMemEval questions: every
    system's block measured at each budget (evidence, answer words, speakers, tokens), the
    tables and plots written; the real data runs in make bench only."""
    import json

    talk = tmp_path / "locomo.json"
    talk.write_text(json.dumps([locomo_sample()]))
    lme = tmp_path / "lme.json"
    lme.write_text(json.dumps(lme_questions()))
    done = run_bench(neo4j, tmp_path, "context.py", "--locomo", str(talk), "--lme", str(lme), "--budgets", "60,400")
    assert done.returncode == 0, done.stderr[-2000:]
    table = (tmp_path / "context.md").read_text()

    def row(section: str, system: str) -> list[str]:
        part = table.split(f"### {section}", 1)[1].split("### ", 1)[0]
        line = next(x for x in part.splitlines() if x.startswith(f"| {system} |"))
        return [c.strip() for c in line.strip("|").split("|")]

    for section, asked in (("LoCoMo locomo", "3"), ("LongMemEval lme (turns)", "2")):
        for system in ("graphmem context()", "graphmem context(), no exchange", "graphmem context_for_turn()", "BM25",
                       "dense", "RRF", "newest turns"):
            cells = row(section, system)
            assert cells[1] == asked, (section, system)
            evidence, who = [float(c) for c in cells[2:4]], [float(c) for c in cells[6:8]]
            assert all(0 <= v <= 1 for v in evidence) and who <= evidence
            assert all(0 < float(c.replace(",", "")) <= b for c, b in zip(cells[8:10], (60, 400)))
        assert row(section, "whole history")[2] == "1.000"
    assert float(row("LoCoMo locomo", "whole history")[8].replace(",", "")) > 60  # what a budget of 60 saves
    # at 400 tokens the made-up conversation (16 short turns) fits: graphmem's block holds the
    # evidence of every question, each turn with its speaker
    graphmem = row("LoCoMo locomo", "graphmem context()")
    assert graphmem[3] == "1.000" and graphmem[7] == "1.000"
    lme_row = row("LongMemEval lme (turns)", "graphmem context()")
    assert lme_row[3] == "1.000" and float(lme_row[5]) == 1.0  # the answer's words are in the block
    assert "| 2 temporal | graphmem context() | 1 |" in table
    assert (tmp_path / "context-locomo-locomo.png").is_file() and (tmp_path / "context-longmemeval-lme-turns.png").is_file()
    assert neo4j.password not in table + done.stdout + done.stderr
