"""Scale: recall p50/p95 and write rate with many memories in one tenant and the same number
spread across many tenants, erase of a large tenant, and the Neo4j process's memory and
store size on disk.

    python bench/scale.py [--memories 1000000] [--tenants 1000] [--erase 100000]
                          [--checkpoints 100000,250000,500000] [--batch 5000] [--queries 100]

Three phases on one server, in this order: (1) one tenant grows to ``--memories``, recall
measured at each checkpoint; (2) a tenant of ``--erase`` memories is written and erased,
then every node of it is counted by a full scan; (3) ``--memories`` more memories are
written across ``--tenants`` tenants and recall is measured in randomly chosen ones. Writes
go through ``Memory.remember_many`` with the embeddings given (synthetic 256-d unit vectors,
as graphmem stores them; texts drawn from a seeded vocabulary), recall through
``Memory.recall`` (its query embedded by WordLlama inside the timing). Memory is the server's
resident set read from /proc/<pid>/status of the embedded Neo4j's java process.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import numpy as np
from neo4j import GraphDatabase

from graphmem import Memory, WordLlamaEmbedder
from graphmem._server.process import MAIN_CLASS

SCOPE = "main"
GIB = 1024**3


class Vocabulary:
    """Pseudo-words from seeded syllables, drawn with a Zipf-like skew as real text is."""

    def __init__(self, rng: random.Random, size: int = 5000) -> None:
        syllables = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
        words: set[str] = set()
        while len(words) < size:
            words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        total, self.cumulative = 0.0, []
        for rank in range(len(self.words)):
            total += 1.0 / (rank + 1)
            self.cumulative.append(total)

    def text(self, rng: random.Random, low: int = 8, high: int = 16) -> str:
        return " ".join(rng.choices(self.words, cum_weights=self.cumulative, k=rng.randint(low, high)))


class Server:
    """The embedded Neo4j behind the URI (found by its launcher command line on this
    machine): resident memory from /proc and the size of its data folder."""

    def __init__(self, uri: str) -> None:
        self.pid: int | None = None
        self.data: Path | None = None
        self.heap = "?"
        port = str(urlparse(uri).port or 7687).encode()
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if MAIN_CLASS.encode() in args and b"--port" in args and args[args.index(b"--port") + 1] == port:
                self.pid = int(proc.name)
                self.data = Path(args[args.index(b"--data") + 1].decode())
                self.heap = next((a.decode()[4:] for a in args if a.startswith(b"-Xmx")), "?")
                break

    def status(self, field: str) -> int | None:
        """A /proc/<pid>/status field in bytes (VmRSS now, VmHWM the peak so far)."""
        if self.pid is None:
            return None
        try:
            line = next(x for x in Path(f"/proc/{self.pid}/status").read_text().splitlines() if x.startswith(field + ":"))
        except (OSError, StopIteration):
            return None
        return int(line.split()[1]) * 1024

    def cpu(self) -> float:
        """Seconds of CPU the server has used (user + system), from /proc/<pid>/stat."""
        if self.pid is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def disk(self) -> tuple[int, int] | None:
        """Bytes allocated on disk for the default database's store and its transaction logs."""
        if self.data is None:
            return None

        def size(folder: Path) -> int:
            return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0

        return size(self.data / "data" / "databases" / "neo4j"), size(self.data / "data" / "transactions" / "neo4j")


def gib(value: int | None) -> str:
    return "-" if value is None else f"{value / GIB:.2f}"


class Loader:
    """Writes memories through remember_many and reports progress every ``every`` of them."""

    def __init__(self, vocabulary: Vocabulary, server: Server, batch: int, every: int, dimension: int) -> None:
        self.vocabulary, self.server, self.batch, self.every, self.dimension = vocabulary, server, batch, every, dimension
        self.rng = random.Random(11)
        self.vectors = np.random.default_rng(13)
        self.written = 0
        self.seconds = 0.0
        self.cpu = 0.0  # the server's CPU seconds inside remember_many
        self._mark = (0, 0.0)

    def items(self, n: int) -> list[dict]:
        vectors = self.vectors.standard_normal((n, self.dimension), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return [{"text": self.vocabulary.text(self.rng), "scope": SCOPE, "embedding": v}
                for v in vectors.tolist()]

    def write(self, memory: Memory, n: int, label: str) -> float:
        """Write ``n`` memories into ``memory``'s tenant; return the seconds spent in remember_many."""
        spent = 0.0
        for start in range(0, n, self.batch):
            items = self.items(min(self.batch, n - start))
            cpu, started = self.server.cpu(), time.perf_counter()
            memory.remember_many(items)
            took = time.perf_counter() - started
            self.cpu += self.server.cpu() - cpu
            spent += took
            self.seconds += took
            self.written += len(items)
            if self.written - self._mark[0] >= self.every:
                step = (self.written - self._mark[0]) / (self.seconds - self._mark[1])
                print(f"  {label}: {self.written:,} written, {step:,.0f}/s over the last {self.written - self._mark[0]:,}, "
                      f"Neo4j RSS {gib(self.server.status('VmRSS'))} GiB, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
                self._mark = (self.written, self.seconds)
        return spent


class Load:
    """The machine's 1-minute load average, sampled in the background while a step runs:
    the benchmark shares its 2 cores with other work, and the rates move with it."""

    def __init__(self) -> None:
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(15):
            self.samples.append(os.getloadavg()[0])

    def mean(self) -> float:
        self._stop.set()
        return sum(self.samples) / len(self.samples)


def measure_recall(memories: list[Memory], queries: list[str], rng: random.Random, warmup: int) -> tuple[float, float]:
    """p50 and p95 ms of recall, each query in a memory (tenant) chosen at random."""
    for q in queries[:warmup]:
        rng.choice(memories).recall(q, scope=SCOPE)
    timings: list[float] = []
    for q in queries:
        memory = rng.choice(memories)
        timings += harness.timed(lambda: memory.recall(q, scope=SCOPE), 1)
    return harness.pct(timings, 0.5), harness.pct(timings, 0.95)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1_000_000, help="memories in the one tenant, and across the tenants")
    parser.add_argument("--tenants", type=int, default=1000)
    parser.add_argument("--erase", type=int, default=100_000, help="memories in the tenant that is erased")
    parser.add_argument("--checkpoints", default="50000,100000,250000,500000",
                        help="sizes of the one tenant at which recall is also measured (besides --memories)")
    parser.add_argument("--batch", type=int, default=5000, help="items per remember_many call")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--progress", type=int, default=50_000, help="print the write rate every this many memories")
    parser.add_argument("--budget-minutes", type=float, default=0,
                        help="stop growing the one tenant at the last checkpoint whose successor would end past this "
                             "many minutes of loading (at the last step's rate); the tenants then share that size")
    parser.add_argument("--per-tenant", type=int, default=0,
                        help="memories per tenant in phase 3 (default: the one tenant's size over --tenants)")
    parser.add_argument("--resume", action="store_true",
                        help="skip phase 1: the one tenant is what an earlier run left on this server (stopped "
                             "after a checkpoint); its rows are kept from the results file and phases 2-3 run")
    parser.add_argument("--skip-erase", action="store_true",
                        help="leave out phase 2 (with --resume: keep the erase row of the results file)")
    parser.add_argument("--skip-tenants", action="store_true", help="leave out phase 3 (many tenants)")
    parser.add_argument("--cleanup", action="store_true", help="erase every tenant written before exiting")
    args = parser.parse_args(argv)
    if args.memories < 1 or args.tenants < 1 or args.memories % args.tenants:
        raise SystemExit("--memories must be a positive multiple of --tenants")
    checkpoints = sorted({int(c) for c in args.checkpoints.split(",") if c and int(c) < args.memories} | {args.memories})
    uri, auth = harness.neo4j_auth()
    server = Server(uri)
    embedder = WordLlamaEmbedder()
    dimension = embedder.dimensions
    rng = random.Random(42)
    vocabulary = Vocabulary(random.Random(5))
    queries = [vocabulary.text(rng, 3, 6) for _ in range(max(args.queries, args.warmup))]
    loader = Loader(vocabulary, server, args.batch, args.progress, dimension)
    run = uuid.uuid4().hex[:8]
    rows: list[list[object]] = []
    erase_rows: list[list[object]] = []
    series: dict[str, tuple[list[float], list[float]]] = {"one tenant, recall p50": ([], []),
                                                           "one tenant, recall p95": ([], [])}
    written_tenants: list[str] = []
    total = args.memories  # the size the one tenant reaches (less if --budget-minutes stops it)

    def per_tenant() -> int:
        return args.per_tenant or total // args.tenants

    def snapshot() -> tuple[str, str]:
        disk = server.disk()
        return gib(server.status("VmRSS")), "-" if disk is None else gib(sum(disk))

    def report(partial: bool) -> None:
        disk = server.disk()
        process = harness.table(
            ["Neo4j heap (-Xmx)", "page cache", "RSS peak GiB", "RSS at end GiB", "store on disk GiB",
             "transaction logs GiB"],
            [[server.heap, page_cache(), gib(server.status("VmHWM")), gib(server.status("VmRSS")),
              "-" if disk is None else gib(disk[0]), "-" if disk is None else gib(disk[1])]])
        body = harness.table(
            ["tenants", "memories per tenant", "memories in the store", "remember_many batch",
             "write memories/s (this step)", "Neo4j CPU s per 1,000 written", "load average during the step",
             "recall p50 ms", "recall p95 ms", "Neo4j RSS GiB", "on disk GiB"], rows)
        body += "\n\n" + harness.table(["erased tenant", "memories", "write memories/s", "erase s", "erased memories/s",
                                        "nodes of the tenant left"], erase_rows)
        body += "\n\n" + process
        notes = (f"Phases in this order on one fresh server: one tenant grows to {total:,} memories (recall "
                 "measured at each size shown); a tenant of "
                 f"{args.erase:,} memories is written, erased with `erase(scope=...)` of its only top scope, and "
                 "every node still carrying its tenant is counted by a full scan; then "
                 f"{per_tenant() * args.tenants:,} more memories go to {args.tenants:,} tenants "
                 f"({per_tenant():,} each), the one big tenant still in the store. Writes: "
                 f"`Memory.remember_many` of up to {args.batch:,} items per call (one transaction each; a tenant "
                 "smaller than that is one call), embeddings given (synthetic 256-d unit vectors, the default "
                 "embedder's dimension), texts of 8-16 words from a seeded 5,000-word vocabulary. 'This step' "
                 "is the rate of the memories written since the row above (the whole load for the tenants row); "
                 "the server's CPU seconds per 1,000 memories (user + system time of its process during the "
                 "remember_many calls) and the machine's mean 1-minute load average during that step say how "
                 "much of the 2 cores the server had: the rate falls when other work shares them. "
                 f"Recall: `Memory.recall(k=10)` of {args.queries} queries of 3-6 words after "
                 f"{args.warmup} warm-ups, the query embedded by WordLlama inside the timing; for the tenants row "
                 "each query goes to a tenant chosen at random. RSS is VmRSS (VmHWM for the peak) of the server's "
                 "java process: heap, page cache, and the memory-mapped vector and full-text index files it "
                 "touched. On disk: blocks allocated under the database's store folder (indexes included) and "
                 "its transaction logs.")
        if resumed and args.skip_erase:
            notes += (" Phase 3 ran in a second invocation (`--resume --skip-erase`) against the same server, once "
                      f"the first (phases 1 and 2, the one tenant at {total:,} memories) had ended: the first ran "
                      "with --skip-tenants while it was not known whether the one tenant would reach its last size "
                      "in the time available.")
        elif resumed:
            notes += (f" Phases 2 and 3 ran in a second invocation (`--resume`) against the same server, after the "
                      f"first was stopped while the one tenant was past its last row above ({total:,} memories "
                      "then, the size the erase and tenants rows stand beside), to fit the run in the time "
                      "available on a machine shared with other work.")
        if partial:
            notes = "**Partial: the run stopped before every phase ended.**\n\n" + notes
        harness.write_result("scale", "Scale: one tenant vs many, erase, memory and disk", body, notes)

    resumed = 0
    with GraphDatabase.driver(uri, auth=auth) as driver:
        if args.resume:
            earlier = (harness.RESULTS / "scale.md").read_text().splitlines()
            for line in earlier:
                cells = [c.strip() for c in line.strip("|").split("|")]
                if args.skip_erase and line.startswith("| ") and " memories, beside " in line:
                    erase_rows.append(cells)
                if line.startswith("| 1 |") and len(cells) == 11:
                    rows.append([1, cells[1], cells[2], cells[3], *(float(c.replace(",", "")) for c in cells[4:9]),
                                 cells[9], cells[10]])
                    for label, value in (("p50", rows[-1][7]), ("p95", rows[-1][8])):
                        series[f"one tenant, recall {label}"][0].append(int(cells[1].replace(",", "")))
                        series[f"one tenant, recall {label}"][1].append(value)
            resumed = total = driver.execute_query(harness.template("scale_memories")).records[0]["memories"]
            checkpoints = []
            print(f"resuming beside {total:,} memories already in the store, {len(rows)} rows kept", file=sys.stderr)
        # phase 1: one tenant
        solo = Memory.from_driver(driver, tenant=f"bench-scale-solo-{run}", embedder=embedder)
        if not args.resume:
            solo.setup()
            written_tenants.append(solo.tenant)
        done, step_start, cpu_start = 0, 0.0, 0.0
        for size in checkpoints:
            load = Load()
            loader.write(solo, size - done, "one tenant")
            load_avg = load.mean()
            step = (size - done) / (loader.seconds - step_start)
            cpu_per_k = (loader.cpu - cpu_start) / (size - done) * 1000
            done, step_start, cpu_start = size, loader.seconds, loader.cpu
            p50, p95 = measure_recall([solo], queries[:args.queries], rng, args.warmup)
            rss, disk = snapshot()
            rows.append([1, f"{size:,}", f"{size:,}", f"{args.batch:,}", step, cpu_per_k, load_avg, p50, p95, rss,
                         disk])
            series["one tenant, recall p50"][0].append(size)
            series["one tenant, recall p50"][1].append(p50)
            series["one tenant, recall p95"][0].append(size)
            series["one tenant, recall p95"][1].append(p95)
            print(f"one tenant at {size:,}: {step:,.0f} memories/s, recall p50 {p50:.1f} ms p95 {p95:.1f} ms, "
                  f"RSS {rss} GiB, disk {disk} GiB", file=sys.stderr)
            report(partial=True)
            following = [c for c in checkpoints if c > size]
            if args.budget_minutes and following and (
                    loader.seconds + (following[0] - size) / step > args.budget_minutes * 60):
                print(f"stopping the one tenant at {size:,}: {following[0]:,} would take past "
                      f"{args.budget_minutes:.0f} minutes of loading", file=sys.stderr)
                break
        total = total if args.resume else done

        # phase 2: erase a large tenant
        if not args.skip_erase:
            doomed = Memory.from_driver(driver, tenant=f"bench-scale-erase-{run}", embedder=embedder)
            loader.write(doomed, args.erase, "tenant to erase")
            write_rate = args.erase / (loader.seconds - step_start)
            started = time.perf_counter()
            erased = doomed.erase(scope=SCOPE).total
            erase_s = time.perf_counter() - started
            left = driver.execute_query(harness.template("scale_tenant_nodes"), {"tenant": doomed.tenant}).records[0]["nodes"]
            erase_rows.append([f"{args.erase:,} memories, beside {total:,} of another tenant", f"{erased:,}",
                               write_rate, erase_s, erased / erase_s, left])
            print(f"erase of {erased:,} memories: {erase_s:.1f}s, {left} nodes left", file=sys.stderr)
            report(partial=True)

        # phase 3: the same number of memories across many tenants
        if not args.skip_tenants:
            per = args.per_tenant or total // args.tenants
            tenants = [Memory.from_driver(driver, tenant=f"bench-scale-t{i:04d}-{run}", embedder=embedder)
                       for i in range(args.tenants)]
            started_s, started_cpu, load = loader.seconds, loader.cpu, Load()
            for memory in tenants:
                loader.write(memory, per, f"{args.tenants:,} tenants")
                written_tenants.append(memory.tenant)
            rate = per * args.tenants / (loader.seconds - started_s)
            load_avg = load.mean()
            p50, p95 = measure_recall(tenants, queries[:args.queries], rng, args.warmup)
            rss, disk = snapshot()
            rows.append([args.tenants, f"{per:,}", f"{total + per * args.tenants:,}", f"{min(args.batch, per):,}",
                         rate, (loader.cpu - started_cpu) / (per * args.tenants) * 1000, load_avg, p50, p95, rss, disk])
            series[f"{args.tenants:,} tenants, recall p50 (x: memories across them)"] = ([per * args.tenants], [p50])
            print(f"{args.tenants:,} tenants x {per:,}: {rate:,.0f} memories/s, recall p50 {p50:.1f} ms p95 {p95:.1f} ms",
                  file=sys.stderr)

        report(partial=False)
        print((harness.RESULTS / "scale.md").read_text())
        harness.plot("scale", "Recall latency at scale", "memories", "ms", series)
        if args.cleanup:
            for tenant in written_tenants:
                Memory.from_driver(driver, tenant=tenant, embedder=embedder).erase(scope=SCOPE)
    return 0


def page_cache() -> str:
    """The page cache the launcher was asked for (GRAPHMEM_NEO4J_PAGECACHE, default 1g)."""
    return os.environ.get("GRAPHMEM_NEO4J_PAGECACHE") or "1g (launcher default)"


if __name__ == "__main__":
    sys.exit(main())
