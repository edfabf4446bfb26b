"""The launcher's process and state-file helpers (``graphmem._launcher``): pid and env files,
log tails, stopping a process."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

_MAIN_CLASS = "graphmem.embedded.Launcher"


def _read_env_file(path: Path) -> dict[str, str]:
    try:
        text = path.read_text()
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def _write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (mode 600, also when it already existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(path, 0o600)


def _recorded_pid(pid_file: Path) -> int | None:
    """The pid in a state folder's neo4j.pid, or None if the file is empty or corrupt."""
    try:
        return int(pid_file.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def _is_launcher(pid: int, data: str | None = None) -> bool:
    """Whether ``pid`` is a launcher process, and, given ``data``, the one serving that data
    folder: after a kill -9 the recorded pid may be reused, even by another state dir's Neo4j."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if _MAIN_CLASS.encode() not in args:
        return False
    if not data:
        return True
    at = [i for i, arg in enumerate(args[:-1]) if arg == b"--data"]
    return any(args[i + 1] == os.fsencode(data) for i in at)


def _log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"




def _terminate(pid: int, grace: float = 60.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _alive(pid):
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"
