"""Write throughput against the floor: Memory.remember_many of N facts (embeddings
precomputed and excluded, then computed inside the timing) next to a bare
UNWIND ... CREATE of the same rows on the same server.

    python bench/write.py [--sizes 10000,100000] [--batch 5000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase
from recall import sentence

from graphmem import Memory, WordLlamaEmbedder
from graphmem._base.vectors import Vector


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=2000,
                        help="facts written (and removed) through both paths before timing: a fresh server's "
                             "JIT would otherwise bill its warm-up to whichever path runs first")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    rng = random.Random(7)
    floor_create, floor_clear = harness.template("floor_create"), harness.template("floor_clear")
    rows, series = [], {"remember_many (embeddings given)": ([], []), "floor": ([], [])}
    with GraphDatabase.driver(uri, auth=auth) as driver:
        if args.warmup > 0:
            # its own texts: the timed ones stay those of earlier runs
            warm_up(driver, uri, auth, embedder, args.warmup, floor_create, floor_clear, random.Random(1))
        for size in sizes:
            texts = [sentence(rng) for _ in range(size)]
            vectors = embedder.embed_documents(texts)
            tenant = f"bench-write-{uuid.uuid4().hex[:8]}"
            timings = {}
            with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory:
                memory.setup()
                for mode in ("given", "computed"):
                    scope = f"w/{mode}"
                    started = time.perf_counter()
                    for start in range(0, size, args.batch):
                        chunk = range(start, min(size, start + args.batch))
                        items = [{"text": texts[i], "scope": scope} for i in chunk]
                        if mode == "given":
                            for item, i in zip(items, chunk):
                                item["embedding"] = vectors[i]
                        memory.remember_many(items)
                    timings[mode] = time.perf_counter() - started
                    print(f"  {size:,} remember_many ({mode}): {timings[mode]:.1f}s", file=sys.stderr)
                now = datetime.now(timezone.utc)
                started = time.perf_counter()
                for start in range(0, size, args.batch):
                    batch = [{"id": uuid.uuid4().hex, "tenant": tenant, "scope": "w/floor", "text": texts[i],
                              "createdAt": now, "embedding": Vector(vectors[i])} for i in range(start, min(size, start + args.batch))]
                    driver.execute_query(floor_create, {"rows": batch})
                timings["floor"] = time.perf_counter() - started
                print(f"  {size:,} floor: {timings['floor']:.1f}s", file=sys.stderr)
                while driver.execute_query(floor_clear, {"limit": 10_000}).records[0]["deleted"]:
                    pass
                memory.erase(scope="w")
            rate = {k: size / v for k, v in timings.items()}
            rows.append([f"{size:,}", rate["given"], rate["computed"], rate["floor"],
                         f"{rate['floor'] / rate['given']:.1f}x", f"{rate['floor'] / rate['computed']:.1f}x"])
            series["remember_many (embeddings given)"][0].append(size)
            series["remember_many (embeddings given)"][1].append(rate["given"])
            series["floor"][0].append(size)
            series["floor"][1].append(rate["floor"])
    headers = ["facts", "remember_many facts/s (embeddings given)", "remember_many facts/s (embedded inside)",
               "floor rows/s", "floor / graphmem (given)", "floor / graphmem (embedded)"]
    body = harness.table(headers, rows)
    notes = ("remember_many validates every item, writes each batch in one transaction with its :Scope nodes, "
             "IN_SCOPE edges, scope counters, tombstone and supersession checks, and keeps the vector, full-text "
             "and range indexes of :Memory up to date. The floor is `UNWIND $rows AS r CREATE (n:Floor) SET n = r` "
             f"of the same rows (id, tenant, scope, text, createdAt, 256-d embedding) in batches of {args.batch:,}, "
             "on a label with no index. 'Embedded inside' includes WordLlama embedding time. Both paths first write "
             f"(and remove) {args.warmup:,} untimed facts, so that the JIT's warm-up on a fresh server "
             "is not billed to whichever path runs first.")
    print(body)
    print(harness.write_result("write", "Write throughput vs the bare-CREATE floor", body, notes))
    harness.plot("write", "Write throughput (higher is better)", "facts", "facts/s", series)
    return 0


def warm_up(driver, uri, auth, embedder, n: int, floor_create: str, floor_clear: str, rng: random.Random) -> None:
    texts = [sentence(rng) for _ in range(n)]
    vectors = embedder.embed_documents(texts)
    tenant = f"bench-write-warmup-{uuid.uuid4().hex[:8]}"
    now = datetime.now(timezone.utc)
    with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory:
        memory.setup()
        memory.remember_many([{"text": t, "scope": "warmup", "embedding": v} for t, v in zip(texts, vectors)])
        driver.execute_query(floor_create, {"rows": [
            {"id": uuid.uuid4().hex, "tenant": tenant, "scope": "warmup", "text": t, "createdAt": now,
             "embedding": Vector(v)} for t, v in zip(texts, vectors)]})
        while driver.execute_query(floor_clear, {"limit": 10_000}).records[0]["deleted"]:
            pass
        memory.erase(scope="warmup")
    print(f"  warmed up with {n:,} facts through both paths", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
