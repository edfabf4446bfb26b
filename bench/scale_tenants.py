"""Small tenants: what a tenant's recall costs as it grows, in a store that fits the page cache.

bench/scale.py measured 1,000 tenants of 1,000 memories beside a 1M tenant at 39.9 ms p50,
slower than the 1M tenant itself, in a store past the page cache. This separates the two
causes: groups of tenants of different sizes are written to one fresh server (no big
tenant, so the store stays well inside the page cache) and recall is measured in random
tenants of each group, two rounds each. A small tenant's recall scans its own memories
exactly (design note recall-exact-or-index), so its cost should follow its size.

Usage: python bench/scale_tenants.py [--groups 1000x1000,200x500] [--cleanup]
"""

from __future__ import annotations

import argparse
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase
from scale import SCOPE, Loader, Server, Vocabulary, gib, measure_recall, page_cache

from graphmem import Memory, WordLlamaEmbedder


def groups(text: str) -> list[tuple[int, int]]:
    """'1000x1000,200x500' -> [(1000, 1000), (200, 500)]: tenants x memories each."""
    out = []
    for part in text.split(","):
        tenants, per = part.lower().split("x")
        out.append((int(tenants), int(per)))
    if not out or any(t < 1 or p < 1 for t, p in out):
        raise SystemExit("--groups: tenants x memories each, both positive, e.g. 1000x1000,200x500")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=groups, default=groups("1000x1000,200x500"))
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--progress", type=int, default=100_000)
    parser.add_argument("--cleanup", action="store_true", help="erase every tenant written before exiting")
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    server = Server(uri)
    embedder = WordLlamaEmbedder()
    rng = random.Random(42)
    vocabulary = Vocabulary(random.Random(5))
    queries = [vocabulary.text(rng, 3, 6) for _ in range(max(args.queries, args.warmup))]
    loader = Loader(vocabulary, server, 5000, args.progress, embedder.dimensions)
    run = uuid.uuid4().hex[:8]
    with GraphDatabase.driver(uri, auth=auth) as driver:
        Memory.from_driver(driver, embedder=embedder).setup()
        written: dict[tuple[int, int], list[Memory]] = {}
        for tenants, per in args.groups:
            memories = [Memory.from_driver(driver, tenant=f"bench-tenants-{per}-{i:04d}-{run}", embedder=embedder)
                        for i in range(tenants)]
            for memory in memories:
                loader.write(memory, per, f"{tenants:,} tenants x {per:,}")
            written[(tenants, per)] = memories
        disk = server.disk()
        store = "-" if disk is None else gib(disk[0])
        rows: list[list[object]] = []
        for round_ in range(1, args.rounds + 1):
            for (tenants, per), memories in written.items():
                p50, p95 = measure_recall(memories, queries[:args.queries], random.Random(round_), args.warmup)
                rows.append([round_, f"{tenants:,}", f"{per:,}", f"{loader.written:,}", p50, p95])
                print(f"round {round_}, {tenants:,} tenants x {per:,}: recall p50 {p50:.1f} ms p95 {p95:.1f} ms",
                      file=sys.stderr)
        rss = gib(server.status("VmRSS"))
        body = harness.table(["round", "tenants", "memories per tenant", "memories written", "recall p50 ms",
                              "recall p95 ms"], rows)
        notes = (f"One fresh server, nothing else in it; the groups written in the order shown with "
                 f"`Memory.remember_many` (embeddings given, 256-d), then `Memory.recall(k=10)` of {args.queries} "
                 f"queries of 3-6 words after {args.warmup} warm-ups, each in a tenant of the group chosen at random, "
                 f"the query embedded by WordLlama inside the timing. Store on disk at the end: {store} GiB (page "
                 f"cache: {page_cache()}); Neo4j RSS {rss} GiB.")
        print(harness.write_result("scale-tenants", "Small tenants: recall cost by tenant size", body, notes).read_text())
        if args.cleanup:
            for memories in written.values():
                for memory in memories:
                    memory.erase(scope=SCOPE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
