"""Does recall through the vector index return what the exact scan returns? On real text.

Neo4j 2026 lets recall search the vector index within one tenant (SEARCH with the tenant as
the index's filter property); the index is approximate (HNSW over quantized vectors), so
this measures what a user would see change: for each question, recall's top 10 with the
default strategy (the index where the template chooses it) beside its top 10 with
``RecallSettings(strategy="exact")`` (every visible memory scored), as the share of the exact
top 10 that the default also returns, and the time of both.

Texts: the turns of LongMemEval S (dev 60, read from ../shared/data, never copied), embedded
by WordLlama, written as memories of three tenant sizes: each question's own haystack (about
500 turns), ten haystacks together (about 5,000), and all sixty (about 29,000). Questions:
each haystack's own question and four user turns of another haystack, asked of every tenant
that holds the haystack. Run it on a server that already holds other tenants
(bench/scale_tenants.py leaves a million memories of 1,000 tenants) to measure the filter
where it is selective.

Usage: python bench/index_agreement.py [--data FILE] [--cleanup]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase

from graphmem import Memory, RecallSettings, WordLlamaEmbedder
from graphmem._base.validate import _FORBIDDEN_IN_TEXT, blank

DATA = Path(os.environ.get("GRAPHMEM_LONGMEMEVAL") or Path(__file__).resolve().parents[2] / "shared" / "data"
            / "longmemeval" / "longmemeval_s_dev60.json")
SCOPE = "u"
K = 10
MAX_CHARS = 2000  # a turn's first 2,000 characters (a few are whole documents)


def turns(question: dict) -> list[str]:
    # a few turns hold control characters (graphmem refuses them: they become spaces here) and
    # one is a lone zero-width space
    texts = (_FORBIDDEN_IN_TEXT.sub(" ", t["content"][:MAX_CHARS]) for s in question["haystack_sessions"] for t in s)
    return [text for text in texts if not blank(text)]


def queries_for(i: int, data: list[dict], rng: random.Random) -> list[str]:
    """Haystack i's question and four user turns of another haystack."""
    other = data[(i + 1) % len(data)]
    user = [t["content"][:300] for s in other["haystack_sessions"] for t in s if t["role"] == "user" and t["content"].strip()]
    return [data[i]["question"], *rng.sample(user, min(4, len(user)))]


def agreement(memory: Memory, exact: Memory, queries: list[str]) -> tuple[list[float], list[float], list[float]]:
    """Per query: the share of the exact top K that the default recall returns; ms of each."""
    shares, fast, slow = [], [], []
    for q in queries:
        got: list[list[str]] = []
        for m, times in ((memory, fast), (exact, slow)):
            times += harness.timed(lambda m=m: got.append([r.record.id for r in m.recall(q, scope=SCOPE, k=K)]), 1)
        default, truth = got
        if truth:
            shares.append(len(set(default) & set(truth)) / len(truth))
    return shares, fast, slow


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--cleanup", action="store_true", help="erase every tenant written before exiting")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        raise SystemExit(f"LongMemEval data not found at {path} (see ../shared/data/longmemeval/README.md)")
    data = json.loads(path.read_text(encoding="utf-8"))
    rng = random.Random(7)
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    run = uuid.uuid4().hex[:8]
    groups = {"one haystack": [[i] for i in range(len(data))],
              "ten haystacks": [list(range(j, min(j + 10, len(data)))) for j in range(0, len(data), 10)],
              "all sixty": [list(range(len(data)))]}
    rows: list[list[object]] = []
    written: list[Memory] = []
    with GraphDatabase.driver(uri, auth=auth) as driver:
        Memory.from_driver(driver, embedder=embedder).setup()
        version = Memory.from_driver(driver).verify_connectivity()["version"]
        for label, tenants in groups.items():
            shares: list[float] = []
            fast: list[float] = []
            slow: list[float] = []
            sizes = []
            for n, haystacks in enumerate(tenants):
                tenant = f"bench-agree-{label.split()[0]}-{n:02d}-{run}"
                memory = Memory.from_driver(driver, tenant=tenant, embedder=embedder)
                exact = Memory.from_driver(driver, tenant=tenant, embedder=embedder,
                                           recall_settings=RecallSettings(strategy="exact"))
                texts = [t for i in haystacks for t in turns(data[i])]
                for start in range(0, len(texts), 5000):
                    memory.remember_many([{"text": t, "scope": SCOPE} for t in texts[start:start + 5000]])
                written.append(memory)
                sizes.append(len(texts))
                asked = [q for i in haystacks for q in queries_for(i, data, rng)]
                s, f, e = agreement(memory, exact, asked)
                shares += s
                fast += f
                slow += e
                print(f"{label} {n}: {len(texts):,} memories, {len(asked)} questions, agreement "
                      f"{sum(s) / max(len(s), 1):.3f}", file=sys.stderr)
            rows.append([label, len(tenants), f"{round(sum(sizes) / len(sizes)):,}", len(shares),
                         f"{sum(shares) / len(shares):.3f}", f"{sum(1 for x in shares if x == 1.0) / len(shares):.3f}",
                         f"{min(shares):.1f}", harness.pct(fast, 0.5), harness.pct(slow, 0.5)])
        total = driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n").records[0]["n"]
        if args.cleanup:
            for memory in written:
                memory.erase(scope=SCOPE)
    body = harness.table(["tenant", "tenants", "memories per tenant", "questions", "share of the exact top 10 returned",
                          "questions with the same top 10", "worst question", "default recall p50 ms",
                          "exact recall p50 ms"], rows)
    notes = (f"Neo4j {version}; {total:,} memories in the store at the end (other tenants included). Default: "
             f"`recall(k={K})` with the default settings (on Neo4j 2026 the vector index searched within the tenant, "
             f"on 5.26 the index over the whole store or the exact scan, whichever the template finds cheaper); exact: "
             f"`RecallSettings(strategy=\"exact\")`. Both fuse the full-text side as usual, so the share is what "
             f"the index changes in what a user gets. WordLlama embeddings of LongMemEval S dev-60 turns (first "
             f"{MAX_CHARS:,} characters).")
    out = harness.write_result("index-agreement", "Vector index against the exact scan: recall's top 10 on real text",
                               body, notes)
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
