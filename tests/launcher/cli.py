"""Runs ``graphmem neo4j ...`` as a user does (a subprocess of the console entry point) in a
state dir of the test's own; the real Java launcher, built once by Maven and cached."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def neo4j_cli(state: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = dict(os.environ, GRAPHMEM_STATE_DIR=str(state), **(env or {}))
    environment.setdefault("GRAPHMEM_NEO4J_HEAP", "1g")
    environment.setdefault("GRAPHMEM_NEO4J_PAGECACHE", "256m")
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "GRAPHMEM_NEO4J_PASSWORD", "GRAPHMEM_NEO4J_PORT",
                 "GRAPHMEM_NEO4J_HTTP_PORT"):
        environment.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "graphmem._cli", "neo4j", *args], capture_output=True, text=True,
                          env=environment, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"graphmem neo4j {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def env_lines(done: subprocess.CompletedProcess) -> dict[str, str]:
    """The NEO4J_* settings ``eval "$(graphmem neo4j start)"`` exports: the command's printed
    lines evaluated by a real bash that has no NEO4J_* of its own, its environment read back."""
    return eval_in_shell(done.stdout)


def eval_in_shell(lines: str, shell: str = "bash") -> dict[str, str]:
    """The NEO4J_* variables a ``shell`` exports after ``eval "$lines"`` (``env`` shows exported ones only)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    done = subprocess.run([shell, "-c", 'eval "$1" && env', shell, lines], capture_output=True, text=True,
                          env=environment, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"{shell} could not eval the printed lines (exit {done.returncode}):\n{done.stderr}")
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return {k: v for k, v in values.items() if k.startswith("NEO4J_")}


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False
