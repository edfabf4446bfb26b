"""A test's sockets held to the Neo4j port on the loopback address: any other address a
connect or a name lookup asks for is refused and kept (``tried``), so a test can say that
nothing (graphmem, a framework it runs in) reached for the network."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit

import pytest

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def guard_sockets(monkeypatch: pytest.MonkeyPatch, neo4j_uri: str) -> list[Any]:
    """Refuse every connect but to the Neo4j of ``neo4j_uri``, and every lookup of another
    name than the loopback's; returns the list the refused addresses and names go to."""
    port = urlsplit(neo4j_uri).port
    allowed = {(host, port) for host in LOOPBACK}
    tried: list[Any] = []
    connect, connect_ex, getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def guarded(address: Any) -> None:
        if isinstance(address, tuple) and tuple(address[:2]) not in allowed:
            tried.append(address)
            raise OSError(f"blocked by the test: {address}")

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        guarded(address)
        return connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
        guarded(address)
        return connect_ex(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (*LOOPBACK, None):
            tried.append(host)
            raise socket.gaierror(f"blocked by the test: {host}")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    return tried
