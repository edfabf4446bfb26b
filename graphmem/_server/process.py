"""The launcher's process and state-file helpers (``graphmem._server.launcher``): pid and env files,
log tails, stopping a process."""

from __future__ import annotations

import os
import shlex
import signal
import time
from collections.abc import Mapping
from pathlib import Path

from .._base.errors import LauncherError

MAIN_CLASS = "graphmem.embedded.Launcher"


def read_env_file(path: Path) -> dict[str, str]:
    """The ``NAME=value`` lines of an env file; a value written shell-quoted is unquoted."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            value = value.strip()
            if value.startswith("'"):
                try:
                    value = "".join(shlex.split(value))
                except ValueError:
                    pass
            values[key.strip()] = value
    return values


def chosen_password() -> str | None:
    """``GRAPHMEM_NEO4J_PASSWORD`` if set: one line of printable text (the env file is line-based)."""
    wanted = os.environ.get("GRAPHMEM_NEO4J_PASSWORD") or None
    if wanted is not None and not wanted.isprintable():
        raise LauncherError("GRAPHMEM_NEO4J_PASSWORD must not contain control characters (a newline, a tab, ...)")
    return wanted


def env_text(values: Mapping[str, str]) -> str:
    """``NAME=value`` lines a POSIX shell can source as they are: a value with anything but
    letters, digits and ``@%+=:,./-_`` is single-quoted, so sourcing never runs any of it."""
    return "".join(f"{name}={shlex.quote(value)}\n" for name, value in values.items())


def source_lines(env_file: Path, exported: tuple[str, ...]) -> str:
    """What ``graphmem neo4j start|status`` print for ``eval``: source the private env file
    and export the connection settings, so no password is ever in the printed text."""
    return f". {shlex.quote(str(env_file))}\nexport {' '.join(exported)}\n"


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (mode 600, also when it already existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(path, 0o600)


def recorded_pid(pid_file: Path) -> int | None:
    """The pid in a state folder's neo4j.pid, or None if the file is empty or corrupt."""
    try:
        return int(pid_file.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def is_launcher(pid: int, data: str | None = None) -> bool:
    """Whether ``pid`` is a launcher process, and, given ``data``, the one serving that data
    folder: after a kill -9 the recorded pid may be reused, even by another state dir's Neo4j."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if MAIN_CLASS.encode() not in args:
        return False
    if not data:
        return True
    at = [i for i, arg in enumerate(args[:-1]) if arg == b"--data"]
    return any(args[i + 1] == os.fsencode(data) for i in at)


def log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def terminate(pid: int, grace: float = 60.0) -> None:
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
