"""Re-embedding a store with another embedder (``Memory.reembed``, ``graphmem reembed``):
for stores of N memories, the dry run's estimate beside the real run's wall time, the rate
(memories per second), this process's peak memory, and recall latency before, during (a
thread asking one question after another with a memory object of its own on the old
embedder, until the switch) and after (on the new embedder).

The run re-embeds the whole database and switches its vector index: it needs a Neo4j of its
own. It refuses a database that holds memories unless ``--wipe`` (make bench gives it a
fresh server). A size is a fresh database: its memories written with ``remember_many``,
embeddings given by the old embedder.

    python bench/reembed.py --wipe [--sizes 10000,100000] [--from hashing] [--to wordllama]
    python bench/reembed.py --wipe --sizes 1000000 --from hashing --to hashing384   # the million
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase
from recall import sentence

from graphmem import HashingEmbedder, Memory
from graphmem._base import layout
from graphmem._base.embeddings import named_embedder

TENANTS = 10
WRITE_BATCH = 5_000
QUESTIONS = ["who painted the fence last week", "what did Maria cook", "where is the blue bicycle",
             "when did Tom visit the museum", "what does Ahmed study"]


def embedder(name: str):
    if name == "hashing384":
        return HashingEmbedder(384)
    return named_embedder(name)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Asker(threading.Thread):
    def __init__(self, memory: Memory) -> None:
        super().__init__(daemon=True)
        self.memory, self.stop, self.ms, self.failures = memory, threading.Event(), [], 0

    def run(self) -> None:
        rng = random.Random(3)
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                self.memory.recall(rng.choice(QUESTIONS), scope="bench", k=10)
                self.ms.append((time.perf_counter() - started) * 1000)
            except Exception:
                self.failures += 1
                return


def wipe(uri: str, auth: tuple[str, str]) -> None:
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        with driver.session() as session:
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        for index in layout.INDEXES.values():
            driver.execute_query(f"DROP INDEX {index} IF EXISTS")


def fill(uri: str, auth: tuple[str, str], size: int, old) -> None:
    rng = random.Random(size)
    memories = [Memory(uri, auth, tenant=f"bench-{t}", embedder=old) for t in range(TENANTS)]
    memories[0].setup()
    written = 0
    while written < size:
        count = min(WRITE_BATCH, size - written)
        texts = [sentence(rng) for _ in range(count)]
        vectors = old.embed_documents(texts)
        memories[(written // WRITE_BATCH) % TENANTS].remember_many(
            [{"text": t, "scope": "bench", "embedding": v} for t, v in zip(texts, vectors)])
        written += count
        print(f"  written {written:,} / {size:,}", file=sys.stderr)
    for m in memories:
        m.close()


def recall_p50(memory: Memory, rounds: int = 20) -> float:
    return harness.median(harness.timed(lambda: memory.recall(random.choice(QUESTIONS), scope="bench", k=10), rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--from", dest="old", default="hashing", help="the store's embedder (hashing, wordllama, minilm)")
    parser.add_argument("--to", default="wordllama", help="the embedder to move to (hashing384 too)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--wipe", action="store_true", help="empty the database first (its memories are lost)")
    parser.add_argument("--name", default="reembed")
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        held = driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n").records[0]["n"]
    if held and not args.wipe:
        raise SystemExit(f"the database holds {held:,} memories: this benchmark re-embeds and switches the whole "
                         "database; run it on a server of its own with --wipe (make bench does)")
    old, new = embedder(args.old), embedder(args.to)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        wipe(uri, auth)
        fill(uri, auth, size, old)
        before_memory = Memory(uri, auth, tenant="bench-0", embedder=old)
        before = recall_p50(before_memory)
        plan = before_memory.reembed(new, dry_run=True, batch_size=args.batch)
        asker = Asker(Memory(uri, auth, tenant="bench-0", embedder=old))
        asker.start()
        runner = Memory(uri, auth, tenant="bench-0", embedder=old)
        peak_before = peak_mb()
        started = time.perf_counter()
        report = runner.reembed(new, batch_size=args.batch,
                                progress=lambda step: print(f"  {step.line()}", file=sys.stderr)
                                if step.done % (args.batch * 40) < args.batch else None)
        wall = time.perf_counter() - started
        asker.stop.set()
        asker.join(timeout=60)
        after = recall_p50(runner)
        rows.append([size, f"{args.old} -> {args.to}", round(plan.estimate_seconds or 0.0, 1), round(wall, 1),
                     round(report.embedded / wall, 1), round(peak_mb(), 0), round(peak_mb() - peak_before, 0),
                     round(before, 1), round(harness.median(asker.ms), 1) if asker.ms else "-", len(asker.ms),
                     round(after, 1), "yes" if report.switched else "no"])
        print(harness.table(HEADERS, rows[-1:]))
        for m in (before_memory, asker.memory, runner):
            m.close()
    notes = (f"Each size: a fresh database of {TENANTS} tenants, memories written with remember_many (the old "
             f"embedder's vectors given), then reembed(batch_size={args.batch}) of every tenant. 'estimate' is the dry "
             "run's (memories / the embedder's rate on a sample of 256 of them), 'wall' the real run from start to the "
             "old vectors removed (embedding, writing the new vectors a batch per transaction, waiting for the new "
             "index, the switch, removing the old vectors). Peak memory is this process's (ru_maxrss), and its growth "
             "during the run. Recall during: a thread with a memory object of its own on the old embedder, asking "
             "until the switch (after it, that object is told its embedder is not the store's); after: the runner, "
             "now on the new embedder.")
    body = harness.table(HEADERS, rows)
    path = harness.write_result(args.name, "Re-embedding a store with another embedder", body, notes)
    print(f"\n{body}\n\nwritten to {path}")
    return 0


HEADERS = ["memories", "embedders", "dry-run estimate s", "wall s", "memories/s", "peak MB", "growth MB",
           "recall p50 before ms", "recall p50 during ms", "recalls during", "recall p50 after ms", "switched"]

if __name__ == "__main__":
    sys.exit(main())
