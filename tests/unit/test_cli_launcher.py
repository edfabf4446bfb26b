"""Unit tests for the ``graphmem neo4j`` CLI (graphmem/_cli.py) and launcher helpers
(graphmem/_launcher.py). Nothing here starts Java, Maven or Neo4j."""

from __future__ import annotations

import os
import socket

import pytest

from graphmem import LauncherError
from graphmem import _launcher
from graphmem._cli import main


@pytest.fixture
def state(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir()
    monkeypatch.setenv("GRAPHMEM_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def no_tools(tmp_path, monkeypatch):
    """PATH with nothing on it, no JAVA_HOME."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    return empty


def write_state(folder, pid):
    (folder / "neo4j.env").write_text(
        "NEO4J_URI=bolt://127.0.0.1:7999\nNEO4J_USER=neo4j\nNEO4J_PASSWORD=secret\nGRAPHMEM_NEO4J_VERSION=5.26.0\n"
    )
    (folder / "neo4j.pid").write_text(f"{pid}\n\n")


def test_cli_status_without_server_returns_1(state, capsys):
    assert main(["neo4j", "status"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no Neo4j" in captured.err


def test_cli_stop_without_server_returns_0(state, capsys):
    assert main(["neo4j", "stop"]) == 0
    assert "no Neo4j was running" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["neo4j", "restart"], ["neo4j"], [], ["mysql", "start"], ["neo4j", "start", "--port", "x"]])
def test_cli_argument_errors_exit(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_java_missing_raises(no_tools):
    with pytest.raises(LauncherError, match="java"):
        _launcher._java()


def test_java_from_java_home(no_tools, tmp_path, monkeypatch):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("")
    monkeypatch.setenv("JAVA_HOME", str(home))
    assert _launcher._java() == str(home / "bin" / "java")


def test_build_without_mvn_raises(no_tools, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("GRAPHMEM_CACHE", str(cache))
    messages = []
    with pytest.raises(LauncherError, match="mvn"):
        _launcher.build(progress=lambda *a, **k: messages.append(a))
    assert messages == []  # it failed before announcing a build
    assert list(cache.iterdir()) == []  # and left the cache untouched


def test_port_taken_for_a_bound_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert _launcher._port_taken(port) is True


def test_free_port_is_not_taken():
    port = _launcher._free_port()
    assert 0 < port < 65536
    assert _launcher._port_taken(port) is False


def test_status_none_without_state_files(state):
    assert _launcher.state_dir() == state.resolve()
    assert _launcher.status() is None


def test_status_none_when_pid_is_not_a_launcher(state, monkeypatch):
    write_state(state, os.getpid())
    assert _launcher.status() is None
    # the same files are read as a running server once the pid is a launcher
    monkeypatch.setattr(_launcher, "_is_launcher", lambda pid: pid == os.getpid())
    running = _launcher.status()
    assert running == _launcher.RunningNeo4j(
        uri="bolt://127.0.0.1:7999", user="neo4j", password="secret", pid=os.getpid(), version="5.26.0"
    )
    assert running.env_lines() == "NEO4J_URI=bolt://127.0.0.1:7999\nNEO4J_USER=neo4j\nNEO4J_PASSWORD=secret\n"


def test_cli_status_prints_env_lines_of_running_server(state, monkeypatch, capsys):
    write_state(state, os.getpid())
    monkeypatch.setattr(_launcher, "_is_launcher", lambda pid: True)
    assert main(["neo4j", "status"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["NEO4J_URI=bolt://127.0.0.1:7999", "NEO4J_USER=neo4j", "NEO4J_PASSWORD=secret"]


def test_stop_stale_state_cleans_up_without_signalling(state, tmp_path, monkeypatch):
    def must_not_signal(pid, *args):
        raise AssertionError(f"stop() tried to terminate pid {pid}")

    monkeypatch.setattr(_launcher, "_terminate", must_not_signal)
    data = tmp_path / "graphmem-neo4j-data"
    data.mkdir()
    (data / "store").write_text("x")
    write_state(state, os.getpid())
    (state / "neo4j.pid").write_text(f"{os.getpid()}\n{data}\n")
    assert _launcher.stop() is False  # our own pid is not a launcher: never signalled
    assert not data.exists()
    assert not (state / "neo4j.pid").exists() and not (state / "neo4j.env").exists()


def test_a_built_launcher_is_reused_without_maven(no_tools, tmp_path, monkeypatch):
    """A second start on the same machine needs no Maven and downloads nothing."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRAPHMEM_CACHE", str(cache))
    project = _launcher._project_source()
    built = cache / f"embedded-{_launcher._fingerprint(project)}" / "target"
    (built / "lib").mkdir(parents=True)
    (built / "graphmem-embedded-neo4j-1.0.0.jar").write_bytes(b"jar")
    messages = []
    assert _launcher.build(progress=lambda *a, **k: messages.append(a)) == built.parent
    assert messages == []


def test_changing_the_launcher_source_changes_the_cache_key(tmp_path):
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "pom.xml").write_text("<project/>")
    (project / "src" / "A.java").write_text("class A {}")
    before = _launcher._fingerprint(project)
    (project / "src" / "A.java").write_text("class A { int x; }")
    assert _launcher._fingerprint(project) != before
