"""tools/chromium.sh, the browser check make test runs first (issue 43 item 4): a user who is
not root and has no Chromium is told exactly what to install, and make test goes on (exit
0); as root it installs (not run here: it would change the machine); found, it is silent.
Run as a real shell script, with a stand-in ``id`` first on the PATH for the user's id."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "chromium.sh"


def run(tmp_path: Path, uid: int, **names: str) -> subprocess.CompletedProcess:
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (fake / "id").chmod(0o755)
    (fake / "apt-get").write_text("#!/bin/sh\necho apt-get \"$@\" >> \"$APT_LOG\"\n")  # never the real one
    (fake / "apt-get").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", APT_LOG=str(tmp_path / "apt.log"), **names)
    return subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=30)


def test_without_root_and_without_chromium_it_says_what_to_install_and_lets_the_suite_run(tmp_path):
    done = run(tmp_path, 1000, GRAPHMEM_CHROMIUM="no-such-chromium-binary")
    assert done.returncode == 0
    assert "sudo apt-get install -y chromium chromium-driver" in done.stderr
    assert "will be skipped; every other test runs" in done.stderr
    assert not (tmp_path / "apt.log").exists()


def test_as_root_without_chromium_it_installs_debian_s_packages(tmp_path):
    done = run(tmp_path, 0, GRAPHMEM_CHROMEDRIVER="no-such-driver-binary")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "apt.log").read_text().splitlines() == ["apt-get update",
                                                               "apt-get install -y chromium chromium-driver"]


def test_with_both_binaries_found_it_does_nothing(tmp_path):
    done = run(tmp_path, 1000, GRAPHMEM_CHROMIUM="sh", GRAPHMEM_CHROMEDRIVER="sh")
    assert done.returncode == 0 and done.stderr == "" and not (tmp_path / "apt.log").exists()
