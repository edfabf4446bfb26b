"""Write throughput against the floor: Memory.remember_many of N facts (embeddings
precomputed and excluded, then computed inside the timing) next to a bare
UNWIND ... CREATE of the same rows on the same server, onto a label with no index and onto
one carrying the indexes a memory carries (uniqueness of tenant and id, tenant and scope,
createdAt, full-text on the text, the vector index), each path on its own empty label or
scope. At the largest size, where remember_many's time goes: validation (building the
rows, timed alone on the same items), each statement (the tracer's timings) and the rest
(parameters sent, the commit, where Neo4j updates its indexes). Import (import_records)
of the same facts as exported, into an empty tenant, beside them.

    python bench/write.py [--sizes 10000,100000] [--batch 5000]
"""

from __future__ import annotations

import argparse
import collections
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
from graphmem._memory import facts as _facts

INDEXED_SCHEMA = ("floor_indexed_unique", "floor_indexed_scope", "floor_indexed_created", "floor_indexed_text",
                  "floor_indexed_vector")


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
    indexed_create, indexed_clear = harness.template("floor_indexed_create"), harness.template("floor_indexed_clear")
    rows, series = [], {"remember_many (embeddings given)": ([], []), "floor, indexed": ([], []), "floor": ([], [])}
    spent: collections.Counter[str] = collections.Counter()
    breakdown: list[list[object]] = []

    def tracer(name: str, params: object, seconds: float) -> None:
        spent[name] += seconds

    with GraphDatabase.driver(uri, auth=auth) as driver:
        for name in INDEXED_SCHEMA:
            driver.execute_query(harness.template(name), {"dimensions": len(embedder.embed_query("dimension"))})
        driver.execute_query(harness.template("floor_indexed_await"))
        if args.warmup > 0:
            # its own texts: the timed ones stay those of earlier runs
            warm_up(driver, uri, auth, embedder, args.warmup, floor_create, floor_clear, random.Random(1))
        for size in sizes:
            texts = [sentence(rng) for _ in range(size)]
            vectors = embedder.embed_documents(texts)
            tenant = f"bench-write-{uuid.uuid4().hex[:8]}"
            timings = {}
            with Memory(uri, auth, tenant=tenant, embedder=embedder, tracer=tracer) as memory:
                memory.setup()
                for mode in ("given", "computed", "triples"):
                    scope = f"w/{mode}"
                    spent.clear()
                    started = time.perf_counter()
                    for start in range(0, size, args.batch):
                        chunk = range(start, min(size, start + args.batch))
                        items = [{"text": texts[i], "scope": scope} for i in chunk]
                        if mode != "computed":
                            for item, i in zip(items, chunk):
                                item["embedding"] = vectors[i]
                        if mode == "triples":
                            for item, i in zip(items, chunk):
                                item.update(triple(i, size))
                        memory.remember_many(items)
                    timings[mode] = time.perf_counter() - started
                    if mode == "given":
                        statements = dict(spent)
                    print(f"  {size:,} {mode}: statements " + ", ".join(
                        f"{name} {seconds:.1f}s" for name, seconds in spent.most_common(5)), file=sys.stderr)
                    print(f"  {size:,} remember_many ({mode}): {timings[mode]:.1f}s", file=sys.stderr)
                # import: the given facts as `graphmem export` writes them, into a tenant of their own,
                # in transactions of the CLI's default size
                exported = list(memory.export_records(scope="w/given"))
                with Memory(uri, auth, tenant=f"{tenant}-import", embedder=embedder) as importer:
                    started = time.perf_counter()
                    imported = importer.import_records(exported)
                    timings["import"] = time.perf_counter() - started
                    importer.erase(scope="w")
                print(f"  {size:,} import ({imported['nodes']:,} nodes, {imported['edges']:,} edges): "
                      f"{timings['import']:.1f}s", file=sys.stderr)
                del exported
                now = datetime.now(timezone.utc)
                for label, create in (("floor", floor_create), ("indexed", indexed_create)):
                    started = time.perf_counter()
                    for start in range(0, size, args.batch):
                        batch = [{"id": uuid.uuid4().hex, "tenant": tenant, "scope": "w/floor", "text": texts[i],
                                  "createdAt": now, "embedding": Vector(vectors[i])}
                                 for i in range(start, min(size, start + args.batch))]
                        driver.execute_query(create, {"rows": batch})
                    timings[label] = time.perf_counter() - started
                    print(f"  {size:,} {label} floor: {timings[label]:.1f}s", file=sys.stderr)
                validation = validation_seconds(memory, texts, vectors, args.batch)
                for clear in (floor_clear, indexed_clear):
                    while driver.execute_query(clear, {"limit": 10_000}).records[0]["deleted"]:
                        pass
                memory.erase(scope="w")
            rate = {k: size / v for k, v in timings.items()}
            rows.append([f"{size:,}", rate["given"], rate["computed"], rate["triples"], rate["import"], rate["indexed"],
                         rate["floor"], f"{rate['given'] / rate['indexed']:.2f}x",
                         f"{rate['computed'] / rate['indexed']:.2f}x", f"{rate['triples'] / rate['indexed']:.2f}x",
                         f"{rate['import'] / rate['indexed']:.2f}x", f"{rate['given'] / rate['floor']:.2f}x"])
            for key, value in (("remember_many (embeddings given)", rate["given"]), ("floor, indexed", rate["indexed"]),
                               ("floor", rate["floor"])):
                series[key][0].append(size)
                series[key][1].append(value)
            total = timings["given"]
            breakdown = [[f"{size:,}", "validation (rows built in Python)", validation, f"{validation / total:.0%}"]]
            breakdown += [[f"{size:,}", f"statement {name}", seconds, f"{seconds / total:.0%}"]
                          for name, seconds in sorted(statements.items(), key=lambda kv: -kv[1])]
            rest = total - validation - sum(statements.values())
            breakdown.append([f"{size:,}", "the rest: parameters sent, commit (index upkeep), results", rest,
                              f"{rest / total:.0%}"])
            breakdown.append([f"{size:,}", "embedding inside (embedded inside minus given)",
                              timings["computed"] - timings["given"], "-"])
        for part in ("unique", "scope", "created", "text", "vector"):
            driver.execute_query(harness.template(f"floor_indexed_drop_{part}"))
    headers = ["facts", "remember_many facts/s (embeddings given)", "remember_many facts/s (embedded inside)",
               "remember_many facts/s (triples, given)", "import facts/s", "indexed floor rows/s", "bare floor rows/s",
               "given / indexed floor", "embedded / indexed floor", "triples / indexed floor", "import / indexed floor",
               "given / bare floor"]
    body = harness.table(headers, rows) + "\n\n" + harness.table(["facts", "where remember_many's time goes (embeddings given)",
                                                               "seconds", "share"], breakdown)
    notes = ("remember_many validates every item, writes each batch in one transaction with its :Scope nodes, "
             "IN_SCOPE edges, scope counters, tombstone and supersession checks, and keeps the vector, full-text "
             "and range indexes of :Memory up to date. The floors are `UNWIND $rows AS r CREATE (n:Floor) SET n = r` "
             f"of the same rows (id, tenant, scope, text, createdAt, 256-d embedding) in batches of {args.batch:,}, "
             "onto a label with no index (bare) and onto one with a (tenant, id) uniqueness constraint, (tenant, scope) "
             "and createdAt range indexes, a full-text index on text and a 256-d cosine vector index (indexed). "
             "'Embedded inside' includes WordLlama embedding time. 'Triples' are the same texts written as "
             "subject/predicate/object facts (embeddings given): one subject per 20 facts, every other fact a "
             "single-valued lives_in (each supersedes its subject's previous one, by rule, in the same "
             "transaction) and the others a multi-valued likes. 'Import' is import_records of the given facts as "
             "export_records wrote them (each node with every property and its vector, the scopes) into an empty "
             "tenant, in transactions of 500 nodes (the CLI's default); the whole file is checked before the first "
             "write, and that check is timed too. Both paths first write "
             f"(and remove) {args.warmup:,} untimed facts, so that the JIT's warm-up on a fresh server "
             "is not billed to whichever path runs first.")
    print(body)
    print(harness.write_result("write", "Write throughput vs the bare-CREATE floor", body, notes))
    harness.plot("write", "Write throughput (higher is better)", "facts", "facts/s", series)
    return 0


def triple(i: int, size: int) -> dict[str, object]:
    """Fact ``i`` as a triple: subject one of ``size / 20``, a single-valued ``lives_in`` for
    even ``i`` (so each subject moves ten times in a run) and a multi-valued ``likes`` else."""
    subject = f"s{i % max(1, size // 20)}"
    if i % 2 == 0:
        return {"subject": subject, "predicate": "lives_in", "object": f"city {i}", "single_valued": True}
    return {"subject": subject, "predicate": "likes", "object": f"thing {i}"}


def validation_seconds(memory: Memory, texts: list[str], vectors: list[list[float]], batch: int) -> float:
    """What building remember_many's rows costs alone (the checks, keys and properties of
    every item), on the same items, without writing them."""
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        items = [{"text": texts[i], "scope": "w/given", "embedding": vectors[i]}
                 for i in range(start, min(len(texts), start + batch))]
        _facts.rows(items, tenant=memory.tenant, now=datetime.now(timezone.utc), single_valued=(),
                    dimension=len(vectors[0]))
    return time.perf_counter() - started


def warm_up(driver, uri, auth, embedder, n: int, floor_create: str, floor_clear: str, rng: random.Random) -> None:
    texts = [sentence(rng) for _ in range(n)]
    vectors = embedder.embed_documents(texts)
    tenant = f"bench-write-warmup-{uuid.uuid4().hex[:8]}"
    now = datetime.now(timezone.utc)
    with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory:
        memory.setup()
        memory.remember_many([{"text": t, "scope": "warmup", "embedding": v} for t, v in zip(texts, vectors)])
        memory.remember_many([{"text": t, "scope": "warmup/triples", "embedding": v, **triple(i, n)}
                              for i, (t, v) in enumerate(zip(texts, vectors))])
        driver.execute_query(floor_create, {"rows": [
            {"id": uuid.uuid4().hex, "tenant": tenant, "scope": "warmup", "text": t, "createdAt": now,
             "embedding": Vector(v)} for t, v in zip(texts, vectors)]})
        while driver.execute_query(floor_clear, {"limit": 10_000}).records[0]["deleted"]:
            pass
        memory.erase(scope="warmup")
    print(f"  warmed up with {n:,} facts through both paths", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
