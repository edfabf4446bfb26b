"""Re-embedding a store with another embedder (``Memory.reembed``, ``graphmem reembed``):
for stores of N memories, the dry run's estimate beside the real run's wall time, the rate
(memories per second), this process's peak memory, and recall latency before, during (a
thread asking one question after another with a memory object of its own on the old
embedder, until the switch) and after (on the new embedder).

The run re-embeds the whole database and switches its vector index: it needs a Neo4j of its
own. It refuses a database that holds memories unless ``--wipe`` (make bench gives it a
fresh server). A size is a fresh database: its memories written with ``remember_many``,
embeddings given by the old embedder.

    python bench/reembed.py --wipe [--sizes 10000,100000] [--from hashing] [--to wordllama]
    python bench/reembed.py --wipe --sizes 1000000 --from hashing --to hashing384   # the million

``--under-load`` (issue 49's figure) runs the re-embedding while two other OS processes use
the store as applications that were not told of it would: a writer calling remember() ten
times a second with the OLD embedder, from before the run to a few seconds after it, and a
recaller asking one question after another (on the old embedder until the store refuses it,
then on a memory object made with the new one, as docs/operations.md says to). At the end it
counts, with Cypher of its own, the memories without a vector in the active slot and the
writer's accepted writes that are missing; its section of bench/results/reembed.md is
"Re-embedding under a writer and a recaller", kept when the sizes above are run again:

    python bench/reembed.py --wipe --under-load [--sizes 10000] [--pairs hashing:wordllama,wordllama:minilm]
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import random
import resource
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from neo4j import GraphDatabase
from recall import sentence

from graphmem import HashingEmbedder, Memory, SchemaError
from graphmem._base import layout, templates
from graphmem._base.embeddings import named_embedder

TENANTS = 10
WRITE_BATCH = 5_000
QUESTIONS = ["who painted the fence last week", "what did Maria cook", "where is the blue bicycle",
             "when did Tom visit the museum", "what does Ahmed study"]


def embedder(name: str):
    if name == "hashing384":
        return HashingEmbedder(384)
    return named_embedder(name)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Asker(threading.Thread):
    def __init__(self, memory: Memory) -> None:
        super().__init__(daemon=True)
        self.memory, self.stop, self.ms, self.failures = memory, threading.Event(), [], 0

    def run(self) -> None:
        rng = random.Random(3)
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                self.memory.recall(rng.choice(QUESTIONS), scope="bench", k=10)
                self.ms.append((time.perf_counter() - started) * 1000)
            except Exception:
                self.failures += 1
                return


def wipe(uri: str, auth: tuple[str, str]) -> None:
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        with driver.session() as session:
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        for index in layout.INDEXES.values():
            driver.execute_query(f"DROP INDEX {index} IF EXISTS")


def fill(uri: str, auth: tuple[str, str], size: int, old) -> None:
    rng = random.Random(size)
    memories = [Memory(uri, auth, tenant=f"bench-{t}", embedder=old) for t in range(TENANTS)]
    memories[0].setup()
    written = 0
    while written < size:
        count = min(WRITE_BATCH, size - written)
        texts = [sentence(rng) for _ in range(count)]
        vectors = old.embed_documents(texts)
        memories[(written // WRITE_BATCH) % TENANTS].remember_many(
            [{"text": t, "scope": "bench", "embedding": v} for t, v in zip(texts, vectors)])
        written += count
        print(f"  written {written:,} / {size:,}", file=sys.stderr)
    for m in memories:
        m.close()


def progress(batch: int):
    """A ``reembed`` progress callback printing every 40th batch on stderr."""
    return lambda step: print(f"  {step.line()}", file=sys.stderr) if step.done % (batch * 40) < batch else None


def recall_p50(memory: Memory, rounds: int = 20) -> float:
    return harness.median(harness.timed(lambda: memory.recall(random.choice(QUESTIONS), scope="bench", k=10), rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="memories a run, comma-separated (10000,100000; --under-load: 10000)")
    parser.add_argument("--from", dest="old", default="hashing", help="the store's embedder (hashing, wordllama, minilm)")
    parser.add_argument("--to", default="wordllama", help="the embedder to move to (hashing384 too)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--wipe", action="store_true", help="empty the database first (its memories are lost)")
    parser.add_argument("--name", default="reembed")
    parser.add_argument("--under-load", action="store_true",
                        help="re-embed while a writer process (old embedder) and a recaller process use the store")
    parser.add_argument("--writes", type=float, default=10.0, help="--under-load: the writer's calls a second")
    parser.add_argument("--pairs", help="--under-load: old:new embedder pairs, comma-separated (default: --from:--to)")
    parser.add_argument("--after", type=float, default=5.0,
                        help="--under-load: seconds the writer and the recaller go on after the run")
    args = parser.parse_args(argv)
    args.sizes = args.sizes or ("10000" if args.under_load else "10000,100000")
    uri, auth = harness.neo4j_auth()
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        held = driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n").records[0]["n"]
    if held and not args.wipe:
        raise SystemExit(f"the database holds {held:,} memories: this benchmark re-embeds and switches the whole "
                         "database; run it on a server of its own with --wipe (make bench does)")
    if args.under_load:
        return under_load(args, uri, auth)
    old, new = embedder(args.old), embedder(args.to)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        wipe(uri, auth)
        fill(uri, auth, size, old)
        before_memory = Memory(uri, auth, tenant="bench-0", embedder=old)
        before = recall_p50(before_memory)
        plan = before_memory.reembed(new, dry_run=True, batch_size=args.batch)
        asker = Asker(Memory(uri, auth, tenant="bench-0", embedder=old))
        asker.start()
        runner = Memory(uri, auth, tenant="bench-0", embedder=old)
        peak_before = peak_mb()
        started = time.perf_counter()
        report = runner.reembed(new, batch_size=args.batch, progress=progress(args.batch))
        wall = time.perf_counter() - started
        asker.stop.set()
        asker.join(timeout=60)
        after = recall_p50(runner)
        rows.append([size, f"{args.old} -> {args.to}", round(plan.estimate_seconds or 0.0, 1), round(wall, 1),
                     round(report.embedded / wall, 1), round(peak_mb(), 0), round(peak_mb() - peak_before, 0),
                     round(before, 1), round(harness.median(asker.ms), 1) if asker.ms else "-", len(asker.ms),
                     round(after, 1), "yes" if report.switched else "no"])
        print(harness.table(HEADERS, rows[-1:]))
        for m in (before_memory, asker.memory, runner):
            m.close()
    notes = (f"Each size: a fresh database of {TENANTS} tenants, memories written with remember_many (the old "
             f"embedder's vectors given), then reembed(batch_size={args.batch}) of every tenant. 'estimate' is the dry "
             "run's (memories / the embedder's rate on a sample of 256 of them), 'wall' the real run from start to the "
             "old vectors removed (embedding, writing the new vectors a batch per transaction, waiting for the new "
             "index, the switch, removing the old vectors). Peak memory is this process's (ru_maxrss), and its growth "
             "during the run. Recall during: a thread with a memory object of its own on the old embedder, asking "
             "until the switch (after it, that object is told its embedder is not the store's); after: the runner, "
             "now on the new embedder.")
    body = harness.table(HEADERS, rows)
    kept = load_section(args.name)
    path = harness.write_result(args.name, TITLE, body, notes)
    if kept:  # the --under-load section stays
        path.write_text(f"{path.read_text().rstrip()}\n\n{kept}")
    print(f"\n{body}\n\nwritten to {path}")
    return 0


# -- --under-load: a writer and a recaller in processes of their own ----------------------------

LOAD_TENANT = "bench-0"  # the tenant the fill writes first: the writer writes there, the recaller asks there
LOAD_SECTION = "## Re-embedding under a writer and a recaller"
WRITER_HEADERS = ["memories", "embedders", "run s", "writer calls", "calls a second", "slowest s", "accepted",
                  "accepted during the run", "refused (SchemaError)", "raw errors",
                  "accepted writes missing or without a vector",
                  "memories at the end", "without an active vector", "left in the old slot"]
RECALLER_HEADERS = ["memories", "embedders", "recalls during the run", "answered", "refused (SchemaError)",
                    "raw errors", "p50 ms", "p95 ms", "over 1 s", "longest wait for an answer s",
                    "old-embedder answers after the switch"]


def _child(role: str, work, out, *args) -> None:
    """A spawned process's body: ``work(*args)``'s figures on ``out``, or the traceback it ended with."""
    try:
        out.put((role, work(*args)))
    except BaseException:
        out.put((role, {"crashed": traceback.format_exc()}))


def writer(uri: str, auth: tuple[str, str], old_name: str, rate: float, ready, stop) -> dict:
    """The second process: remember() ``rate`` times a second with the OLD embedder until
    ``stop`` (a late call does not make the next ones burst). Each call is accepted,
    refused (a SchemaError: the store was re-embedded to another embedder) or a raw error;
    each text is unique, so the end can look every accepted one up."""
    rng = random.Random(7)
    accepted: list[tuple] = []  # (started, ended, text)
    refused: list[tuple] = []  # (started, ended, text, message)
    raw: list[tuple] = []  # (started, ended, text, exception)
    with Memory(uri, auth, tenant=LOAD_TENANT, embedder=embedder(old_name)) as memory:
        memory.recall(QUESTIONS[0], scope="writer", k=1)  # connected, the store's layout read
        ready.set()
        due = time.monotonic()
        while not stop.is_set():
            text = f"{sentence(rng)} (writer note {len(accepted) + len(refused) + len(raw)})"
            started = time.time()
            try:
                memory.remember(text, scope="writer")
                accepted.append((started, time.time(), text))
            except SchemaError as exc:
                refused.append((started, time.time(), text, str(exc)))
            except Exception as exc:
                raw.append((started, time.time(), text, f"{type(exc).__name__}: {exc}"))
            due = max(due + 1 / rate, time.monotonic())
            stop.wait(due - time.monotonic())
    return {"accepted": accepted, "refused": refused, "raw": raw}


def recaller(uri: str, auth: tuple[str, str], old_name: str, new_name: str, ready, stop) -> dict:
    """The third process: recall() one question after another, without pause, until ``stop``:
    on the old embedder until the store refuses it (SchemaError), then on a memory object
    made with the new embedder (loaded beforehand), as an application told to would."""
    rng = random.Random(3)
    new = embedder(new_name)
    new.embed_query(QUESTIONS[0])
    calls: list[tuple] = []  # (started, ms, "old" | "new", "ok" | "refused" | "error", answers)
    refusals: list[tuple[str, str]] = []  # (embedder, message)
    raw: list[str] = []
    memory, on = Memory(uri, auth, tenant=LOAD_TENANT, embedder=embedder(old_name)), "old"
    try:
        memory.recall(QUESTIONS[0], scope="bench", k=10)
        ready.set()
        while not stop.is_set():
            started, clock = time.time(), time.perf_counter()
            try:
                answers, outcome = len(memory.recall(rng.choice(QUESTIONS), scope="bench", k=10)), "ok"
            except SchemaError as exc:
                answers, outcome = 0, "refused"
                refusals.append((on, str(exc)))
            except Exception as exc:
                answers, outcome = 0, "error"
                raw.append(f"{on}: {type(exc).__name__}: {exc}")
            calls.append((started, (time.perf_counter() - clock) * 1000, on, outcome, answers))
            if outcome == "refused" and on == "old":
                memory.close()
                memory, on = Memory(uri, auth, tenant=LOAD_TENANT, embedder=new), "new"
            elif outcome != "ok":
                stop.wait(0.1)
    finally:
        memory.close()
    return {"calls": calls, "refusals": refusals, "raw": raw}


def _started(processes: list, ready: list, timeout: float = 600) -> None:
    """Wait until every process says it is ready (its models loaded, connected); one that
    ended first is an error."""
    deadline = time.monotonic() + timeout
    for process, event in zip(processes, ready):
        while not event.wait(0.5):
            if not process.is_alive() or time.monotonic() > deadline:
                raise SystemExit(f"the {process.name} process did not start (exit code {process.exitcode})")


def _longest_wait(calls: list[tuple], since: float, until: float) -> float:
    """The longest time in [since, until] without a recall answering (seconds)."""
    ends = sorted(c[0] + c[1] / 1000 for c in calls if c[3] == "ok" and since <= c[0] + c[1] / 1000 <= until)
    marks = [since, *ends, until]
    return max(b - a for a, b in itertools.pairwise(marks))


def under_load(args, uri: str, auth: tuple[str, str]) -> int:
    """``--under-load``: ``load_run`` for each pair of embedders and each size, the section
    written; non-zero exit when a memory lacks its active vector, an accepted write is
    missing, a refused one was stored, or a call raised anything but a SchemaError."""
    pairs = [tuple(p.split(":")) for p in (args.pairs or f"{args.old}:{args.to}").split(",")]
    writer_rows: list[list[object]] = []
    recaller_rows: list[list[object]] = []
    said: list[str] = []
    failed: list[str] = []
    for old, new in pairs:
        for size in [int(s) for s in args.sizes.split(",")]:
            run = load_run(args, uri, auth, size, old, new)
            writer_rows.append(run["writer"])
            recaller_rows.append(run["recaller"])
            said += run["said"]
            failed += run["failed"]
            print(harness.table(WRITER_HEADERS, writer_rows[-1:]))
            print(harness.table(RECALLER_HEADERS, recaller_rows[-1:]))
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        server = driver.execute_query(templates.get("server_components").text).records[0]
    section = load_text(args, pairs, f"Neo4j {server['version']} {server['edition']}", writer_rows, recaller_rows,
                        said + failed)
    path = save_load_section(args.name, section)
    print(f"\n{section}\nwritten to {path}")
    for line in failed:
        print(f"FAILED {line}", file=sys.stderr)
    return 1 if failed else 0


def load_run(args, uri: str, auth: tuple[str, str], size: int, old_name: str, new_name: str) -> dict:
    """One size under load: a fresh store of ``size`` memories on ``old_name``, a writer and a
    recaller started (and ready) before the run, ``reembed`` to ``new_name`` in this process,
    both stopped ``--after`` seconds after it; then the store and the writer's writes checked.
    Its two table rows, what the store said, and what failed."""
    old, new = embedder(old_name), embedder(new_name)
    wipe(uri, auth)
    fill(uri, auth, size, old)
    spawn = multiprocessing.get_context("spawn")
    stop, out = spawn.Event(), spawn.Queue()
    ready = [spawn.Event(), spawn.Event()]
    processes = [spawn.Process(name="writer", target=_child,
                               args=("writer", writer, out, uri, auth, old_name, args.writes, ready[0], stop)),
                 spawn.Process(name="recaller", target=_child,
                               args=("recaller", recaller, out, uri, auth, old_name, new_name, ready[1], stop))]
    for process in processes:
        process.start()
    try:
        _started(processes, ready)
        time.sleep(2)  # both under way before the run starts
        with Memory(uri, auth, tenant=LOAD_TENANT, embedder=old) as runner:
            began, clock = time.time(), time.perf_counter()
            report = runner.reembed(new, batch_size=args.batch, progress=progress(args.batch))
            wall, ended = time.perf_counter() - clock, time.time()
        time.sleep(args.after)
    finally:
        stop.set()
    found = dict(out.get(timeout=300) for _ in processes)
    for process in processes:
        process.join(timeout=60)
    for role, figures in found.items():
        if "crashed" in figures:
            raise SystemExit(f"the {role} process failed:\n{figures['crashed']}")
    accepted, refused, raw = found["writer"]["accepted"], found["writer"]["refused"], found["writer"]["raw"]
    asked = found["recaller"]

    slot = next(s for s, index in layout.INDEXES.items() if index == report.index)
    active = layout.PROPERTIES[slot]
    with GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF") as driver:
        store = driver.execute_query(harness.template("reembed_load_store"), property=active,
                                     other=layout.PROPERTIES[layout.other(slot)]).records[0]
        kept, stored = (driver.execute_query(harness.template("reembed_load_writes"), tenant=LOAD_TENANT,
                                             texts=[w[2] for w in writes], property=active).records[0]
                        for writes in (accepted, refused))
    switched = store["switchedAt"] / 1000 if store["switchedAt"] is not None else ended
    lost = len(accepted) - kept["embedded"]
    writes = sorted(accepted + refused + raw)
    calls = asked["calls"]
    during = [c for c in calls if began <= c[0] <= ended]
    answered = [c[1] for c in during if c[3] == "ok"]
    label = f"{old_name} -> {new_name}"
    said, failed = [], []
    if refused:
        said.append(f"{size:,}, {label}: the writer's first refusal (its call began {refused[0][0] - switched:+.2f} s "
                    f"from the switch's commit): `SchemaError: {refused[0][3]}`")
    slow = [f"{c[1] / 1000:.1f} s at {c[0] - switched:+.1f} s ({c[2]})" for c in calls if c[1] > 1000]
    if slow:
        said.append(f"{size:,}, {label}: the recalls over 1 s, when each began from the switch's commit and on "
                    f"which embedder: {', '.join(slow)}")
    if asked["refusals"]:
        on, message = asked["refusals"][0]
        said.append(f"{size:,}, {label}: the recaller's first, on the {on} embedder: `SchemaError: {message}`")
    for what, errors in (("writer", [w[3] for w in raw]), ("recaller", asked["raw"])):
        failed += [f"{size:,}, {label}: the {what}'s raw error: {e}" for e in errors[:5]]
    if store["unembedded"] or lost or stored["found"] or not report.switched:
        failed.append(f"{size:,}, {label}: {store['unembedded']} memories without an active vector, {lost} accepted "
                      f"writes missing or without one, {stored['found']} refused writes stored, switched: "
                      f"{report.switched}")
    return {
        "writer": [size, label, round(wall, 1), len(writes), round(len(writes) / (writes[-1][1] - writes[0][0]), 1),
                   round(max(w[1] - w[0] for w in writes), 2), len(accepted),
                   sum(1 for w in accepted if w[1] >= began and w[0] <= ended), len(refused), len(raw), lost,
                   store["memories"], store["unembedded"], store["leftover"] + store["pending"]],
        "recaller": [size, label, len(during), len(answered), sum(1 for c in during if c[3] == "refused"),
                     sum(1 for c in during if c[3] == "error"),
                     round(harness.pct(answered, 0.5), 1) if answered else "-",
                     round(harness.pct(answered, 0.95), 1) if answered else "-", sum(1 for ms in answered if ms > 1000),
                     round(_longest_wait(calls, began, ended + args.after), 2),
                     sum(1 for c in calls if c[2] == "old" and c[3] == "ok" and c[0] > switched)],
        "said": said, "failed": failed}


def load_text(args, pairs: list[tuple[str, ...]], server: str, writer_rows: list[list[object]],
              recaller_rows: list[list[object]], said: list[str]) -> str:
    """The section of results/reembed.md: the two tables, what they count, the refusals' words,
    the slow recalls and any failure."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    runs = ",".join(f"{a}:{b}" for a, b in pairs)
    notes = f"""Reproduce: `python bench/reembed.py --wipe --under-load --sizes {args.sizes} --pairs {runs}`
on a Neo4j of its own (`graphmem neo4j start --ephemeral`, as `make bench` gives each benchmark).

Each size: a fresh database of {TENANTS} tenants written with the old embedder (`remember_many`), then
three OS processes. A **writer** (spawned) calls `remember()` {args.writes:g} times a second with the old
embedder in tenant `{LOAD_TENANT}`, from 2 s before the run to {args.after:g} s after it; each text is unique.
A **recaller** (spawned) calls `recall(k=10)` in `{LOAD_TENANT}` one question after another without pause: on
the old embedder until the store refuses it (`SchemaError`), then on a memory object made with the new
embedder, loaded beforehand (what docs/operations.md tells an application to do). This process runs
`reembed(batch_size={args.batch})`; **run s** is its wall time, on two cores shared by the four processes.

- **calls a second**: the writer's calls over its whole time (it waits a tenth of a second from one call's
  start to the next, never bursting to catch up, so a slow call lowers it); **slowest**: its slowest call.
- **accepted**: every `remember()` that returned; *during the run*: those whose call overlapped it.
  **refused**: a `SchemaError` (the store was re-embedded to another embedder: the writer's is stale),
  expected from the switch on; **raw errors**: any other exception (must be 0).
- **accepted writes missing or without a vector**: accepted texts not found in the store, or found
  without a vector in the active slot (must be 0); refused texts found stored are counted as a failure too.
- **without an active vector**: memories of the whole store with no vector in the active slot's property,
  counted with Cypher after the run (must be 0); **left in the old slot**: vectors still in the other
  slot's property, or memories marked to be embedded again (0 once the run has cleaned up).
- **recalls during the run**: calls started between the run's start and end, old or new embedder;
  **answered**: returned a list (the five questions are the other sizes' own: some match few of the
  generated texts); the latencies are those that answered, **over 1 s** how many of them took longer.
  **longest wait for an answer**: the longest stretch from the run's
  start to {args.after:g} s after its end with no recall answering (the refusal and the new memory object's
  first recall included). **old-embedder answers after the switch**: recalls started after the switch's
  commit that answered on the old embedder (the store's node still read as before, or a recall whose
  index was gone when the new slot has the old dimension).
- The slow calls: Neo4j empties its query cache on every schema change, and the run makes two (the new
  index, the old one dropped); the next recall then waits while its query is planned again, which takes
  seconds on two shared cores (measured apart on this server: 3.7 to 7.3 s for the recall after a CREATE
  or DROP INDEX, or `db.clearQueryCaches()`, 10 to 20 ms for the one after it). The new memory object's
  first recall plans the new slot's version of the query. These make the recalls over 1 s and the longest
  wait for an answer; a DROP INDEX also waits for the queries using the index to end."""
    lines = "\n".join(f"- {line}" for line in said)
    return (f"{LOAD_SECTION}\n\n{stamp}; {harness.machine()}; {server}\n\n"
            f"The run and the writer:\n\n{harness.table(WRITER_HEADERS, writer_rows)}\n\n"
            f"The recaller:\n\n{harness.table(RECALLER_HEADERS, recaller_rows)}\n\n{notes}\n"
            + (f"\nRefusals and slow recalls:\n\n{lines}\n" if lines else ""))


def load_section(name: str) -> str:
    """The ``--under-load`` section of results/``name``.md (the file's last), or ''."""
    path = harness.RESULTS / f"{name}.md"
    text = path.read_text() if path.exists() else ""
    return text[text.index(LOAD_SECTION):] if LOAD_SECTION in text else ""


def save_load_section(name: str, section: str) -> Path:
    """Write ``section`` as the last of results/``name``.md, in place of the earlier one; the
    rest of the file (the sizes' figures) stays."""
    path = harness.RESULTS / f"{name}.md"
    text = path.read_text() if path.exists() else f"# {TITLE}\n"
    harness.RESULTS.mkdir(exist_ok=True)
    path.write_text(f"{text.split(LOAD_SECTION)[0].rstrip()}\n\n{section}")
    return path


TITLE = "Re-embedding a store with another embedder"
HEADERS = ["memories", "embedders", "dry-run estimate s", "wall s", "memories/s", "peak MB", "growth MB",
           "recall p50 before ms", "recall p50 during ms", "recalls during", "recall p50 after ms", "switched"]

if __name__ == "__main__":
    sys.exit(main())
