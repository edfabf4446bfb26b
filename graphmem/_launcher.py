"""The no-Docker Neo4j: builds and runs the embedded launcher in docker/embedded.

``graphmem neo4j start|status|stop`` is a thin layer over ``start()``, ``status()`` and
``stop()`` here. The launcher's jars are fetched once with Maven and cached under
``$GRAPHMEM_CACHE`` (default ``~/.cache/graphmem``); the running server's state (pid,
log, connection lines) lives in the state folder (default ``./.graphmem``).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ._errors import LauncherError

_MAIN_CLASS = "graphmem.embedded.Launcher"
_READY = "GRAPHMEM_BOLT_READY"


@dataclass(frozen=True)
class RunningNeo4j:
    """A launcher-started Neo4j: its connection settings and process id."""

    uri: str
    user: str
    password: str
    pid: int
    version: str

    def env_lines(self) -> str:
        """``NAME=value`` lines a POSIX shell can ``eval``."""
        return (
            f"NEO4J_URI={self.uri}\nNEO4J_USER={self.user}\nNEO4J_PASSWORD={self.password}\n"
        )


def state_dir() -> Path:
    return Path(os.environ.get("GRAPHMEM_STATE_DIR", ".graphmem")).resolve()


def _cache_dir() -> Path:
    default = Path.home() / ".cache" / "graphmem"
    return Path(os.environ.get("GRAPHMEM_CACHE", str(default))).resolve()


def _project_source() -> Path:
    """The launcher's Maven project: the source tree's docker/embedded, or the wheel's copy."""
    tree = Path(__file__).resolve().parent.parent / "docker" / "embedded"
    if (tree / "pom.xml").is_file():
        return tree
    packaged = Path(str(resources.files("graphmem").joinpath("embedded")))
    if (packaged / "pom.xml").is_file():
        return packaged
    raise LauncherError("the embedded Neo4j launcher project (pom.xml) is missing from this install")


def _fingerprint(project: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([project / "pom.xml", *(project / "src").rglob("*.java")]):
        digest.update(path.relative_to(project).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise LauncherError("java was not found: install a JDK 17 (e.g. apt-get install openjdk-17-jdk) or set JAVA_HOME")
    return found


def build(progress=print) -> Path:
    """Build the launcher once (Maven fetches Neo4j's jars); return the build folder."""
    project = _project_source()
    build_dir = _cache_dir() / f"embedded-{_fingerprint(project)}"
    jar = build_dir / "target" / "graphmem-embedded-neo4j-1.0.0.jar"
    if jar.is_file() and (build_dir / "target" / "lib").is_dir():
        return build_dir
    mvn = shutil.which("mvn")
    if not mvn:
        raise LauncherError("mvn (Apache Maven) was not found: install it (e.g. apt-get install maven) to fetch Neo4j's jars")
    progress(f"graphmem: building the embedded Neo4j launcher in {build_dir} (first time: Maven fetches Neo4j's jars)", file=sys.stderr)
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    shutil.copy2(project / "pom.xml", build_dir / "pom.xml")
    shutil.copytree(project / "src", build_dir / "src")
    done = subprocess.run(
        [mvn, "-B", "-q", "package", "-DskipTests"], cwd=build_dir, capture_output=True, text=True
    )
    if done.returncode != 0 or not jar.is_file():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        shutil.rmtree(build_dir, ignore_errors=True)
        raise LauncherError(f"Maven could not build the Neo4j launcher (exit {done.returncode}):\n{tail}")
    return build_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_taken(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def _recorded_pid(pid_file: Path) -> int | None:
    """The pid in a state folder's neo4j.pid, or None if the file is empty or corrupt."""
    try:
        return int(pid_file.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def _is_launcher(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return _MAIN_CLASS.encode() in cmdline


def status() -> RunningNeo4j | None:
    """The Neo4j this state folder started, if it is still running."""
    folder = state_dir()
    env_file, pid_file = folder / "neo4j.env", folder / "neo4j.pid"
    if not (env_file.is_file() and pid_file.is_file()):
        return None
    pid = _recorded_pid(pid_file)
    if pid is None or not _is_launcher(pid):
        return None
    env = _read_env_file(env_file)
    if not {"NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD"} <= set(env):
        return None
    return RunningNeo4j(
        uri=env["NEO4J_URI"], user=env["NEO4J_USER"], password=env["NEO4J_PASSWORD"],
        pid=pid, version=env.get("GRAPHMEM_NEO4J_VERSION", "?"),
    )


def _log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(*, port: int | None = None, data: Path | None = None, timeout: float | None = None,
          progress=print) -> RunningNeo4j:
    """Start Neo4j in the background (or return the one already running) and wait for Bolt."""
    running = status()
    if running:
        return running
    build_dir = build(progress)
    java = _java()
    port = port or int(os.environ.get("GRAPHMEM_NEO4J_PORT", "0")) or _free_port()
    if _port_taken(port):
        raise LauncherError(f"port {port} on 127.0.0.1 is already in use: pick another with --port or GRAPHMEM_NEO4J_PORT")
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    temporary = data is None
    data_dir = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-")) if temporary else Path(data).resolve()
    password = os.environ.get("GRAPHMEM_NEO4J_PASSWORD") or secrets.token_urlsafe(18)
    log = folder / "neo4j.log"
    heap = os.environ.get("GRAPHMEM_NEO4J_HEAP", "3g")
    try:
        return _launch(java, build_dir, port, folder, data_dir, temporary, password, heap, log, timeout)
    except BaseException:
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise


def _launch(java: str, build_dir: Path, port: int, folder: Path, data_dir: Path, temporary: bool,
            password: str, heap: str, log: Path, timeout: float | None) -> RunningNeo4j:
    env = dict(os.environ, GRAPHMEM_NEO4J_PASSWORD=password)
    classpath = os.pathsep.join([str(build_dir / "target" / "graphmem-embedded-neo4j-1.0.0.jar"), str(build_dir / "target" / "lib" / "*")])
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [java, f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseG1GC", "-cp", classpath, _MAIN_CLASS,
             "--data", str(data_dir), "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + (timeout or float(os.environ.get("GRAPHMEM_NEO4J_START_TIMEOUT", "180")))
    version = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LauncherError(f"Neo4j exited during start (code {proc.returncode}); log tail:\n{_log_tail(log)}")
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(_READY):
                version = line.rsplit("version=", 1)[-1]
        if version:
            break
        time.sleep(0.2)
    if not version:
        _terminate(proc.pid)
        raise LauncherError(f"Neo4j did not come up within the timeout; log tail:\n{_log_tail(log)}")
    found = RunningNeo4j(uri=f"bolt://127.0.0.1:{port}", user="neo4j", password=password, pid=proc.pid, version=version)
    _wait_for_query(found, deadline, log)
    env_file = folder / "neo4j.env"
    env_file.touch(mode=0o600)
    env_file.write_text(found.env_lines() + f"GRAPHMEM_NEO4J_VERSION={version}\n")
    (folder / "neo4j.pid").write_text(f"{proc.pid}\n{data_dir if temporary else ''}\n")
    return found


def _wait_for_query(found: RunningNeo4j, deadline: float, log: Path) -> None:
    from neo4j import GraphDatabase
    from neo4j.exceptions import Neo4jError, ServiceUnavailable

    from . import _templates

    ping = _templates.get("ping").text
    with GraphDatabase.driver(found.uri, auth=(found.user, found.password)) as driver:
        while True:
            try:
                driver.execute_query(ping)
                return
            except (ServiceUnavailable, Neo4jError, OSError):
                if time.monotonic() > deadline:
                    _terminate(found.pid)
                    raise LauncherError(f"Neo4j started but did not answer RETURN 1; log tail:\n{_log_tail(log)}") from None
                time.sleep(0.3)


def _terminate(pid: int, grace: float = 60.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _alive(pid):
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def stop() -> bool:
    """Stop the Neo4j this state folder started (by its recorded pid); False if none ran."""
    folder = state_dir()
    pid_file = folder / "neo4j.pid"
    if not pid_file.is_file():
        return False
    lines = pid_file.read_text().splitlines()
    pid, temp_data = _recorded_pid(pid_file), (lines[1] if len(lines) > 1 else "")
    stopped = False
    if pid is not None and _is_launcher(pid):
        _terminate(pid)
        stopped = True
    if temp_data:
        shutil.rmtree(temp_data, ignore_errors=True)
    for name in ("neo4j.pid", "neo4j.env"):
        (folder / name).unlink(missing_ok=True)
    return stopped
