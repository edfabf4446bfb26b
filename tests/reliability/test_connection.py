"""Neo4j down, or the wrong password: a clear error, fast, and never the password (issue 17.9, 23.8)."""

from __future__ import annotations

import socket
import time

import pytest

from graphmem import Memory, Neo4jUnavailableError, Settings, connect

pytestmark = [pytest.mark.integration, pytest.mark.reliability]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


def test_a_closed_port_fails_within_seconds_and_says_what_to_do():
    uri = f"bolt://127.0.0.1:{closed_port()}"
    with Memory(uri, ("neo4j", "s3cret-password-xyz")) as m:
        started = time.monotonic()
        with pytest.raises(Neo4jUnavailableError) as info:
            m.recall("anything", scope="s")
        elapsed = time.monotonic() - started
    assert elapsed < 10, f"took {elapsed:.1f} s (the driver alone retries for 30 s)"
    message = str(info.value)
    assert 'eval "$(graphmem neo4j start)"' in message
    assert "NEO4J_URI" in message and "NEO4J_PASSWORD" in message
    assert "docker compose -f docker/compose.yml up" in message
    assert "s3cret-password-xyz" not in message


def test_connection_timeout_is_configurable():
    started = time.monotonic()
    with pytest.raises(Neo4jUnavailableError):
        connect(Settings(uri=f"bolt://127.0.0.1:{closed_port()}", connection_timeout=0.3))
    assert time.monotonic() - started < 3


def test_a_wrong_password_names_the_user_never_the_password(neo4j):
    wrong = "not-the-password-4711"
    with pytest.raises(Neo4jUnavailableError) as info:
        connect(Settings(uri=neo4j.uri, user=neo4j.user, password=wrong))
    assert f"authentication failed for user {neo4j.user!r}" in str(info.value)
    assert wrong not in str(info.value)
    with Memory(neo4j.uri, (neo4j.user, wrong)) as m:
        with pytest.raises(Neo4jUnavailableError) as info:
            m.facts(scope="s")
    assert "authentication failed" in str(info.value) and wrong not in str(info.value)


def test_the_next_call_succeeds_on_a_live_server(memory):
    memory.remember("Ada lives in London", scope="s")
    assert [r.text for r in memory.facts(scope="s")] == ["Ada lives in London"]
