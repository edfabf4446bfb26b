"""graphmem against Graphiti (graphiti-core), on the same Neo4j, with the same embedder and
no network: search latency at growing numbers of facts, and correctness on a temporal
scenario set (people who move several times; "where does X live?" now and at a past date).

How the comparison is kept fair (written into the result file too):
- Both systems use WordLlama (256 dimensions) through their own embedder interfaces.
- Graphiti gets an *oracle* LLM client: its contradiction prompt (dedupe_edges.resolve_edge)
  is answered perfectly from the facts' structure (same person, different city =
  contradicted; same person and city = duplicate), so Graphiti's temporal invalidation
  runs as with an ideal model. Every other prompt gets an empty answer; none is needed
  because entity nodes are created up front and edges carry their valid_at.
- Scenario facts go through Graphiti's public add_triplet (its resolution path, one call
  per fact); the filler facts for the latency sizes go through its bulk writer
  (graphiti_core.utils.bulk_utils.add_nodes_and_edges_bulk), graphmem's through
  remember_many with precomputed embeddings.
- Graphiti is measured twice on the temporal set: plain search(), as most callers use it,
  and search() with validity filters for the asked date (valid_at <= T and invalid_at
  null or > T), its best case. graphmem uses recall(valid_at=T).

    python bench/graphiti_compare.py [--sizes 1000,10000,50000] [--subjects 60] [--queries 30]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # Graphiti's queries warn about unset keys
sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.edges import EntityEdge
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.nodes import EntityNode
    from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters
    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
except ImportError as exc:  # pragma: no cover -- installed by make bench only
    raise SystemExit(f"graphiti-core is not installed ({exc}); run make bench, or pip install -e '.[bench]'") from None

import harness  # noqa: E402
import temporal_oracle as oracle  # noqa: E402
from neo4j import GraphDatabase  # noqa: E402

from graphmem import AsyncMemory, WordLlamaEmbedder  # noqa: E402

THINGS = ("green tea, the hiking boots, a table for two, the premium plan, pasta, a refund, the blue jacket, "
          "noise-cancelling headphones, a yoga class, sushi, the standing desk, a concert ticket").split(", ")


class WordLlamaForGraphiti(EmbedderClient):
    def __init__(self, model: WordLlamaEmbedder) -> None:
        self.model = model

    async def create(self, input_data):
        text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
        return self.model.embed_query(text)

    async def create_batch(self, input_data_list):
        return self.model.embed_documents(list(input_data_list))


class CosineReranker(CrossEncoderClient):
    """Graphiti's reranker interface answered with embedding similarity (no model call)."""

    def __init__(self, model: WordLlamaEmbedder) -> None:
        self.model = model

    async def rank(self, query, passages):
        q = self.model.embed_query(query)
        vecs = self.model.embed_documents(passages)
        scored = [(p, sum(a * b for a, b in zip(q, v))) for p, v in zip(passages, vecs)]
        return sorted(scored, key=lambda x: -x[1])


class OracleLLM(LLMClient):
    """A perfect judge for Graphiti's edge resolution prompt; empty answers elsewhere."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="unused", model="oracle", small_model="oracle"))
        self.prompts: Counter[str] = Counter()

    async def _generate_response(self, messages, response_model=None, max_tokens=0, model_size=None, *, model=None):
        name = response_model.__name__ if response_model else "none"
        self.prompts[name] += 1
        text = "\n".join(m.content for m in messages)
        if name == "EdgeDuplicate":
            return oracle.judge(text)
        return oracle.empty(response_model)


async def run(args) -> int:
    uri, auth = harness.neo4j_auth()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    rng = random.Random(7)
    model = WordLlamaEmbedder()
    group = f"bench_{uuid.uuid4().hex[:8]}"
    tenant = f"bench-graphiti-{group}"
    print(f"Graphiti group {group}, graphmem tenant {tenant}", file=sys.stderr)
    llm = OracleLLM()
    graphiti = Graphiti(uri, auth[0], auth[1], llm_client=llm, embedder=WordLlamaForGraphiti(model),
                        cross_encoder=CosineReranker(model))
    quiet = logging.getLogger("graphiti_core.driver.neo4j_driver")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # Graphiti creates its indexes concurrently and logs the races
    await graphiti.build_indices_and_constraints()
    quiet.setLevel(level)
    now = datetime.now(timezone.utc)
    people = oracle.scenario(rng, args.subjects, args.changes)
    nodes: dict[str, EntityNode] = {}

    async def node(name: str) -> EntityNode:
        if name not in nodes:
            n = EntityNode(name=name, group_id=group, labels=["Entity"], summary="")
            await n.generate_name_embedding(graphiti.embedder)
            await n.save(graphiti.driver)
            nodes[name] = n
        return nodes[name]

    rows, latency, temporal = [], {}, {}
    async with AsyncMemory(uri, auth, tenant=tenant, embedder=model) as memory:
        await memory.setup()
        # -- the temporal scenario: every move through both public write paths ------------
        t0 = time.perf_counter()
        items = []
        for p in people:
            for start, city in p["moves"]:
                items.append({"text": f"{p['name']} lives in {city}", "scope": "bench", "subject": p["name"],
                              "predicate": "lives_in", "object": city, "valid_from": start, "provenance": "user"})
        await memory.remember_many(items)
        graphmem_write = time.perf_counter() - t0
        t0 = time.perf_counter()
        for p in people:
            for start, city in p["moves"]:
                source, target = await node(p["name"]), await node(city)
                edge = EntityEdge(group_id=group, source_node_uuid=source.uuid, target_node_uuid=target.uuid,
                                  created_at=now, name="LIVES_IN", fact=f"{p['name']} lives in {city}", valid_at=start)
                await graphiti.add_triplet(source, edge, target)
        graphiti_write = time.perf_counter() - t0
        questions = []
        for p in people:
            questions.append((p, f"Where does {p['name']} live?", None))
            first, last = p["moves"][0][0], p["moves"][-1][0]
            past = first + timedelta(days=rng.randint(1, max(1, (last - first).days - 1)))
            questions.append((p, f"Where did {p['name']} live?", past))
        scores = {name: {"top1": 0, "stale": 0, "shown": 0} for name in ("graphmem", "graphiti", "graphiti+filters")}
        for person, question, when in questions:
            asked = when or now
            expected = oracle.city_at(person, asked)
            hits = await memory.recall(question, scope="bench", k=5, valid_at=when, kinds=["fact"])
            got = [(h.record.object, h.record.valid_at(asked)) for h in hits]
            oracle.tally(scores["graphmem"], got, expected)
            for name, search_filter in (("graphiti", None), ("graphiti+filters", _valid_filter(asked))):
                edges = await graphiti.search(question, group_ids=[group], num_results=5, search_filter=search_filter)
                got = [(oracle.city_of(e.fact), _edge_valid(e, asked)) for e in edges]
                oracle.tally(scores[name], got, expected)
        temporal = {name: s for name, s in scores.items()}
        # -- latency at growing sizes ----------------------------------------------------
        written = len(items)
        filler_people = [await node(f"Filler{i:04d}") for i in range(200)]
        thing_nodes = [await node(t) for t in THINGS]
        queries = [f"What does Filler{rng.randint(0, 199):04d} like?" for _ in range(args.queries)]
        for size in sizes:
            while written < size:
                batch = min(2000, size - written)
                texts, pairs = [], []
                for _ in range(batch):
                    who, what = rng.choice(filler_people), rng.choice(thing_nodes)
                    texts.append(f"{who.name} likes {what.name} (#{rng.randint(0, 10**6)})")
                    pairs.append((who, what))
                vectors = model.embed_documents(texts)
                await memory.remember_many([{"text": t, "scope": "bench", "embedding": v} for t, v in zip(texts, vectors)])
                edges = [EntityEdge(group_id=group, source_node_uuid=w.uuid, target_node_uuid=o.uuid, created_at=now,
                                    name="LIKES", fact=t, fact_embedding=v, valid_at=now)
                         for t, v, (w, o) in zip(texts, vectors, pairs)]
                await add_nodes_and_edges_bulk(graphiti.driver, [], [], [], edges, graphiti.embedder)
                written += batch
                print(f"  {written:,} facts in each system", flush=True)
            ours, theirs = [], []
            for q in queries:  # alternate, so machine noise hits both alike
                t0 = time.perf_counter()
                await memory.recall(q, scope="bench", k=10)
                ours.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                await graphiti.search(q, group_ids=[group], num_results=10)
                theirs.append((time.perf_counter() - t0) * 1000)
            latency[size] = (ours, theirs)
            rows.append([size, harness.median(ours), harness.pct(ours, 0.95), harness.median(theirs),
                         harness.pct(theirs, 0.95), f"{harness.median(theirs) / harness.median(ours):.1f}x"])
            print(harness.table(["facts", "graphmem p50", "graphmem p95", "graphiti p50", "graphiti p95", "graphiti / graphmem"], rows[-1:]), flush=True)
        await memory.erase(scope="bench")
    await graphiti.close()
    with GraphDatabase.driver(uri, auth=auth) as driver:
        clear = harness.template("graphiti_clear")
        while driver.execute_query(clear, {"group": group, "limit": 5000}).records[0]["deleted"]:
            pass
    n = len(questions)
    body = "Search latency, ms (each system's own search over the same facts; WordLlama query embedding included):\n\n"
    body += harness.table(["facts", "graphmem recall p50", "graphmem p95", "graphiti search p50", "graphiti p95", "graphiti / graphmem (p50)"], rows)
    body += (f"\n\nTemporal scenario: {len(people)} people, {args.changes} moves each ({len(items)} facts), {n} questions "
             "(half about now, half about a past date):\n\n")
    body += harness.table(["system", "correct fact top-1", "share of top-5 no longer valid at the asked time"], [
        [name, f"{s['top1'] / n:.1%}", f"{s['stale'] / max(1, s['shown']):.1%}"] for name, s in temporal.items()])
    fairness = " ".join(__doc__.split("How the comparison is kept fair (written into the result file too):")[1]
                        .split("    python")[0].split())
    notes = (f"Writes of the scenario facts: graphmem remember_many {graphmem_write:.1f} s; Graphiti add_triplet "
             f"{graphiti_write:.1f} s ({len(items)} calls). Oracle LLM prompts answered: "
             + (", ".join(f"{k} x{v}" for k, v in sorted(llm.prompts.items())) or "none")
             + f".\n\nHow the comparison is kept fair: {fairness}")
    out = harness.write_result("graphiti", "graphmem vs Graphiti (same Neo4j, same embedder, no network)", body, notes)
    harness.plot("graphiti", "Search latency against the number of facts", "facts", "p50 ms", {
        "graphmem recall": (sizes, [harness.median(latency[s][0]) for s in sizes]),
        "graphiti search": (sizes, [harness.median(latency[s][1]) for s in sizes]),
    })
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


def _edge_valid(edge: EntityEdge, instant: datetime) -> bool:
    starts = edge.valid_at is None or edge.valid_at <= instant
    ends = edge.invalid_at is None or edge.invalid_at > instant
    return starts and ends and (edge.expired_at is None or edge.expired_at > instant)


def _valid_filter(instant: datetime) -> SearchFilters:
    return SearchFilters(
        valid_at=[[DateFilter(date=instant, comparison_operator=ComparisonOperator.less_than_equal)]],
        invalid_at=[[DateFilter(date=instant, comparison_operator=ComparisonOperator.greater_than)],
                    [DateFilter(comparison_operator=ComparisonOperator.is_null)]],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--subjects", type=int, default=60)
    parser.add_argument("--changes", type=int, default=4)
    parser.add_argument("--queries", type=int, default=30)
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
