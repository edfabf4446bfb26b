"""Issue 28.5: `graphmem neo4j start` and `status` printed ``NEO4J_PASSWORD=...`` on standard
output (it is meant for ``eval "$(graphmem neo4j start)"``, so it landed in every captured log).
Now they print lines that source the private env file (mode 600) and export the settings: the
password appears in neither output stream, yet a real shell that evals the lines has it, and so
do the Makefile's consumers of those lines. ``--show-password`` gives the old lines.

Runs against the session's embedded server when the launcher started it (its state dir, the
same ``start``/``status`` a user runs; ``start`` finds it running and starts nothing), else
against an ephemeral one of its own. Only 127.0.0.1 is involved."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import uuid

import pytest

from graphmem._server.launcher import RunningNeo4j
from graphmem._server.process import env_text, read_env_file, write_private
from tests.launcher.cli import eval_in_shell, neo4j_cli
from tests.neo4j_server import LAUNCHER_SOURCE, LAUNCHER_STATE, ROOT

# make test-reliability: shells that eval the launcher's output
pytestmark = [pytest.mark.long, pytest.mark.integration, pytest.mark.reliability]

SETTINGS = ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_BROWSER_URL")


@pytest.fixture(scope="module")
def launcher_state(neo4j, tmp_path_factory):
    """The state dir of a launcher-started Neo4j that runs now."""
    if neo4j.source.startswith(LAUNCHER_SOURCE):
        yield LAUNCHER_STATE
        return
    state = tmp_path_factory.mktemp("secrets") / "state"
    neo4j_cli(state, "start", "--ephemeral", "--no-browser")
    try:
        yield state
    finally:
        neo4j_cli(state, "stop", check=False)


def stored(state) -> dict[str, str]:
    return {k: v for k, v in read_env_file(state / "neo4j.env").items() if k in SETTINGS}


def test_the_env_file_is_private_and_holds_the_settings(launcher_state):
    env_file = launcher_state / "neo4j.env"
    assert env_file.stat().st_mode & 0o777 == 0o600
    settings = stored(launcher_state)
    assert settings["NEO4J_URI"].startswith("bolt://127.0.0.1:") and len(settings["NEO4J_PASSWORD"]) >= 16


@pytest.mark.parametrize("command", ["start", "status"])
def test_start_and_status_never_print_the_password_yet_eval_exports_it(launcher_state, command):
    settings = stored(launcher_state)
    done = neo4j_cli(launcher_state, command)
    assert settings["NEO4J_PASSWORD"] not in done.stdout
    assert settings["NEO4J_PASSWORD"] not in done.stderr
    assert "NEO4J_PASSWORD=" not in done.stdout
    assert eval_in_shell(done.stdout, "bash") == settings  # exported, not just set
    assert eval_in_shell(done.stdout, "sh") == settings  # make runs recipes with /bin/sh


def test_a_shell_that_evals_start_can_use_graphmem(launcher_state):
    """What the README tells a user to do, in a real ``bash -c``: eval, then a program that
    reads NEO4J_* from the environment connects with them."""
    program = "from graphmem import Memory; m = Memory(tenant='secrets-check'); m.verify_connectivity(); print('connected')"
    script = (f'eval "$({shlex.quote(sys.executable)} -m graphmem._cli neo4j start)" && '
              f'exec {shlex.quote(sys.executable)} -c {shlex.quote(program)}')
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=clean_env(launcher_state))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "connected"
    assert stored(launcher_state)["NEO4J_PASSWORD"] not in done.stdout + done.stderr


def test_the_makefile_lines_that_eval_start_still_export_the_settings(launcher_state):
    """`make demo` and `make bench` eval the printed lines in /bin/sh and export the names."""
    makefile = (ROOT / "Makefile").read_text()
    lines = re.findall(r'(eval "\$\$\(\$\(GRAPHMEM\) neo4j start[^"]*\)" && export [A-Z0-9_ ]+?) \|\| exit 1', makefile)
    assert len(lines) == 2, lines  # demo, bench
    graphmem = f"{shlex.quote(sys.executable)} -m graphmem._cli"
    settings = stored(launcher_state)
    for line in lines:
        command = line.replace("$(GRAPHMEM)", graphmem).replace("$$", "$")
        exported = set(command.split("&& export ", 1)[1].split())
        done = subprocess.run(["sh", "-c", f"{command} && env"], capture_output=True, text=True, timeout=120,
                              cwd=ROOT, env=clean_env(launcher_state))
        assert done.returncode == 0, done.stderr
        got = dict(row.split("=", 1) for row in done.stdout.splitlines() if row.startswith("NEO4J_"))
        # every name the Makefile exports carries the stored setting (start's own lines may export
        # more, NEO4J_BROWSER_URL when Browser is on), and nothing exported differs from the file
        assert {k: got.get(k) for k in exported} == {k: settings[k] for k in exported}
        assert got.items() <= settings.items()
        assert settings["NEO4J_PASSWORD"] not in done.stderr


def test_show_password_prints_the_old_lines(launcher_state):
    settings = stored(launcher_state)
    for command in ("start", "status"):
        done = neo4j_cli(launcher_state, command, "--show-password")
        assert f"NEO4J_PASSWORD={settings['NEO4J_PASSWORD']}" in done.stdout.splitlines()
        assert eval_in_shell(done.stdout + "export " + " ".join(settings) + "\n") == settings


def test_a_password_with_shell_syntax_is_sourced_as_text_and_runs_nothing(tmp_path):
    """The env file is sourced now, so a chosen password (GRAPHMEM_NEO4J_PASSWORD) must be data."""
    marker = tmp_path / f"ran-{uuid.uuid4().hex[:6]}"
    password = f"it's $(touch {marker}) `touch {marker}` \"q\" ;& | \\n {{x}}"
    running = RunningNeo4j(uri="bolt://127.0.0.1:7999", user="neo4j", password=password, pid=1, version="5",
                           browser_url="http://127.0.0.1:7475/browser/")
    folder = tmp_path / "state dir with spaces"
    folder.mkdir()
    env_file = folder / "neo4j.env"
    write_private(env_file, running.env_lines() + env_text({"GRAPHMEM_NEO4J_DATA": str(folder / "data")}))
    assert eval_in_shell(running.eval_lines(env_file)) == running.settings()
    assert eval_in_shell(running.eval_lines(env_file), "sh") == running.settings()
    assert not marker.exists()
    assert password not in running.eval_lines(env_file)
    assert read_env_file(env_file)["NEO4J_PASSWORD"] == password  # and graphmem reads it back the same
    assert read_env_file(env_file)["GRAPHMEM_NEO4J_DATA"] == str(folder / "data")


def clean_env(state) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["GRAPHMEM_STATE_DIR"] = str(state)
    return env
