"""Shared bench plumbing: Neo4j settings, bench-only Cypher, timing, tables, plots."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from graphmem._base import templates

HERE = Path(__file__).resolve().parent
RESULTS = Path(os.environ.get("GRAPHMEM_BENCH_RESULTS", HERE / "results"))


def template(name: str) -> str:
    """Text of a bench-only template in bench/cypher (same format as cypher/)."""
    path = HERE / "cypher" / f"{name}.cypher"
    return templates.parse(name, path.read_text()).text


def neo4j_auth() -> tuple[str, tuple[str, str]]:
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        raise SystemExit("set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD (eval \"$(graphmem neo4j start)\"), or run make bench")
    return uri, (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
        cpu = model
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        kb = int(next(line for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal")).split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[:1]
    return f"{os.cpu_count()} cores ({cpu}){mem}; Python {platform.python_version()}; {java[0] if java else ''}"


def timed(fn, repeat: int) -> list[float]:
    """Milliseconds of ``repeat`` calls of ``fn``."""
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def median(values: list[float]) -> float:
    return statistics.median(values)


def table(headers: list[str], rows: list[list[object]]) -> str:
    fmt = lambda v: f"{v:,.1f}" if isinstance(v, float) else (f"{v:,}" if isinstance(v, int) else str(v))  # noqa: E731
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_result(name: str, title: str, body: str, notes: str = "") -> Path:
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = f"# {title}\n\n{stamp}; {machine()}\n\n{body}\n"
    if notes:
        text += f"\n{notes}\n"
    path = RESULTS / f"{name}.md"
    path.write_text(text)
    return path


def plot(name: str, title: str, xlabel: str, ylabel: str, series: dict[str, tuple[list[float], list[float]]],
         *, log: bool = True) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install '.[bench]'): no plot written")
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, marker="o", label=label)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


class Recorder:
    """For offline study of recall's scoring (the benchmarks' ``--record``): keeps the
    candidate rows each recall scored, by wrapping graphmem's scoring function for the run."""

    def __init__(self) -> None:
        from graphmem._base.records import as_columns
        from graphmem._recall import fusion

        self.original, self.rows, self.stick = fusion.score, None, None

        def keep(rows, **kwargs):
            self.rows = [as_columns(r) for r in rows]  # camelCase columns, as the statement returns them
            self.stick = kwargs.get("stick")
            return self.original(rows, **kwargs)

        fusion.score = keep

    def take(self) -> list[dict] | None:
        rows, self.rows = self.rows, None
        return rows
