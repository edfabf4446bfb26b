"""How long ``graphmem neo4j start`` waits for Neo4j: for as long as Neo4j makes progress.

After a kill -9, Neo4j first recovers its transaction log; on a loaded machine one such
start took 166 s (issue 28.6), close to the fixed 180 s the launcher used to allow, and
parts of a start write nothing to any log for a minute or more. So the wait ends only when
Neo4j says it is ready, when its process dies, or when it has shown no sign of work for
``stall`` seconds: no new output in its logs (the launcher's and Neo4j's ``debug.log``), and
less than 5% of a core of CPU and less than 1 MiB of file reads and writes in each 5-second
window (an idle JVM uses about 1% and reads a few KiB). While it waits, a line on standard
error says what Neo4j is doing, every 15 s and at once when it starts recovering:
``graphmem: Neo4j is recovering its transaction log (34 s; database neo4j, 60% done)...``.

``StartWatch`` is the policy, pure (samples in, decisions out); ``wait_for_bolt`` feeds it
from the process and its logs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._base.errors import LauncherError
from .process import log_tail, terminate

READY = "GRAPHMEM_BOLT_READY"
WINDOW = 5.0  # seconds over which CPU and I/O are judged
BUSY_CPU = 0.05  # share of one core that counts as work
BUSY_IO = 1 << 20  # bytes read or written per window that count as work
FIRST_REPORT, REPORT_EVERY = 10.0, 15.0

_RECOVERING = re.compile(r"Recovery required from position|TransactionLogsRecovery")
_RECOVERED = re.compile(r"Recovery (in '\w+' mode )?completed")
# debug.log is plain text in Neo4j 5 ("INFO  [o.n.k.r.Recovery] [neo4j/9953b780] ...") and
# JSON lines in 2026 ({"category":"o.n.k.r.Recovery","message":"[neo4j/9953b780] ..."})
_PERCENT = re.compile(r"(?:\[|\"category\":\")o\.n\.k\.r\.Recovery[\]\"].*?(\d{1,3})% completed")
_DATABASE = re.compile(r"(?:\] |\"message\":\")\[([\w.-]+)/[0-9a-f]+\]")


@dataclass(frozen=True)
class Sample:
    """What was seen of the starting Neo4j at one moment."""

    at: float  # monotonic seconds
    alive: bool
    log_bytes: int  # bytes its logs have grown by since the start
    cpu_seconds: float  # CPU time the process has used
    io_bytes: int  # bytes it has read and written (rchar + wchar)
    lines: tuple[str, ...] = ()  # log lines written since the previous sample


@dataclass(frozen=True)
class Step:
    """What to do after a sample: ``waiting`` (maybe saying ``say``), ``ready``, ``died`` or ``stalled``."""

    outcome: str
    say: str | None = None
    version: str | None = None


class StartWatch:
    """The wait policy: ready, dead, stalled (no progress for ``stall`` seconds), or wait on."""

    def __init__(self, started: float, stall: float) -> None:
        self.started = started
        self.stall = stall
        self.last_progress = started
        self.window: Sample | None = None
        self.log_bytes = 0
        self.phase = "starting"
        self.database = ""
        self.percent: int | None = None
        self.next_report = started + FIRST_REPORT

    def observe(self, sample: Sample) -> Step:
        version = next((line.rsplit("version=", 1)[-1] for line in sample.lines if line.startswith(READY)), None)
        if version is not None:
            return Step("ready", version=version)
        if not sample.alive:
            return Step("died")
        began_recovery = self._follow(sample.lines)
        if self._progressed(sample):
            self.last_progress = sample.at
        if sample.at - self.last_progress > self.stall:
            return Step("stalled", say=f"Neo4j showed no progress for {self.stall:.0f} s (no log output, no CPU or "
                                       f"disk work) while {self.doing()}")
        if began_recovery or sample.at >= self.next_report:
            self.next_report = sample.at + REPORT_EVERY
            return Step("waiting", say=self.report(sample.at))
        return Step("waiting")

    def _follow(self, lines: Sequence[str]) -> bool:
        """Track the phase the log lines show; True when recovery has just begun."""
        began = False
        for line in lines:
            if _RECOVERING.search(line):
                began = began or self.phase != "recovering"
                self.phase, self.percent = "recovering", None
                found = _DATABASE.search(line)
                self.database = found.group(1) if found else ""
            elif _RECOVERED.search(line):
                self.phase, self.percent = "starting", None
            elif self.phase == "recovering" and (found := _PERCENT.search(line)):
                self.percent = int(found.group(1))
        return began

    def _progressed(self, sample: Sample) -> bool:
        progressed = sample.log_bytes > self.log_bytes
        self.log_bytes = max(self.log_bytes, sample.log_bytes)
        if self.window is None:
            self.window = sample
        elif sample.at - self.window.at >= WINDOW:
            elapsed = sample.at - self.window.at
            busy = (sample.cpu_seconds - self.window.cpu_seconds >= BUSY_CPU * elapsed
                    or sample.io_bytes - self.window.io_bytes >= BUSY_IO * elapsed / WINDOW)
            progressed = progressed or busy
            self.window = sample
        return progressed

    def _details(self) -> str:
        details = [f"database {self.database}"] if self.database else []
        if self.percent is not None:
            details.append(f"{self.percent}% done")
        return ", ".join(details)

    def doing(self) -> str:
        """What Neo4j is busy with, in words."""
        if self.phase != "recovering":
            return "starting"
        details = self._details()
        return "recovering its transaction log" + (f" ({details})" if details else "")

    def report(self, now: float) -> str:
        """The progress line for ``now``."""
        seconds = f"{now - self.started:.0f} s"
        if self.phase != "recovering":
            return f"graphmem: waiting for Neo4j to start ({seconds})..."
        details = self._details()
        return f"graphmem: Neo4j is recovering its transaction log ({seconds}{'; ' + details if details else ''})..."


class LogFollower:
    """The lines a log gains from the moment this is made (a log rotated meanwhile is read anew)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = self.start = self._size()
        self.partial = b""
        self.grown = 0
        self.recent: deque[str] = deque(maxlen=12)

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def read(self) -> list[str]:
        size = self._size()
        if size < self.offset:  # rotated or truncated
            self.offset, self.partial = 0, b""
        if size == self.offset:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read(size - self.offset)
        self.offset += len(data)
        self.grown += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        text = [line.decode("utf-8", "replace").rstrip("\r") for line in lines]
        self.recent.extend(line for line in text if line and not line.startswith(" "))
        return text


def _process_counters(pid: int) -> tuple[float, int]:
    """(CPU seconds, bytes read and written) of ``pid`` from /proc; zeros where unreadable."""
    cpu, io = 0.0, 0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        pass
    try:
        counters = dict(line.split(": ", 1) for line in Path(f"/proc/{pid}/io").read_text().splitlines())
        io = int(counters.get("rchar", 0)) + int(counters.get("wchar", 0))
    except (OSError, ValueError):
        pass
    return cpu, io


def wait_for_bolt(proc: subprocess.Popen[bytes], logs: Sequence[LogFollower], stall: float,
                  progress: Callable[..., None], *, poll: float = 0.2) -> str:
    """Wait until the launcher prints its ready line; return Neo4j's version. Raise
    ``LauncherError`` (with the logs' tails) if the process dies or stalls (then it is stopped)."""
    watch = StartWatch(time.monotonic(), stall)
    while True:
        lines = [line for follower in logs for line in follower.read()]
        cpu, io = _process_counters(proc.pid)
        step = watch.observe(Sample(time.monotonic(), proc.poll() is None, sum(f.grown for f in logs), cpu, io,
                                    tuple(lines)))
        if step.outcome == "ready":
            assert step.version is not None
            return step.version
        if step.outcome == "died":
            raise LauncherError(f"Neo4j exited during start (code {proc.wait()}) while {watch.doing()}; "
                                f"{_tails(logs)}")
        if step.outcome == "stalled":
            terminate(proc.pid)
            raise LauncherError(f"{step.say}: stopped it. If it needs longer, raise the bound with --timeout or "
                                f"GRAPHMEM_NEO4J_START_TIMEOUT; {_tails(logs)}")
        if step.say:
            progress(step.say, file=sys.stderr)
        time.sleep(poll)


def wait_for_query(uri: str, auth: tuple[str, str], pid: int, data: str, deadline: float, log: Path) -> None:
    """Once Bolt listens, wait until Neo4j answers ``RETURN 1`` (until ``deadline``); a refused
    password stops it at once."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    from .._base import templates

    ping = templates.get("ping").text
    with GraphDatabase.driver(uri, auth=auth) as driver:
        while True:
            try:
                driver.execute_query(ping)
                return
            except AuthError:
                terminate(pid)
                raise LauncherError(
                    f"Neo4j refused the password stored for {data} (user {auth[0]}): the store was "
                    "given another one; start once with GRAPHMEM_NEO4J_PASSWORD set to it, "
                    "or delete the data with `graphmem neo4j reset`") from None
            except (ServiceUnavailable, Neo4jError, OSError):
                if time.monotonic() > deadline:
                    terminate(pid)
                    raise LauncherError(f"Neo4j started but did not answer RETURN 1; log tail:\n{log_tail(log)}") from None
                time.sleep(0.3)


def _tails(logs: Sequence[LogFollower]) -> str:
    parts = [f"log tail ({logs[0].path}):\n{log_tail(logs[0].path)}"]
    for follower in logs[1:]:
        if follower.recent:
            parts.append(f"last lines of {follower.path}:\n" + "\n".join(follower.recent))
    return "\n".join(parts)
