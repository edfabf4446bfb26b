"""Brings up the Neo4j the integration tests run against, in the order of contract §9:
``NEO4J_URI`` set -> use it; a Docker engine answers -> docker/compose.yml via pytest-docker;
otherwise the embedded launcher through ``graphmem neo4j start --ephemeral`` (a temporary
data folder that ``stop`` removes; Neo4j Browser served, for the Browser test)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .launcher.cli import alive, env_lines

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


LAUNCHER_STATE = ROOT / ".graphmem" / "test"  # the state dir of the embedded server the session starts
LAUNCHER_SOURCE = "embedded launcher (graphmem neo4j start)"
# The JVM's quick compiler only: half the CPU of a start (12 s instead of 22), for servers
# that live a minute (make demo's on a fresh state dir). The session's server runs with the
# full JIT: over the whole suite its optimised code took about 65 s of CPU off the server,
# most of it in Cypher's planner (docs/design-notes.md#test-suite-in-parallel)
QUICK_JIT = "-XX:TieredStopAtLevel=1"


# the test server's neo4j.conf settings (plans kept for the session: see the file)
TEST_CONF = ROOT / "tests" / "neo4j-test.conf"


def _launcher_env() -> dict[str, str]:
    return dict(os.environ, GRAPHMEM_STATE_DIR=str(LAUNCHER_STATE), GRAPHMEM_NEO4J_CONF=str(TEST_CONF))


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
    source = LAUNCHER_SOURCE
    started = True
    try:
        server, started = _start_embedded(command, env, source)
        lost = _lost(server, env)
        if lost:  # seen once in this project's fresh-clone runs: the server answered the launcher's
            # own query, then refused the suite's; start once more, and say so in the header
            subprocess.run(command + ["stop"], capture_output=True, env=env)
            server, started = _start_embedded(command, env, f"{source}; started twice, the first stopped answering: {lost}")
        yield server
    finally:
        # a server another session started (a make test-reliability run in the same checkout)
        # is that session's to stop: stopping it here failed the rest of that run
        if started:
            subprocess.run(command + ["stop"], capture_output=True, env=env)


def _start_embedded(command: list[str], env: dict[str, str], source: str) -> tuple[Server, bool]:
    """The server of the launcher's state dir, and whether this call started it (``start``
    says "already running, nothing started" when another session did)."""
    # Browser on: tests/launcher/test_browser.py runs make demo and Chromium against this server
    started = subprocess.run(command + ["start", "--ephemeral"], capture_output=True, text=True, env=env)
    if started.returncode != 0:
        raise RuntimeError(f"graphmem neo4j start failed:\n{started.stderr}")
    values = env_lines(started)
    server = Server(values["NEO4J_URI"], values["NEO4J_USER"], values["NEO4J_PASSWORD"], source)
    return server, "nothing started" not in started.stderr


def _lost(server: Server, env: dict[str, str], patience: float = 10.0) -> str:
    """"" if ``server`` answers a query within ``patience`` seconds; otherwise what is known of why not
    (the error, whether its process lives, the tail of its log), to report it."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import Neo4jError, ServiceUnavailable

    deadline = time.monotonic() + patience
    with GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        while True:
            try:
                driver.verify_connectivity()  # one try (execute_query would retry for 30 s)
                return ""
            except (ServiceUnavailable, Neo4jError, OSError) as exc:
                error = exc
                if time.monotonic() > deadline:
                    break
                time.sleep(0.5)
    folder = Path(env["GRAPHMEM_STATE_DIR"])
    pid_file, log = folder / "neo4j.pid", folder / "neo4j.log"
    pid = pid_file.read_text().split()[0] if pid_file.is_file() else "?"
    running = pid.isdigit() and alive(int(pid))
    tail = " | ".join(log.read_text(errors="replace").splitlines()[-5:]) if log.is_file() else "no log"
    return f"{type(error).__name__} at {server.uri}; pid {pid} {'alive' if running else 'gone'}; log: {tail}"
