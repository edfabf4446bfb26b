"""What OpenTelemetry costs recall, and recall's latency as its metrics tell it: recall at
bench/recall.py's sizes and sentences, the same queries asked in turn by four memory
objects on one tenant, query by query so machine noise hits all alike:

- bare: instrumentation off and the public call's wrapper skipped (the code as it ran
  before spans existed, give or take the no-op context of each template run);
- off: ``Observability(enabled=False)``: what a memory costs when ``opentelemetry-api``
  is not installed (the same code path);
- API, no SDK: the default ``Memory()`` with ``opentelemetry-api`` installed and no SDK
  configured (spans are the API's non-recording ones);
- SDK: a ``TracerProvider`` with a batch span processor into an in-memory exporter, and a
  ``MeterProvider``: every span and metric recorded.

Then the recall latency histogram the SDK's metrics hold (``graphmem.operation.duration``
for ``graphmem.recall``): its p50/p95 as bucket bounds and a plot of the buckets.

    python bench/observability.py [--size 100000] [--queries 200]
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
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recall import sentence

from graphmem import Memory, Observability, WordLlamaEmbedder
from graphmem._sync.recall import Recall

MODES = ("bare", "off", "API, no SDK", "SDK")


def load(memory: Memory, embedder: WordLlamaEmbedder, size: int, rng: random.Random) -> None:
    written, started = 0, time.perf_counter()
    while written < size:
        texts = [sentence(rng) for _ in range(min(5000, size - written))]
        memory.remember_many([{"text": t, "scope": "shop", "embedding": v}
                              for t, v in zip(texts, embedder.embed_documents(texts))])
        written += len(texts)
        print(f"  wrote {written:,} memories", file=sys.stderr)
    print(f"loaded {size:,} in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def histogram_of(reader: InMemoryMetricReader) -> tuple[list[float], list[int]]:
    """Bucket bounds (s) and counts of the recall duration histogram the SDK aggregated."""
    data = reader.get_metrics_data()
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name != "graphmem.operation.duration":
                    continue
                for point in metric.data.data_points:
                    if dict(point.attributes).get("graphmem.operation") == "graphmem.recall":
                        return list(point.explicit_bounds), list(point.bucket_counts)
    return [], []


def bucket_pct(bounds: list[float], counts: list[int], q: float) -> str:
    """The bucket the q-th quantile falls in, as "lower-upper ms" (what a dashboard shows)."""
    total, seen = sum(counts), 0
    for i, n in enumerate(counts):
        seen += n
        if seen >= q * total:
            low = bounds[i - 1] * 1000 if i else 0.0
            return f"{low:g}-{bounds[i] * 1000:g}" if i < len(bounds) else f"> {low:g}"
    return "-"


def plot(bounds: list[float], counts: list[int]) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install '.[bench]'): no plot written")
        return None
    labels = [f"<={b * 1000:g}" for b in bounds] + [f">{bounds[-1] * 1000:g}"]
    last = max(i for i, n in enumerate(counts) if n) + 1
    first = min(i for i, n in enumerate(counts) if n)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(labels[first:last], counts[first:last])
    ax.set_xlabel("graphmem.operation.duration bucket (ms), graphmem.recall")
    ax.set_ylabel("recalls")
    ax.set_title("Recall latency from the OpenTelemetry histogram")
    fig.tight_layout()
    path = harness.RESULTS / "observability.png"
    harness.RESULTS.mkdir(exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    rng = random.Random(42)
    tenant = f"bench-otel-{uuid.uuid4().hex[:8]}"
    queries = [sentence(rng).split(" (#")[0] for _ in range(args.queries)]
    # delta temporality: each read holds what was measured since the one before (the warm-up is read away)
    exporter = InMemorySpanExporter()
    reader = InMemoryMetricReader(preferred_temporality={Histogram: AggregationTemporality.DELTA})
    tracing = TracerProvider()
    tracing.add_span_processor(BatchSpanProcessor(exporter))
    observed = {
        "off": Observability(enabled=False), "API, no SDK": Observability(),
        "SDK": Observability(tracer_provider=tracing, meter_provider=MeterProvider(metric_readers=[reader])),
    }
    memories = {mode: Memory(uri, auth, tenant=tenant, embedder=embedder, observability=o) for mode, o in observed.items()}
    bare_recall = Recall.recall.__wrapped__  # the recall service's method before tracing wrapped it

    def ask(mode: str, q: str) -> list[float]:
        if mode == "bare":
            return harness.timed(lambda: bare_recall(memories["off"]._recall, q, scope="shop", k=10), 1)
        return harness.timed(lambda: memories[mode].recall(q, scope="shop", k=10), 1)

    try:
        memories["off"].setup()
        load(memories["off"], embedder, args.size, rng)
        for i in range(args.warmup):
            for mode in MODES:
                ask(mode, queries[i % len(queries)])
        reader.get_metrics_data()  # the warm-up's samples are read (and dropped from the delta) here
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        for i, q in enumerate(queries):
            order = MODES[i % 4:] + MODES[:i % 4]  # who goes first rotates
            for mode in order:
                times[mode] += ask(mode, q)
        bounds, counts = histogram_of(reader)
        tracing.force_flush()
        spans = len(exporter.get_finished_spans())
    finally:
        memories["off"].erase(scope="shop")
        for memory in memories.values():
            memory.close()
        tracing.shutdown()
    base = harness.median(times["bare"])
    rows = []
    for mode in MODES:
        paired = sorted(t / b for t, b in zip(times[mode], times["bare"]))
        rows.append([mode, harness.median(times[mode]), harness.pct(times[mode], 0.95),
                     f"{(harness.median(times[mode]) / base - 1) * 100:+.1f}%",
                     f"{(harness.median(paired) - 1) * 100:+.1f}%"])
    body = harness.table(["memories: " + f"{args.size:,}", "recall p50 ms", "recall p95 ms", "p50 vs bare",
                          "per-query ratio to bare, median"], rows)
    body += ("\n\nRecall latency as the SDK's histogram holds it (`graphmem.operation.duration`, "
             f"graphmem.operation = graphmem.recall, {sum(counts)} recalls after the warm-up): p50 in the "
             f"{bucket_pct(bounds, counts, 0.5)} ms bucket, p95 in {bucket_pct(bounds, counts, 0.95)} ms; "
             f"{spans:,} spans exported in all.")
    notes = ("Four memory objects on one tenant and server ask the same queries in turn, the first of each query "
             "rotating. 'bare' skips the public call's wrapper (its `__wrapped__`), with instrumentation off: the "
             "code as before spans, give or take a no-op context per template run. 'off' is what a user without "
             "`opentelemetry-api` runs. The SDK row records every span (the call, its embedding, each template "
             "run) into a batch processor and every metric; exporting them anywhere is the application's choice "
             "and cost. WordLlama embeds the question in every row.")
    print(body)
    print(harness.write_result("observability", "What OpenTelemetry costs recall", body, notes))
    if counts:
        plot(bounds, counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
