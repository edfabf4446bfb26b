"""Full-text statistics across tenants: the side channel, and what per-tenant scoring costs.

    python bench/bm25_tenant.py [--crowd 2000] [--sizes 1000,10000] [--queries 30]

1. The side channel. Tenant "probe" stores "Project zephyr launch notes" and "Project
   apple launch notes" and recalls "zephyr apple": the two records' raw BM25 scores and
   the lexical parts recall reports. Another tenant then writes ``--crowd`` records that
   mention "zephyr", and the probe asks again.
2. The cost. A per-tenant BM25 needs, for each query word, how many of the tenant's
   memories hold it: one narrowed full-text count per word. Timed per query next to recall
   itself, on tenants of ``--sizes`` memories.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase
from recall import sentence

from graphmem import HashingEmbedder, Memory
from graphmem._base.scopes import chain
from graphmem._recall.fulltext import lucene, words

PROBE_TEXTS = ("Project zephyr launch notes", "Project apple launch notes")


def side_channel(uri, auth, driver, embedder, crowd: int) -> list[list[object]]:
    run = uuid.uuid4().hex[:8]
    probe, other = f"bm25-probe-{run}", f"bm25-crowd-{run}"
    scores = harness.template("bm25_tenant_scores")
    rows = []
    with Memory(uri, auth, tenant=probe, embedder=embedder) as m, Memory(uri, auth, tenant=other, embedder=embedder) as o:
        m.setup()
        for text in PROBE_TEXTS:
            m.remember(text, scope="p")

        def observe(label: str) -> None:
            records, _, _ = driver.execute_query(scores, {"lucene": lucene("zephyr apple", probe, ["p"]), "tenant": probe})
            raw = {r["text"]: r["score"] for r in records}
            parts = {h.record.text: h.parts.lexical for h in m.recall("zephyr apple", scope="p", k=5)}
            rows.append([label, f"{raw[PROBE_TEXTS[0]]:.4f}", f"{raw[PROBE_TEXTS[1]]:.4f}",
                         f"{parts.get(PROBE_TEXTS[0], 0.0):.4f}", f"{parts.get(PROBE_TEXTS[1], 0.0):.4f}"])

        observe("before")
        rng = random.Random(3)
        items = [{"text": f"zephyr {sentence(rng)}", "scope": "x"} for _ in range(crowd)]
        for start in range(0, crowd, 2000):
            o.remember_many(items[start:start + 2000])
        observe(f"after another tenant wrote {crowd:,} records with 'zephyr'")
    return rows


def cost(uri, auth, driver, embedder, sizes: list[int], queries: int) -> list[list[object]]:
    df = harness.template("bm25_tenant_df")
    rows = []
    for size in sizes:
        tenant = f"bm25-cost-{uuid.uuid4().hex[:8]}"
        rng = random.Random(size)
        with Memory(uri, auth, tenant=tenant, embedder=embedder) as m:
            items = [{"text": sentence(rng), "scope": "t"} for _ in range(size)]
            for start in range(0, size, 2000):
                m.remember_many(items[start:start + 2000])
            asked = [sentence(rng).split(" (#")[0] for _ in range(queries)]
            m.recall(asked[0], scope="t")  # warm
            recall_ms, count_ms, counted = [], [], []
            for query in asked:
                started = time.perf_counter()
                m.recall(query, scope="t")
                recall_ms.append((time.perf_counter() - started) * 1000)
                found = (words(query) or "").split()
                started = time.perf_counter()
                with driver.session() as session:
                    total = sum(session.run(df, lucene=lucene(w, tenant, chain("t"))).single()["df"] for w in found)
                count_ms.append((time.perf_counter() - started) * 1000)
                counted.append(total / max(1, len(found)))
        p50_recall, p50_count = harness.median(recall_ms), harness.median(count_ms)
        rows.append([size, queries, round(harness.median([len((words(q) or "").split()) for q in asked]), 1),
                     round(harness.median(counted)), round(p50_recall, 1), round(p50_count, 1),
                     f"{100 * p50_count / p50_recall:.0f}%"])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowd", type=int, default=2000)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    embedder = HashingEmbedder(256)
    with GraphDatabase.driver(uri, auth=auth) as driver:
        leak = side_channel(uri, auth, driver, embedder, args.crowd)
        spent = cost(uri, auth, driver, embedder, [int(s) for s in args.sizes.split(",")], args.queries)
    body = ("## The side channel\n\nThe probe tenant's two records for `recall(\"zephyr apple\")`:\n\n"
            + harness.table(["when", "BM25 'zephyr' record", "BM25 'apple' record", "lexical part 'zephyr'",
                             "lexical part 'apple'"], leak)
            + "\n\n## What per-tenant document frequencies cost\n\n"
            + harness.table(["tenant memories", "queries", "words per query", "tenant docs per word (p50)",
                             "recall p50 ms", "per-word counts p50 ms", "counts / recall"], spent))
    notes = ("The probe never sees another tenant's record; it sees its own records' scores move because BM25's "
             "IDF counts documents across the whole full-text index. A per-tenant BM25 would take each query "
             "word's document frequency among the tenant's own memories (one narrowed full-text count per word, "
             "timed here; the tenant's document count and average length come from its scope counters and could "
             "be cached) and rescore the candidates in Python. Embedder: HashingEmbedder(256); the texts are "
             "bench/recall.py's synthetic sentences.")
    path = harness.write_result("bm25_tenant", "Full-text statistics across tenants", body, notes)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
