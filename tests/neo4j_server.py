"""Brings up the Neo4j the integration tests run against, in the order of contract §9:
``NEO4J_URI`` set -> use it; a Docker engine answers -> docker/compose.yml via pytest-docker;
otherwise the embedded launcher through ``graphmem neo4j start --ephemeral --no-browser`` (a
temporary data folder that ``stop`` removes, no HTTP connector)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Server:
    uri: str
    user: str
    password: str
    source: str


def _docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _launcher_env() -> dict[str, str]:
    return dict(os.environ, GRAPHMEM_STATE_DIR=str(ROOT / ".graphmem" / "test"))


@contextlib.contextmanager
def neo4j_server():
    """Yield a running ``Server``; stop whatever this function started afterwards."""
    if os.environ.get("NEO4J_URI"):
        yield Server(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                     os.environ.get("NEO4J_PASSWORD", ""), "NEO4J_URI")
        return
    if _docker_answers():
        from pytest_docker.plugin import get_docker_services

        password = secrets.token_urlsafe(16)
        os.environ["NEO4J_PASSWORD"] = password
        with get_docker_services("docker compose", str(ROOT / "docker" / "compose.yml"),
                                 f"graphmemtest{os.getpid()}", ["up --wait"], ["down -v"]) as services:
            port = services.port_for("neo4j", 7687)
            yield Server(f"bolt://127.0.0.1:{port}", "neo4j", password, "docker compose (pytest-docker)")
        return
    command = [sys.executable, "-m", "graphmem._cli", "neo4j"]
    env = _launcher_env()
    started = subprocess.run(command + ["start", "--ephemeral", "--no-browser"], capture_output=True, text=True, env=env)
    if started.returncode != 0:
        raise RuntimeError(f"graphmem neo4j start failed:\n{started.stderr}")
    values = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
    try:
        yield Server(values["NEO4J_URI"], values["NEO4J_USER"], values["NEO4J_PASSWORD"], "embedded launcher (graphmem neo4j start)")
    finally:
        subprocess.run(command + ["stop"], capture_output=True, env=env)
