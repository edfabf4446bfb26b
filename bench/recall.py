"""Recall latency against the floor: p50/p95 of Memory.recall at growing sizes, next to one
bare db.index.vector.queryNodes call on the same data and server, plus the filtered case
(a 200-memory scope inside the largest tenant).

    python bench/recall.py [--sizes 1000,10000,100000] [--queries 50] [--warmup 300]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase

from graphmem import Memory, RecallSettings, WordLlamaEmbedder
from graphmem._base.scopes import chain
from graphmem._base.vectors import Vector
from graphmem._recall.fulltext import lucene_query
from graphmem._recall.plan import params as recall_params

PEOPLE = "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter".split()
VERBS = "likes visited booked ordered reviewed cancelled recommended returned asked about complained about".split()
THINGS = ("green tea", "a flight to Berlin", "the hiking boots", "a table for two", "the premium plan", "pasta",
          "the Lisbon hotel", "a refund", "the blue jacket", "noise-cancelling headphones", "a yoga class",
          "the quarterly report", "a train to Munich", "sushi", "the standing desk", "a concert ticket")
WHEN = "yesterday|last week|in March|on Friday|this morning|twice this month|before the holidays".split("|")


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(WHEN)} (#{rng.randint(0, 10**6)})"


def sent_lucene(query: str, tenant: str, scope: str, visible: int, total: int) -> str | None:
    """The Lucene query recall sends: open when the visible scopes hold at least
    ``lexical_open_share`` of the database (the whole tenant does: the benchmark has a
    server of its own), narrowed otherwise (the small scope)."""
    open_ = visible >= RecallSettings().lexical_open_share * total
    return lucene_query(query, None if open_ else tenant, chain(scope))


def candidate_counts(visible: int, total: int, k: int = 10) -> tuple[int, int] | None:
    """The vector neighbours and full-text hits recall asks for when it takes the vector
    index path with the open Lucene query (the whole tenant, from about 1,000 memories on):
    the template's own rules and arithmetic on its parameters; None on the other paths."""
    p = recall_params(tenant="t", query="q", scope="s", k=k, vector=None, as_of=None, valid_at=None, kind_list=None,
                      purpose="inform", max_sensitivity=None, include_invalidated=False, settings=RecallSettings())
    exact = visible <= p["exactLimit"] or visible * visible <= p["neighbourCost"] * p["semanticFetch"] * p["overFetch"] * total
    if exact or visible < p["openShare"] * total:
        return None
    spread = total / visible
    vector = min(p["maxVectorFetch"], math.ceil(p["semanticFetch"] * p["overFetch"] * spread))
    return vector, math.ceil(p["textFetch"] * spread)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=300, help="warm-up queries before the first size")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark tenant (for profiling)")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    rng = random.Random(42)
    tenant = f"bench-recall-{uuid.uuid4().hex[:8]}"
    queries = [sentence(rng).split(" (#")[0] for _ in range(args.queries)]
    # as recall sends them: a plain list would cost the floors 0.3 ms or more of the
    # driver's formatting for its debug log, which recall does not pay
    vectors = [Vector(v) for v in embedder.embed_documents(queries)]
    floor = harness.template("floor_vector_query")
    hybrid = harness.template("floor_hybrid_query")
    rows, series = [], {"graphmem recall p50": ([], []), "floor p50": ([], []), "hybrid floor p50": ([], []),
                        "candidate floor p50": ([], [])}
    written = 0
    with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory, GraphDatabase.driver(uri, auth=auth) as driver:
        memory.setup()
        for size in sizes:
            started = time.perf_counter()
            while written < size:
                batch = min(5000, size - written)
                texts = [sentence(rng) for _ in range(batch)]
                items = [{"text": t, "scope": "shop" if written + i >= 200 else "vip",
                          "embedding": v} for i, (t, v) in enumerate(zip(texts, embedder.embed_documents(texts)))]
                memory.remember_many(items)
                written += batch
                print(f"  wrote {written:,} memories", file=sys.stderr)
            print(f"size {size:,}: loaded in {time.perf_counter() - started:.0f}s", file=sys.stderr)
            cases = [("whole tenant", "shop"), ("200-memory scope", "vip")]

            def visible(scope: str) -> int:
                return min(written, 200) if scope == "vip" else written - min(written, 200)

            # warm up plans, caches and the JVM's JIT: a freshly started server runs the first
            # few hundred queries several times slower, which made the first size measured
            # look slower than larger ones (53 ms at 1k vs 17 ms at 10k after 20 warm-ups)
            for qi in range(args.warmup if size == sizes[0] else 20):
                memory.recall(queries[qi % len(queries)], scope=cases[qi % 2][1])
                driver.execute_query(floor, {"k": 10, "vector": vectors[qi % len(vectors)]})
                driver.execute_query(hybrid, {"vectorK": 10, "textK": 10, "vector": vectors[qi % len(vectors)],
                                              "lucene": sent_lucene(queries[qi % len(queries)], tenant, cases[qi % 2][1],
                                                                    visible(cases[qi % 2][1]), written)})
            for label, scope in cases:
                if label == "200-memory scope" and size != sizes[-1]:
                    continue
                # the floors and recall alternate query by query, so machine noise hits all alike
                recall_ms, floor_ms, hybrid_ms, candidate_ms = [], [], [], []
                counts = candidate_counts(visible(scope), written)
                vector_k, text_k = counts or (0, 0)
                for q, v in zip(queries, vectors):
                    lucene = sent_lucene(q, tenant, scope, visible(scope), written)
                    floor_ms += harness.timed(lambda: driver.execute_query(floor, {"k": 10, "vector": v}), 1)
                    hybrid_ms += harness.timed(lambda: driver.execute_query(
                        hybrid, {"vectorK": 10, "textK": 10, "vector": v, "lucene": lucene}), 1)
                    if counts:
                        candidate_ms += harness.timed(lambda: driver.execute_query(
                            hybrid, {"vectorK": vector_k, "textK": text_k, "vector": v, "lucene": lucene}), 1)
                    recall_ms += harness.timed(lambda: memory.recall(q, scope=scope, k=10), 1)
                p50, p95, f50 = harness.median(recall_ms), harness.pct(recall_ms, 0.95), harness.median(floor_ms)
                ratios = sorted(r / f for r, f in zip(recall_ms, floor_ms))
                h50 = harness.median(hybrid_ms)
                c50 = harness.median(candidate_ms) if candidate_ms else None
                rows.append([f"{size:,}", label if label == "whole tenant" else f"{label} (in {size:,})", p50, p95, f50,
                             harness.pct(floor_ms, 0.95), f"{p50 / f50:.1f}x",
                             f"{harness.median(ratios):.1f}x ({harness.pct(ratios, 0.25):.1f}-{harness.pct(ratios, 0.75):.1f})",
                             h50, f"{p50 / h50:.1f}x",
                             f"{c50:.1f} ({vector_k} + {text_k})" if c50 else "-", f"{p50 / c50:.1f}x" if c50 else "-"])
                if label == "whole tenant":
                    series["graphmem recall p50"][0].append(size)
                    series["graphmem recall p50"][1].append(p50)
                    series["floor p50"][0].append(size)
                    series["floor p50"][1].append(f50)
                    series["hybrid floor p50"][0].append(size)
                    series["hybrid floor p50"][1].append(h50)
                    if c50:
                        series["candidate floor p50"][0].append(size)
                        series["candidate floor p50"][1].append(c50)
        if args.keep:
            print(f"kept tenant {tenant}", file=sys.stderr)
        else:
            memory.erase(scope="shop")
            memory.erase(scope="vip")
    headers = ["memories", "query scope", "recall p50 ms", "recall p95 ms", "floor p50 ms", "floor p95 ms",
               "p50 ratio", "per-query ratio, median (IQR)", "hybrid floor p50 ms", "p50 ratio to hybrid floor",
               "candidate floor p50 ms (vector + text rows)", "p50 ratio to candidate floor"]
    body = harness.table(headers, rows)
    notes = ("Recall is the whole `Memory.recall()` call (query embedding with WordLlama, one Cypher round trip: "
             "vector + full-text candidates, filters, RRF, one-hop graph expansion, Python re-scoring). The floor is "
             "one bare `db.index.vector.queryNodes(k=10)` call through the same driver (the issue's target: recall p50 within 2x "
             "of it at 100k). The hybrid floor is the two index calls any hybrid recall cannot avoid, top 10 of the vector "
             "index and top 10 of the full-text index for the same Lucene query recall sends (open for the whole tenant, narrowed to the scope for the 200-memory one), in one query. The whole-tenant query sees every "
             "memory of the tenant but 200 (the vector index path); `vip` is a 200-memory scope of the same tenant "
             "(the exact in-scope scan path). The candidate floor is the hybrid floor with as many rows as recall itself asks the two indexes for on "
             "the whole tenant (k semantic hits over-fetched 1.5 times and by all memories / visible ones, 2k lexical hits over-fetched twice "
             "and by the same ratio), ids only: what the index calls alone cost before any filtering, fusion, expansion or projection "
             "('-' where recall scans the scope exactly or narrows the Lucene query instead).")
    print(body)
    print(harness.write_result("recall", "Recall latency vs the vector-index floor", body, notes))
    harness.plot("recall", "Recall latency vs floor (p50)", "memories in tenant", "ms", series)
    return 0


if __name__ == "__main__":
    sys.exit(main())
