"""The graph walk, two ways, on LoCoMo: recall as shipped (the graph side's one-hop ties and
its two hops through rare names, in the statement) beside a personalized PageRank over the
episode-entity graph (networkx), seeded as HippoRAG 2 seeds it: the entities the question
names and the best direct hits. The PageRank score is added to recall's with a weight; the
weight 0 row is recall as shipped. Prints evidence recall@10 per category and what the walk
costs per question, in one run on one store.

    python bench/graph_walk.py [--data FILE] [--weights 0,0.1,0.3,1] [--samples ID,ID]

LoCoMo is read from ../shared/data (never copied). The subgraph the walk runs on is read
once per conversation with a bench-only statement (bench/cypher/graph_walk_edges.cypher),
as a production walk would read the subgraph around the seeds with one statement.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from locomo import CATEGORIES, DATA, SCORED, K, evidence_of, sessions, turn_text

from graphmem import Memory, WordLlamaEmbedder

DAMPING = 0.5  # HippoRAG 2's restart probability is 0.5


def pagerank(graph, seeds: dict[str, float]) -> dict[str, float]:
    import networkx as nx

    wanted = {n: w for n, w in seeds.items() if n in graph and w > 0}
    if not wanted:
        return {}
    return nx.pagerank(graph, alpha=DAMPING, personalization=wanted, weight="weight", max_iter=200, tol=1e-8)


def main(argv: list[str] | None = None) -> int:
    import networkx as nx

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--weights", default="0,0.1,0.3,1")
    parser.add_argument("--samples", default="")
    parser.add_argument("--hits", type=int, default=5, help="direct hits that seed the walk beside the question's entities")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        raise SystemExit(f"LoCoMo data not found at {path} (see ../shared/data/locomo/README.md)")
    samples = json.loads(path.read_text())
    if args.samples:
        samples = [s for s in samples if s["sample_id"] in set(args.samples.split(","))]
        if not samples:
            raise SystemExit(f"no conversation of {path.name} has a sample_id in --samples {args.samples!r}")
    weights = [float(w) for w in args.weights.split(",")]
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    edges_query = harness.template("graph_walk_edges")
    recorder = harness.Recorder()
    scores: dict[float, dict[int, list[float]]] = {w: defaultdict(list) for w in weights}
    walk_ms: list[float] = []
    run = uuid.uuid4().hex[:8]
    for c, sample in enumerate(samples):
        with Memory(uri, auth, tenant=f"walk-{run}-{c}", embedder=embedder) as memory:
            if c == 0:
                memory.setup()
            turn_of: dict[str, str] = {}
            for n, date, session in sessions(sample["conversation"]):
                done = memory.ingest([{"role": "user", "name": t["speaker"], "content": turn_text(t)} for t in session],
                                     scope="locomo", llm=None, session_id=f"{sample['sample_id']}/{n}", occurred_at=date)
                turn_of.update(zip(done.episode_ids, (t["dia_id"] for t in session)))
            rows = memory._store.run.driver.execute_query(edges_query, {"tenant": memory.tenant}).records
            graph = nx.Graph()
            for r in rows:
                graph.add_edge(r["a"], r["b"], weight=1.0)
            turn_ids = set(turn_of.values())
            for q in sample["qa"]:
                evidence = evidence_of(q, turn_ids)
                category = int(q["category"])
                if not evidence or category not in SCORED:
                    continue
                hits = memory.recall(str(q["question"]), scope="locomo", k=5 * K, kinds=["episode"])
                candidates = recorder.take() or []
                first = candidates[0] if candidates else {}
                base = {h.record.id: h.score for h in hits}
                started = time.perf_counter()
                seeds = {s["id"]: 1.0 for s in first.get("seeds") or ()}
                for h in hits[:args.hits]:
                    seeds[h.record.id] = seeds.get(h.record.id, 0.0) + h.score / max(hits[0].score, 1e-9)
                ranks = pagerank(graph, seeds)
                walk_ms.append((time.perf_counter() - started) * 1000)
                walked = {n: v for n, v in ranks.items() if n in turn_of and n not in seeds}
                top = max(walked.values(), default=0.0) or 1.0
                floor = min(base.values(), default=0.0)
                for w in weights:
                    mixed = {n: base.get(n, floor) + w * walked.get(n, 0.0) / top for n in set(base) | set(walked)}
                    ranked = [turn_of[n] for n in sorted(mixed, key=lambda n: -mixed[n]) if n in turn_of][:K]
                    scores[w][category].append(len(set(ranked) & set(evidence)) / len(evidence))
            memory.erase(scope="locomo")
    if not walk_ms:
        raise SystemExit("no question with evidence in the conversations chosen: nothing to score")
    rows_out = []
    for w in weights:
        per = scores[w]
        every = [v for c in SCORED for v in per[c]]
        label = "recall as shipped (one-hop ties, two hops through rare names)" if w == 0 else f"+ {w:g} x PageRank"
        # a category without a question has no figure ("-"), not a recall of zero
        rows_out.append([label, *(f"{sum(per[c]) / len(per[c]):.3f}" if per[c] else "-" for c in SCORED),
                         f"{sum(every) / len(every):.3f}"])
    body = harness.table(["ranking", *(CATEGORIES[c] for c in SCORED), "1-4"], rows_out)
    notes = (f"{len(samples)} conversations of {path.name}, ingest(llm=None) per session, WordLlama; PageRank over "
             f"the SPOKE, MENTIONS and NEXT edges of each conversation, restart {DAMPING}, seeded by the question's "
             f"entities (1 each) and the best {args.hits} hits (their score over the best's); its score over the best "
             f"walked turn's, added to recall's score. The walk took {harness.median(walk_ms):.1f} ms p50, "
             f"{harness.pct(walk_ms, 0.95):.1f} ms p95 per question in Python, besides reading the subgraph.")
    print(body + "\n\n" + notes)
    print(f"written to {harness.write_result('graph-walk', 'The graph walk: PageRank beside the shipped two hops', body, notes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
