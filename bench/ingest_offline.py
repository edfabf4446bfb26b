"""What the graph costs at ingest: ``ingest(llm=None)`` of whole conversations, one call
per session as a user stores them, without an entity extractor (episodes and speakers only)
and with the default one (spaCy's small English pipeline), side by side in one run on one
server, each on a fresh tenant, alternately, three rounds. Prints turns per second and what
the graph holds (entities, MENTIONS, SPOKE).

    python bench/ingest_offline.py [--data FILE] [--rounds 3]

The data is LoCoMo dev3 (../shared/data/locomo, read from there, never copied) when it is
beside the repository, else the sample conversation graphmem ships (graphmem/_cli), repeated.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness

from graphmem import Memory, WordLlamaEmbedder
from graphmem._base.ner import default_extractor
from graphmem._cli import sample

LOCOMO = harness.HERE.parent.parent / "shared" / "data" / "locomo" / "locomo_dev3.json"
COUNTS = """
MATCH (n:Memory {tenant: $t})
OPTIONAL MATCH (n)-[r:MENTIONS|SPOKE]->()
RETURN count(DISTINCT CASE WHEN n:Entity THEN n END) AS entities,
       count(CASE WHEN type(r) = 'MENTIONS' THEN 1 END) AS mentions,
       count(CASE WHEN type(r) = 'SPOKE' THEN 1 END) AS spoke
"""


def conversations(path: Path) -> list[list[tuple[str, datetime, list[dict[str, str]]]]]:
    """Each conversation as its sessions: (id, when, [{speaker, text}])."""
    if not path.is_file():  # eight copies, each its own conversations (their session ids differ)
        return [[(f"copy-{i}/{sid}", when, said) for sid, when, said in sample.sessions()] for i in range(8)]
    out = []
    for s in json.loads(path.read_text()):
        talk = s["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in talk if k.startswith("session_") and k.count("_") == 1)
        out.append([(f"{s['sample_id']}/{n}", datetime.strptime(talk[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
                     .replace(tzinfo=timezone.utc), talk[f"session_{n}"]) for n in numbers])
    return out


def run(uri, auth, embedder, extractor, data) -> tuple[float, int, dict[str, int]]:
    tenant = f"bench-ingest-{uuid.uuid4().hex[:8]}"
    turns = 0
    with Memory(uri, auth, tenant=tenant, embedder=embedder, entity_extractor=extractor) as memory:
        started = time.perf_counter()
        for sessions in data:
            for sid, when, said in sessions:
                memory.ingest([{"role": "user", "name": t["speaker"], "content": t["text"]} for t in said],
                              scope="bench", llm=None, session_id=sid, occurred_at=when)
                turns += len(said)
        seconds = time.perf_counter() - started
        counts = memory._store.run.driver.execute_query(COUNTS, {"t": tenant}).records[0].data()
        memory.erase(scope="bench")
    return seconds, turns, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(LOCOMO))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    embedder, extractor = WordLlamaEmbedder(), default_extractor()
    if extractor is None:
        raise SystemExit("spaCy and an English pipeline are needed: pip install 'graphmem[ner]'")
    data = conversations(Path(args.data))
    with Memory(uri, auth, embedder=embedder) as memory:
        memory.setup()
    extractor.extract(["warm up: Tariq flew in from Glasgow"])  # the pipeline's load is not ingest's
    run(uri, auth, embedder, None, data[:1])  # nor the server's first plans
    rows, results = [], {"episodes and speakers only": [], "with SpacyExtractor": []}
    for _ in range(args.rounds):
        for label, chosen in (("episodes and speakers only", None), ("with SpacyExtractor", extractor)):
            results[label].append(run(uri, auth, embedder, chosen, data))
    for label, runs in results.items():
        seconds = sorted(r[0] for r in runs)
        turns, counts = runs[0][1], runs[0][2]
        rows.append([label, turns, harness.median(seconds), turns / harness.median(seconds), counts["entities"],
                     counts["mentions"], counts["spoke"]])
    base, ner = rows[0][3], rows[1][3]
    body = harness.table(["ingest(llm=None)", "turns", "seconds (median)", "turns/s", "entities", "MENTIONS", "SPOKE"], rows)
    notes = (f"{len(data)} conversations of {Path(args.data).name if Path(args.data).is_file() else 'the sample'}, "
             f"one ingest per session, WordLlama, {args.rounds} rounds alternating, each on a fresh tenant; "
             f"extractor {extractor!r}. Offline entities keep {ner / base:.2f}x of the throughput.")
    print(body + "\n\n" + notes)
    print(f"written to {harness.write_result('ingest-offline', 'ingest(llm=None) with and without offline entities', body, notes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
