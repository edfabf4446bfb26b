"""Unit tests for the ``graphmem neo4j`` CLI (graphmem/_cli/main.py) and launcher helpers
(graphmem/_server/launcher.py). Nothing here starts Java, Maven or Neo4j."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from graphmem import LauncherError
from graphmem._cli.main import main
from graphmem._server import launcher, process
from graphmem._server.java import Choice, Jdk


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


def fake_choice(tmp_path, neo4j="2026.08.1"):
    return Choice(neo4j, Jdk(tmp_path / "jdk", "25.0.1", "JAVA_HOME"), "test")


def test_build_without_java_raises(no_tools, tmp_path, monkeypatch):
    monkeypatch.setattr(launcher, "find_jdks", lambda: [])
    with pytest.raises(LauncherError, match="no Java 17 or newer"):
        launcher.build(progress=print)


def test_build_without_mvn_raises(no_tools, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("GRAPHMEM_CACHE", str(cache))
    messages = []
    with pytest.raises(LauncherError, match="mvn"):
        launcher.build(progress=lambda *a, **k: messages.append(a), choice=fake_choice(tmp_path))
    assert messages == []  # it failed before announcing a build
    assert list(cache.iterdir()) == []  # and left the cache untouched


def test_port_taken_for_a_bound_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert launcher._port_taken(port) is True


def test_free_port_is_not_taken():
    port = launcher._free_port()
    assert 0 < port < 65536
    assert launcher._port_taken(port) is False


def test_status_none_without_state_files(state):
    assert launcher.state_dir() == state.resolve()
    assert launcher.status() is None


def test_status_none_when_pid_is_not_a_launcher(state, monkeypatch):
    write_state(state, os.getpid())
    assert launcher.status() is None
    # the same files are read as a running server once the pid is a launcher
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: pid == os.getpid())
    running = launcher.status()
    assert running == launcher.RunningNeo4j(
        uri="bolt://127.0.0.1:7999", user="neo4j", password="secret", pid=os.getpid(), version="5.26.0"
    )
    assert running.env_lines() == "NEO4J_URI=bolt://127.0.0.1:7999\nNEO4J_USER=neo4j\nNEO4J_PASSWORD=secret\n"


def test_cli_status_prints_lines_that_source_the_env_file(state, monkeypatch, capsys):
    write_state(state, os.getpid())
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: True)
    assert main(["neo4j", "status"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f". {state.resolve() / 'neo4j.env'}", "export NEO4J_URI NEO4J_USER NEO4J_PASSWORD"]
    assert "secret" not in captured.out + captured.err
    assert main(["neo4j", "status", "--show-password"]) == 0  # the old output, for those who ask
    out = capsys.readouterr().out
    assert out.splitlines() == ["NEO4J_URI=bolt://127.0.0.1:7999", "NEO4J_USER=neo4j", "NEO4J_PASSWORD=secret"]


def test_stop_stale_state_cleans_up_without_signalling(state, tmp_path, monkeypatch):
    def must_not_signal(pid, *args):
        raise AssertionError(f"stop() tried to terminate pid {pid}")

    monkeypatch.setattr(launcher, "terminate", must_not_signal)
    data = tmp_path / "graphmem-neo4j-data"
    data.mkdir()
    (data / "store").write_text("x")
    write_state(state, os.getpid())
    (state / "neo4j.pid").write_text(f"{os.getpid()}\n{data}\n")
    assert launcher.stop() is False  # our own pid is not a launcher: never signalled
    assert not data.exists()
    assert not (state / "neo4j.pid").exists() and not (state / "neo4j.env").exists()


def test_a_built_launcher_is_reused_without_maven(no_tools, tmp_path, monkeypatch):
    """A second start on the same machine needs no Maven and downloads nothing."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRAPHMEM_CACHE", str(cache))
    project = launcher._project_source()
    for version in ("2026.08.1", "5.26.19"):  # one build per Neo4j version, side by side
        built = cache / f"embedded-{version}-{launcher._fingerprint(project)}" / "target"
        (built / "lib").mkdir(parents=True)
        (built / "graphmem-embedded-neo4j-1.0.0.jar").write_bytes(b"jar")
    messages = []
    for version in ("2026.08.1", "5.26.19"):
        built_dir = launcher.build(progress=lambda *a, **k: messages.append(a), choice=fake_choice(tmp_path, version))
        assert built_dir == cache / f"embedded-{version}-{launcher._fingerprint(project)}"
    assert messages == []


def test_changing_the_launcher_source_changes_the_cache_key(tmp_path):
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "pom.xml").write_text("<project/>")
    (project / "src" / "A.java").write_text("class A {}")
    before = launcher._fingerprint(project)
    (project / "src" / "A.java").write_text("class A { int x; }")
    assert launcher._fingerprint(project) != before


# --- persistence: data folder, password kept with the data, stop keeps, reset deletes ---


def test_env_lines_add_the_browser_url_when_browser_runs():
    running = launcher.RunningNeo4j(uri="bolt://127.0.0.1:1", user="neo4j", password="pw", pid=1, version="5",
                                     browser_url="http://127.0.0.1:2/browser/")
    assert running.env_lines().splitlines()[-1] == "NEO4J_BROWSER_URL=http://127.0.0.1:2/browser/"


def test_default_data_dir_is_under_the_state_dir(state):
    assert launcher.default_data_dir() == state.resolve() / "neo4j-data"


def test_a_new_data_folder_gets_a_private_password_file(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHMEM_NEO4J_PASSWORD", raising=False)
    data = tmp_path / "data"
    password = launcher._data_password(data)
    stored = data / "graphmem-password"
    assert stored.read_text().strip() == password and len(password) >= 16
    assert stored.stat().st_mode & 0o777 == 0o600
    assert launcher._data_password(data) == password  # the next start reads the same one


def test_a_new_data_folder_takes_the_password_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "chosen-password-1")
    assert launcher._data_password(tmp_path / "data") == "chosen-password-1"


def test_a_different_environment_password_for_existing_data_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHMEM_NEO4J_PASSWORD", raising=False)
    data = tmp_path / "data"
    first = launcher._data_password(data)
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "another-password")
    with pytest.raises(LauncherError, match="first start"):
        launcher._data_password(data)
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", first)
    assert launcher._data_password(data) == first


def test_a_store_without_password_file_is_refused_unless_the_password_is_given(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHMEM_NEO4J_PASSWORD", raising=False)
    data = tmp_path / "old"
    (data / "data" / "databases").mkdir(parents=True)
    with pytest.raises(LauncherError, match="GRAPHMEM_NEO4J_PASSWORD"):
        launcher._data_password(data)
    assert not (data / "graphmem-password").exists()
    monkeypatch.setenv("GRAPHMEM_NEO4J_PASSWORD", "its-old-password")
    assert launcher._data_password(data) == "its-old-password"


def running_state(folder, data, *, ephemeral=False, browser=None):
    lines = "NEO4J_URI=bolt://127.0.0.1:7999\nNEO4J_USER=neo4j\nNEO4J_PASSWORD=secret\n"
    if browser:
        lines += f"NEO4J_BROWSER_URL={browser}\n"
    lines += f"GRAPHMEM_NEO4J_VERSION=5.26.19\nGRAPHMEM_NEO4J_DATA={data}\nGRAPHMEM_NEO4J_EPHEMERAL={int(ephemeral)}\n"
    (folder / "neo4j.env").write_text(lines)
    (folder / "neo4j.pid").write_text(f"{os.getpid()}\n{data if ephemeral else ''}\n")


def test_stop_keeps_persistent_data_and_its_connection_lines(state, monkeypatch):
    terminated = []
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: pid == os.getpid())
    monkeypatch.setattr(launcher, "terminate", terminated.append)
    data = state / "neo4j-data"
    data.mkdir()
    (data / "graphmem-password").write_text("secret\n")
    running_state(state, data)
    assert launcher.stop() is True
    assert terminated == [os.getpid()]
    assert (data / "graphmem-password").is_file()
    assert "NEO4J_PASSWORD=secret" in (state / "neo4j.env").read_text()
    assert not (state / "neo4j.pid").exists()
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: True)
    assert launcher.status() is None  # no pid file: nothing runs, whatever neo4j.env says


def test_stop_removes_an_ephemeral_folder_and_its_lines(state, tmp_path, monkeypatch):
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: pid == os.getpid())
    monkeypatch.setattr(launcher, "terminate", lambda pid: None)
    data = tmp_path / "graphmem-neo4j-tmp"
    data.mkdir()
    running_state(state, data, ephemeral=True)
    assert launcher.status().ephemeral is True
    assert launcher.stop() is True
    assert not data.exists() and not (state / "neo4j.env").exists()


def test_reset_refuses_while_running_and_deletes_after_stop(state, monkeypatch, capsys):
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: pid == os.getpid())
    monkeypatch.setattr(launcher, "terminate", lambda pid: None)
    data = state / "neo4j-data"
    (data / "data").mkdir(parents=True)
    (data / "graphmem-password").write_text("secret\n")
    running_state(state, data)
    assert main(["neo4j", "reset"]) == 2
    assert "stop it first" in capsys.readouterr().err
    assert data.is_dir()
    assert main(["neo4j", "stop"]) == 0
    assert f"its data stays in {data}" in capsys.readouterr().err
    assert main(["neo4j", "reset"]) == 0
    assert f"deleted {data}" in capsys.readouterr().err
    assert not data.exists() and not (state / "neo4j.env").exists()
    assert main(["neo4j", "reset"]) == 0
    assert "no data folder" in capsys.readouterr().err


def test_reset_refuses_a_folder_that_is_not_a_graphmem_data_folder(state, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("x")
    with pytest.raises(LauncherError, match="not a graphmem Neo4j data folder"):
        launcher.reset(precious)
    assert (precious / "thesis.tex").is_file()


def test_status_names_the_state_dir_from_the_environment(state, capsys):
    assert main(["neo4j", "status"]) == 1
    err = capsys.readouterr().err
    assert str(state.resolve()) in err and "GRAPHMEM_STATE_DIR" in err
    assert "from this folder" not in err


def test_status_without_state_dir_variable_says_it_is_this_folders(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GRAPHMEM_STATE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["neo4j", "status"]) == 1
    err = capsys.readouterr().err
    assert str(tmp_path.resolve() / ".graphmem") in err and "default" in err


def test_cli_status_describes_data_and_browser(state, monkeypatch, capsys):
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: True)
    running_state(state, state / "neo4j-data", browser="http://127.0.0.1:7475/browser/")
    assert main(["neo4j", "status"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "export NEO4J_URI NEO4J_USER NEO4J_PASSWORD NEO4J_BROWSER_URL"
    assert f"data:    {state / 'neo4j-data'} (kept" in captured.err
    assert "browser: http://127.0.0.1:7475/browser/" in captured.err
    assert "secret" not in captured.err


def test_data_and_ephemeral_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as info:
        main(["neo4j", "start", "--data", "x", "--ephemeral"])
    assert info.value.code == 2


@pytest.fixture
def fake_launch(state, monkeypatch):
    """start() up to the Java process: what it would launch, without Java."""
    calls = []
    monkeypatch.setattr(launcher, "build", lambda progress, choice: state / f"build-{choice.neo4j}")
    monkeypatch.setattr(launcher, "find_jdks", lambda: [Jdk(state / "jdk25", "25.0.1", "/usr/lib/jvm"),
                                                          Jdk(state / "jdk17", "17.0.15", "PATH")])
    monkeypatch.delenv("GRAPHMEM_NEO4J_VERSION", raising=False)
    monkeypatch.delenv("GRAPHMEM_NEO4J_PASSWORD", raising=False)
    monkeypatch.delenv("GRAPHMEM_NEO4J_PORT", raising=False)
    monkeypatch.delenv("GRAPHMEM_NEO4J_HTTP_PORT", raising=False)

    def launch(java, build_dir, port, http, folder, data_dir, ephemeral, password, heap, log, timeout, progress):
        calls.append(dict(port=port, http=http, data=data_dir, ephemeral=ephemeral, password=password, java=java,
                          build=build_dir))
        return launcher.RunningNeo4j(uri=f"bolt://127.0.0.1:{port}", user="neo4j", password=password, pid=1,
                                      version=build_dir.name.removeprefix("build-"))

    monkeypatch.setattr(launcher, "_launch", launch)
    return calls


def test_start_defaults_to_the_state_dirs_data_folder_with_browser(state, fake_launch):
    said = []
    assert launcher.start(progress=lambda *a, **k: said.append(a[0])).version == "2026.08.1"
    assert said == [f"graphmem: neo4j 2026.08.1 (Java 25.0.1 at {state / 'jdk25'})"]
    call = fake_launch[0]
    assert call["java"] == str(state / "jdk25" / "bin" / "java")
    # the data folder remembers the version that served it
    assert (call["data"] / "graphmem-neo4j-version").read_text() == "2026.08.1\n"
    assert call["data"] == state.resolve() / "neo4j-data" and call["ephemeral"] is False
    assert call["http"] > 0 and call["http"] != call["port"]
    assert (call["data"] / "graphmem-password").read_text().strip() == call["password"]


def test_start_ephemeral_without_browser(state, fake_launch):
    launcher.start(ephemeral=True, browser=False)
    call = fake_launch[0]
    assert call["ephemeral"] is True and call["http"] == 0
    assert call["data"].name.startswith("graphmem-neo4j-") and not (state / "neo4j-data").exists()
    call["data"].rmdir()


def test_start_reuses_the_last_ports_when_free(state, fake_launch):
    bolt, http = launcher._free_port(), launcher._free_port()
    (state / "neo4j.env").write_text(f"NEO4J_URI=bolt://127.0.0.1:{bolt}\nNEO4J_BROWSER_URL=http://127.0.0.1:{http}/browser/\n")
    launcher.start()
    assert (fake_launch[0]["port"], fake_launch[0]["http"]) == (bolt, http)


def test_start_picks_another_port_when_the_last_one_is_taken(state, fake_launch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        taken = s.getsockname()[1]
        (state / "neo4j.env").write_text(f"NEO4J_URI=bolt://127.0.0.1:{taken}\n")
        launcher.start(browser=False)
        assert fake_launch[0]["port"] != taken


def test_start_refuses_an_asked_port_in_use(state, fake_launch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        with pytest.raises(LauncherError, match="--http-port"):
            launcher.start(http_port=s.getsockname()[1])
    assert fake_launch == []


def test_a_port_left_in_time_wait_by_a_killed_server_is_free_again():
    """A server killed with -9 leaves its side of each connection in TIME_WAIT on its port;
    Neo4j can listen there again (SO_REUSEADDR), so the restart keeps the port its clients
    know (issue 23.9)."""
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Neo4j's (Netty's) server socket
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the server closes first: its side goes to TIME_WAIT
        client.recv(1)
        client.close()
    assert launcher._port_taken(port) is False
    with socket.socket() as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))  # what the probe promised
        again.listen(1)
        assert launcher._port_taken(port) is True  # a listener still counts as taken


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_start_after_a_kill_removes_the_dead_ephemeral_folder(state, tmp_path, fake_launch):
    """kill -9 of an ephemeral Neo4j leaves its temporary folder; the next start removes it
    (issue 23.9: "the old folder stays on disk")."""
    old = tmp_path / "graphmem-neo4j-old"
    (old / "data").mkdir(parents=True)
    running_state(state, old, ephemeral=True)
    (state / "neo4j.pid").write_text(f"{dead_pid()}\n{old}\n")
    launcher.start(ephemeral=True, browser=False)
    assert not old.exists()
    assert fake_launch[0]["data"] != old
    fake_launch[0]["data"].rmdir()


def test_start_after_a_kill_keeps_the_persistent_folder(state, fake_launch):
    data = state / "neo4j-data"
    data.mkdir()
    (data / "graphmem-password").write_text("secret\n")
    running_state(state, data)
    (state / "neo4j.pid").write_text(f"{dead_pid()}\n\n")
    launcher.start(browser=False)
    assert fake_launch[0]["data"] == data.resolve() and fake_launch[0]["password"] == "secret"
    assert (data / "graphmem-password").is_file() and not (state / "neo4j.pid").exists()


def test_a_launcher_of_another_data_folder_is_not_ours(tmp_path):
    """After a kill -9 the recorded pid may be reused by another state dir's Neo4j."""
    fake = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", process.MAIN_CLASS,
                             "--data", str(tmp_path / "theirs")])
    try:
        deadline = time.monotonic() + 10
        while not process.is_launcher(fake.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.is_launcher(fake.pid)
        assert process.is_launcher(fake.pid, str(tmp_path / "theirs"))
        assert not process.is_launcher(fake.pid, str(tmp_path / "ours"))
    finally:
        fake.kill()
        fake.wait()


def test_status_after_a_kill_says_the_last_one_ended_without_stop(state, capsys):
    write_state(state, dead_pid())
    assert main(["neo4j", "status"]) == 1
    err = capsys.readouterr().err
    assert "no Neo4j" in err and "ended without `graphmem neo4j stop`" in err and "graphmem neo4j start" in err
    (state / "neo4j.pid").unlink()
    assert main(["neo4j", "status"]) == 1
    assert "ended without" not in capsys.readouterr().err  # a clean stop leaves no pid file


def test_a_data_folder_stays_on_the_version_that_served_it_unless_forced(state, fake_launch, monkeypatch):
    data = state / "neo4j-data"
    data.mkdir()
    (data / "graphmem-password").write_text("secret\n")
    (data / "graphmem-neo4j-version").write_text("5.26.19\n")
    said = []
    assert launcher.start(progress=lambda *a, **k: said.append(a[0])).version == "5.26.19"
    assert fake_launch[-1]["java"] == str(state / "jdk17" / "bin" / "java")
    assert "the version this data folder was last served by" in said[0]
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "2026.08.1")  # forced: the folder is upgraded
    assert launcher.start().version == "2026.08.1"
    assert (data / "graphmem-neo4j-version").read_text() == "2026.08.1\n"
    with pytest.raises(LauncherError, match="cannot open a newer store"):
        launcher.start(neo4j_version="5.26.19")


def test_a_forced_version_other_than_the_running_one_is_refused(state, monkeypatch, capsys):
    write_state(state, os.getpid())
    monkeypatch.setattr(launcher, "is_launcher", lambda pid, data=None: True)
    assert main(["neo4j", "start", "--neo4j-version", "2026.08.1"]) == 2
    assert "Neo4j 5.26.0 is already running" in capsys.readouterr().err
    assert main(["neo4j", "start", "--neo4j-version", "5.26.0"]) == 0
    assert "already running, nothing started" in capsys.readouterr().err
