"""Runs ``graphmem mcp --http`` as a user does (``python -m graphmem._cli mcp``, a real uvicorn
server on 127.0.0.1) and connects to it the way an MCP client does, with headers."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(env: dict[str, str], *args: str) -> Iterator[tuple[int, subprocess.Popen]]:
    """(port, process) of ``graphmem mcp --http`` with ``env`` (added to this environment, less
    any GRAPHMEM_MCP_* of its own) and ``args``; stopped afterwards. Its stderr is kept in
    ``process.stderr_text`` when it ends (with its stdout: uvicorn's access log)."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_MCP_")}
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would block the server
    process = subprocess.Popen([sys.executable, "-m", "graphmem._cli", "mcp", "--embedder", "hashing", "--no-setup",
                                "--http", "--port", str(port), *args], env=dict(environment, **env), cwd=REPO,
                               stdout=log, stderr=log, text=True)  # uvicorn's access log goes to stdout
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise AssertionError(f"graphmem mcp --http exited {process.returncode}: {log.read()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise AssertionError("the HTTP server did not come up within 60 s")
            time.sleep(0.2)
        yield port, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.seek(0)
        process.stderr_text = log.read()  # type: ignore[attr-defined]
        log.close()


def client(port: int, token: str | None, **headers: str) -> Client:
    """An MCP client of the server on ``port`` sending ``Authorization: Bearer <token>``."""
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=create_mcp_http_client(headers=headers))
    return Client(transport)
