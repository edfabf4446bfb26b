"""The no-Docker Neo4j: builds and runs the embedded launcher in docker/embedded.

``graphmem neo4j start|status|stop|reset`` is a thin layer over ``start()``, ``status()``,
``stop()`` and ``reset()`` here. The launcher's jars are fetched once with Maven and cached
under ``$GRAPHMEM_CACHE`` (default ``~/.cache/graphmem``). The state folder (default
``./.graphmem``, or ``$GRAPHMEM_STATE_DIR``) holds the running server's pid, its log, its
connection lines (``neo4j.env``, mode 600, kept across ``stop``) and, by default, its data
(``neo4j-data``, kept across ``stop``, deleted by ``reset``). A data folder keeps the
password it was given on its first start in its ``graphmem-password`` file (mode 600).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .._base.errors import LauncherError
from .java import Choice, choose, find_jdks, forced_version, kept_version
from .process import (
    MAIN_CLASS,
    chosen_password,
    env_text,
    is_launcher,
    read_env_file,
    recorded_pid,
    source_lines,
    terminate,
    write_private,
)
from .wait import LogFollower, wait_for_bolt, wait_for_query


@dataclass(frozen=True)
class RunningNeo4j:
    """A launcher-started Neo4j: its connection settings, process id and data folder."""

    uri: str
    user: str
    password: str
    pid: int
    version: str
    browser_url: str | None = None
    data: str = ""
    ephemeral: bool = False

    def settings(self) -> dict[str, str]:
        """The connection settings as environment variables (the password among them)."""
        values = {"NEO4J_URI": self.uri, "NEO4J_USER": self.user, "NEO4J_PASSWORD": self.password}
        if self.browser_url:
            values["NEO4J_BROWSER_URL"] = self.browser_url
        return values

    def env_lines(self) -> str:
        """``NAME=value`` lines a POSIX shell can ``eval``, the password in clear
        (``graphmem neo4j start --show-password``, and the private env file)."""
        return env_text(self.settings())

    def eval_lines(self, env_file: Path) -> str:
        """Lines for ``eval`` that source ``env_file`` (mode 600, holding ``env_lines``) and
        export its settings: what ``graphmem neo4j start|status`` print, without the password."""
        return source_lines(env_file, tuple(self.settings()))


def state_dir() -> Path:
    return Path(os.environ.get("GRAPHMEM_STATE_DIR", ".graphmem")).resolve()


def _cache_dir() -> Path:
    default = Path.home() / ".cache" / "graphmem"
    return Path(os.environ.get("GRAPHMEM_CACHE", str(default))).resolve()


def _project_source() -> Path:
    """The launcher's Maven project: the source tree's docker/embedded, or the wheel's copy."""
    tree = Path(__file__).resolve().parents[2] / "docker" / "embedded"
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


def build(progress: Callable[..., None] = print, choice: Choice | None = None) -> Path:
    """Build the launcher once for ``choice``'s Neo4j version with its JDK (Maven fetches
    Neo4j's jars); return the build folder, one per version and launcher source."""
    choice = choice or choose(find_jdks(), forced_version())
    project = _project_source()
    build_dir = _cache_dir() / f"embedded-{choice.neo4j}-{_fingerprint(project)}"
    jar = build_dir / "target" / "graphmem-embedded-neo4j-1.0.0.jar"
    if jar.is_file() and (build_dir / "target" / "lib").is_dir():
        return build_dir
    mvn = shutil.which("mvn")
    if not mvn:
        raise LauncherError("mvn (Apache Maven) was not found: install it (e.g. apt-get install maven) to fetch Neo4j's jars")
    progress(f"graphmem: building the embedded Neo4j {choice.neo4j} launcher in {build_dir} with Java {choice.jdk.version} "
             "(first time: Maven fetches Neo4j's jars)", file=sys.stderr)
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    shutil.copy2(project / "pom.xml", build_dir / "pom.xml")
    shutil.copytree(project / "src", build_dir / "src")
    done = subprocess.run([mvn, "-B", "-q", "package", "-DskipTests", f"-Dneo4j.version={choice.neo4j}"], cwd=build_dir,
                          capture_output=True, text=True, env=dict(os.environ, JAVA_HOME=str(choice.jdk.home)))
    if done.returncode != 0 or not jar.is_file():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        shutil.rmtree(build_dir, ignore_errors=True)
        raise LauncherError(f"Maven could not build the Neo4j launcher (exit {done.returncode}):\n{tail}")
    return build_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _port_taken(port: int) -> bool:
    """Whether something listens on ``port`` of 127.0.0.1 (Neo4j could not bind it).

    The probe binds as Neo4j's server socket does, with ``SO_REUSEADDR``: connections of a
    server killed with -9 linger on its port (TIME_WAIT, FIN_WAIT2) for a minute or more,
    and they must not count as taken, or the restart moves to a new port and every open
    ``Memory`` keeps calling the old one."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def default_data_dir() -> Path:
    """Where ``start`` keeps Neo4j's data unless told otherwise: ``<state dir>/neo4j-data``."""
    return state_dir() / "neo4j-data"


def status() -> RunningNeo4j | None:
    """The Neo4j this state folder started, if it is still running."""
    folder = state_dir()
    env_file, pid_file = folder / "neo4j.env", folder / "neo4j.pid"
    if not (env_file.is_file() and pid_file.is_file()):
        return None
    pid = recorded_pid(pid_file)
    env = read_env_file(env_file)
    if pid is None or not is_launcher(pid, env.get("GRAPHMEM_NEO4J_DATA")):
        return None
    if not {"NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD"} <= set(env):
        return None
    return RunningNeo4j(
        uri=env["NEO4J_URI"], user=env["NEO4J_USER"], password=env["NEO4J_PASSWORD"],
        pid=pid, version=env.get("GRAPHMEM_NEO4J_VERSION", "?"),
        browser_url=env.get("NEO4J_BROWSER_URL") or None, data=env.get("GRAPHMEM_NEO4J_DATA", ""),
        ephemeral=env.get("GRAPHMEM_NEO4J_EPHEMERAL") == "1",
    )


def _previous_port(url: str | None) -> int | None:
    """The port of a URL the last start of this state folder printed, if that port is free."""
    if not url:
        return None
    try:
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    except (IndexError, ValueError):
        return None
    return None if _port_taken(port) else port


def _choose_port(asked: int | None, variable: str, previous: str | None, what: str, option: str) -> int:
    """The port asked for (which must be free), else the last one used if free, else a free one."""
    asked = asked or int(os.environ.get(variable, "0"))
    if asked:
        if _port_taken(asked):
            raise LauncherError(f"{what} port {asked} on 127.0.0.1 is already in use: pick another with {option} or {variable}")
        return asked
    return _previous_port(previous) or _free_port()


_PASSWORD_FILE = "graphmem-password"
_VERSION_FILE = "graphmem-neo4j-version"  # the Neo4j version that last served a data folder


def _data_password(data_dir: Path) -> str:
    """The password of a persistent data folder: the one stored beside the data on its first
    start (Neo4j keeps it in its system database from then on), or a new one."""
    stored_file = data_dir / _PASSWORD_FILE
    wanted = chosen_password()
    if stored_file.is_file():
        stored = stored_file.read_text().strip()
        if wanted and wanted != stored:
            raise LauncherError(
                f"the Neo4j data in {data_dir} keeps the password it was given on its first start, "
                "which is not GRAPHMEM_NEO4J_PASSWORD: unset GRAPHMEM_NEO4J_PASSWORD (the stored one is used), "
                "or delete the data with `graphmem neo4j reset`")
        return stored
    if (data_dir / "data" / "databases").exists() and not wanted:
        raise LauncherError(
            f"{data_dir} holds a Neo4j store without graphmem's password file ({_PASSWORD_FILE}): "
            "start once with GRAPHMEM_NEO4J_PASSWORD set to its password, or choose another --data folder")
    password = wanted or secrets.token_urlsafe(18)
    data_dir.mkdir(parents=True, exist_ok=True)
    write_private(stored_file, password + "\n")
    return password


def start(*, port: int | None = None, http_port: int | None = None, data: Path | None = None,
          ephemeral: bool = False, browser: bool = True, timeout: float | None = None,
          neo4j_version: str | None = None, progress: Callable[..., None] = print) -> RunningNeo4j:
    """Start Neo4j in the background (or return the one already running) and wait for Bolt.

    Data lives in ``data`` (default ``<state dir>/neo4j-data``) and survives ``stop``; with
    ``ephemeral=True`` it lives in a temporary folder that ``stop`` removes. With ``browser``
    the HTTP connector serves Neo4j Browser on 127.0.0.1 as well. The wait lasts while Neo4j
    makes progress (a recovery after a crash can take minutes) and ends after ``timeout``
    seconds without any (default ``GRAPHMEM_NEO4J_START_TIMEOUT``, else 180); ``progress``
    hears what it is doing meanwhile (``graphmem._server.wait``). The Neo4j version and
    JDK are chosen by ``graphmem._server.java`` (``neo4j_version`` forces a version) and
    said in one line to ``progress``.
    """
    forced = forced_version(neo4j_version)
    running = status()
    if running:
        if forced and forced != running.version:
            raise LauncherError(f"Neo4j {running.version} is already running from this state dir: stop it first "
                                f"(`graphmem neo4j stop`) to start Neo4j {forced}")
        return running
    if ephemeral and data is not None:
        raise LauncherError("--data and --ephemeral exclude each other: an ephemeral Neo4j uses a temporary folder")
    kept_dir = None if ephemeral else (Path(data).resolve() if data is not None else default_data_dir())
    choice = choose(find_jdks(), forced, kept_version(kept_dir, _VERSION_FILE) if kept_dir else None)
    progress(f"graphmem: {choice.line()}", file=sys.stderr)
    build_dir = build(progress, choice)
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    _forget_dead(folder)
    previous = read_env_file(folder / "neo4j.env")
    port = _choose_port(port, "GRAPHMEM_NEO4J_PORT", previous.get("NEO4J_URI"), "Bolt", "--port")
    http = 0
    if browser:
        http = _choose_port(http_port, "GRAPHMEM_NEO4J_HTTP_PORT", previous.get("NEO4J_BROWSER_URL"), "HTTP", "--http-port")
        if http == port:
            http = _free_port()
    if ephemeral:
        data_dir = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-"))
        password = chosen_password() or secrets.token_urlsafe(18)
    else:
        data_dir = kept_dir or default_data_dir()
        password = _data_password(data_dir)
    log = folder / "neo4j.log"
    heap = os.environ.get("GRAPHMEM_NEO4J_HEAP", "3g")
    try:
        if kept_dir:  # before the start: a 2026 server upgrades a 5.26 store as it opens it
            kept_dir.mkdir(parents=True, exist_ok=True)
            (kept_dir / _VERSION_FILE).write_text(choice.neo4j + "\n")
        return _launch(str(choice.jdk.java), build_dir, port, http, folder, data_dir, ephemeral, password, heap, log,
                       timeout, progress)
    except BaseException:
        if ephemeral:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise


def _post_connect_command() -> str:
    """What Browser runs after connecting: apply graphmem's style (browser/style.grass)."""
    from .browser import style_command

    return style_command(leading_colon=False)


def _launch(java: str, build_dir: Path, port: int, http: int, folder: Path, data_dir: Path, ephemeral: bool,
            password: str, heap: str, log: Path, timeout: float | None, progress: Callable[..., None]) -> RunningNeo4j:
    env = dict(os.environ, GRAPHMEM_NEO4J_PASSWORD=password)
    command = [java, f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseG1GC",
               "-cp", os.pathsep.join([str(build_dir / "target" / "graphmem-embedded-neo4j-1.0.0.jar"),
                                       str(build_dir / "target" / "lib" / "*")]),
               MAIN_CLASS, "--data", str(data_dir), "--port", str(port)]
    if http:
        command += ["--http-port", str(http)]
        env["GRAPHMEM_BROWSER_POST_CONNECT"] = _post_connect_command()
    stall = timeout or float(os.environ.get("GRAPHMEM_NEO4J_START_TIMEOUT", "180"))
    with open(log, "wb") as out:  # the launcher's log starts empty; Neo4j's own is followed from here
        logs = [LogFollower(log), LogFollower(data_dir / "logs" / "debug.log")]
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    version = wait_for_bolt(proc, logs, stall, progress)
    found = RunningNeo4j(
        uri=f"bolt://127.0.0.1:{port}", user="neo4j", password=password, pid=proc.pid, version=version,
        browser_url=f"http://127.0.0.1:{http}/browser/" if http else None, data=str(data_dir), ephemeral=ephemeral,
    )
    wait_for_query(found.uri, (found.user, found.password), found.pid, found.data, time.monotonic() + stall, log)
    write_private(folder / "neo4j.env", found.env_lines() + env_text({
        "GRAPHMEM_NEO4J_VERSION": version, "GRAPHMEM_NEO4J_DATA": str(data_dir),
        "GRAPHMEM_NEO4J_EPHEMERAL": str(int(ephemeral))}))
    (folder / "neo4j.pid").write_text(f"{proc.pid}\n{data_dir if ephemeral else ''}\n")
    return found


def stop() -> bool:
    """Stop the Neo4j this state folder started (by its recorded pid); False if none ran.

    Persistent data and its connection lines (neo4j.env) stay for the next ``start``; an
    ephemeral start's temporary folder and lines are removed.
    """
    folder = state_dir()
    pid, data, _ = _recorded(folder)
    stopped = False
    if pid is not None and is_launcher(pid, data):
        terminate(pid)
        stopped = True
    _forget(folder)
    return stopped


def _recorded(folder: Path) -> tuple[int | None, str, str]:
    """The pid file's pid, the data folder it serves, and its temporary folder ("" unless ephemeral)."""
    pid_file = folder / "neo4j.pid"
    if not pid_file.is_file():
        return None, "", ""
    lines = pid_file.read_text().splitlines()
    temp_data = lines[1] if len(lines) > 1 else ""
    data = read_env_file(folder / "neo4j.env").get("GRAPHMEM_NEO4J_DATA") or temp_data
    return recorded_pid(pid_file), data, temp_data


def _forget(folder: Path) -> None:
    """Drop the pid file, and an ephemeral start's temporary folder and connection lines."""
    _, _, temp_data = _recorded(folder)
    (folder / "neo4j.pid").unlink(missing_ok=True)
    if temp_data:
        shutil.rmtree(temp_data, ignore_errors=True)
        (folder / "neo4j.env").unlink(missing_ok=True)


def dead_pid() -> int | None:
    """The pid this state folder recorded if that process is gone without ``stop``, else None."""
    pid, data, _ = _recorded(state_dir())
    if pid is None or is_launcher(pid, data):
        return None
    return pid


def _forget_dead(folder: Path) -> None:
    """What a Neo4j killed without ``stop`` (kill -9, a crash, a reboot) left behind goes
    before the next start: its pid file, and an ephemeral start's temporary folder, which
    nothing would remove otherwise. A process still serving the recorded data is left alone."""
    pid, data, _ = _recorded(folder)
    if pid is not None and is_launcher(pid, data):
        return
    _forget(folder)


def reset(data: Path | None = None) -> Path | None:
    """Delete a persistent data folder (default ``<state dir>/neo4j-data``) and the state
    folder's connection lines; return the folder deleted, or None if there was none.

    Refuses while this state folder's Neo4j runs (stop it first), and refuses a folder that
    is not a graphmem data folder (no ``graphmem-password`` file in it).
    """
    running = status()
    if running:
        raise LauncherError(f"Neo4j is running (pid {running.pid}): stop it first with `graphmem neo4j stop`")
    data_dir = Path(data).resolve() if data is not None else default_data_dir()
    env_file = state_dir() / "neo4j.env"
    if read_env_file(env_file).get("GRAPHMEM_NEO4J_DATA") == str(data_dir):
        env_file.unlink(missing_ok=True)
    if not data_dir.exists():
        return None
    if not (data_dir / _PASSWORD_FILE).is_file():
        raise LauncherError(f"{data_dir} is not a graphmem Neo4j data folder (no {_PASSWORD_FILE} in it): not deleting it")
    shutil.rmtree(data_dir)
    return data_dir
