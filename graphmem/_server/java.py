"""Which JDK runs the embedded Neo4j, and so which Neo4j (``graphmem._server.launcher``).

Neo4j 2026.08.1 needs Java 21 or newer; Neo4j 5.26.19 (LTS) runs on Java 17 or 21. JDKs are
looked for in this order: ``JAVA_HOME``, the JDKs under ``/usr/lib/jvm`` (newest first), then
``java`` on ``PATH``. The first one with Java 21+ runs 2026.08.1; without one, the first one
with Java 17+ runs 5.26.19. ``GRAPHMEM_NEO4J_VERSION`` (or ``start --neo4j-version``) forces a
version; a data folder keeps the version that last served it (``graphmem-neo4j-version``
beside its data) unless forced, so an existing store is not upgraded behind its owner's back.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .._base.errors import LauncherError

NEO4J_2026 = "2026.08.1"
NEO4J_LTS = "5.26.19"
JVM_DIR = Path("/usr/lib/jvm")
_VERSION = re.compile(r"^(5\.\d+\.\d+|20\d\d\.\d\d\.\d+)$")
_RELEASE = re.compile(r'^JAVA_VERSION="([^"]+)"', re.M)
_JAVA_DASH_VERSION = re.compile(r'version "([^"]+)"')


@dataclass(frozen=True)
class Jdk:
    """A Java installation: its home (``JAVA_HOME`` for Maven), version and where it was found."""

    home: Path
    version: str  # e.g. "25.0.3"
    found: str  # "JAVA_HOME", "/usr/lib/jvm" or "PATH"

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"

    @property
    def feature(self) -> int:
        """The feature release: 25 for "25.0.3", 8 for "1.8.0_402"."""
        numbers = [int(n) for n in re.findall(r"\d+", self.version)[:2]] or [0]
        return numbers[1] if numbers[0] == 1 and len(numbers) > 1 else numbers[0]


@dataclass(frozen=True)
class Choice:
    """The Neo4j version to run, the JDK to build and run it with, and why (one line)."""

    neo4j: str
    jdk: Jdk
    why: str

    def line(self) -> str:
        return f"neo4j {self.neo4j} ({self.why})"


def _key(neo4j: str) -> tuple[int, ...]:
    return tuple(int(n) for n in neo4j.split("."))


def java_range(neo4j: str) -> tuple[int, int]:
    """The Java feature releases a Neo4j version runs on: (lowest, highest preferred)."""
    return (17, 21) if neo4j.startswith("5.") else (21, 10_000)


def forced_version(asked: str | None = None) -> str | None:
    """The version asked for (``--neo4j-version``, else ``GRAPHMEM_NEO4J_VERSION``), checked; None if neither."""
    wanted = (asked or os.environ.get("GRAPHMEM_NEO4J_VERSION") or "").strip() or None
    if wanted is not None and not _VERSION.match(wanted):
        raise LauncherError(f"GRAPHMEM_NEO4J_VERSION / --neo4j-version {wanted!r} is not a Neo4j version "
                            f"such as {NEO4J_2026} or {NEO4J_LTS}")
    return wanted


def kept_version(data_dir: Path, file: str) -> str | None:
    """The Neo4j version that last served a data folder (its ``file``), or 5.26.19 for a store
    without one (launchers before issue 30 ran 5.26 only); None for a new folder."""
    try:
        kept = (data_dir / file).read_text().strip()
    except OSError:
        return NEO4J_LTS if (data_dir / "data" / "databases").is_dir() else None
    return kept if _VERSION.match(kept) else None


def _release_version(home: Path) -> str | None:
    try:
        found = _RELEASE.search((home / "release").read_text(errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None


def _asked_version(java: Path) -> str | None:
    """``java -version``'s version, for a ``java`` whose home has no ``release`` file."""
    try:
        done = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _JAVA_DASH_VERSION.search(done.stderr + done.stdout)
    return found.group(1) if found else None


def _jdk_at(home: Path, found: str) -> Jdk | None:
    # a JDK, not a JRE: Maven compiles the launcher with it (javac)
    if not ((home / "bin" / "java").is_file() and (home / "bin" / "javac").is_file()):
        return None
    version = _release_version(home) or _asked_version(home / "bin" / "java")
    return Jdk(home, version, found) if version and re.match(r"\d", version) else None


def find_jdks(jvm_dir: Path = JVM_DIR) -> list[Jdk]:
    """Every JDK found, in lookup order: JAVA_HOME, ``jvm_dir``'s (newest first), ``java`` on PATH."""
    found: list[Jdk] = []
    home = os.environ.get("JAVA_HOME")
    if home:
        found += filter(None, [_jdk_at(Path(home), "JAVA_HOME")])
    try:
        folders = sorted(p for p in jvm_dir.iterdir()  # a symlink (java-1.17.0-openjdk-amd64) names another folder
                         if p.is_dir() and not p.is_symlink() and (p / "bin" / "javac").is_file())
    except OSError:
        folders = []
    found += sorted(filter(None, (_jdk_at(p, str(jvm_dir)) for p in folders)), key=lambda j: -j.feature)
    on_path = shutil.which("java")
    if on_path:
        found += filter(None, [_jdk_at(Path(on_path).resolve().parent.parent, "PATH")])
    unique: dict[Path, Jdk] = {}
    for jdk in found:
        unique.setdefault(jdk.home.resolve(), jdk)
    return list(unique.values())


def _where(jdk: Jdk) -> str:
    return f"Java {jdk.version} at {jdk.home}" + (" from JAVA_HOME" if jdk.found == "JAVA_HOME" else "")


def _fitting(jdks: Iterable[Jdk], neo4j: str) -> Jdk | None:
    """The first JDK in a supported Java release for ``neo4j``, else the first new enough."""
    low, high = java_range(neo4j)
    usable = [j for j in jdks if j.feature >= low]
    return next((j for j in usable if j.feature <= high), usable[0] if usable else None)


def choose(jdks: list[Jdk], forced: str | None = None, kept: str | None = None) -> Choice:
    """The Neo4j version and JDK to run: ``forced`` if given; else ``kept`` (the version the
    data folder was last served by) when a JDK can run it; else 2026.08.1 on the first Java 21+,
    else 5.26.19 on the first Java 17+."""
    seen = "; ".join(_where(j) for j in jdks) or "none"
    if forced and kept and _key(forced) < _key(kept):
        raise LauncherError(f"the data folder was last served by Neo4j {kept}, and Neo4j {forced} cannot open a newer "
                            "store: choose another --data folder (or `graphmem neo4j reset` it), or leave the version unforced")
    wanted = forced or kept
    if wanted:
        jdk = _fitting(jdks, wanted)
        if jdk is None:
            how = "" if forced else " (the version this data folder was last served by; force another with GRAPHMEM_NEO4J_VERSION)"
            raise LauncherError(f"Neo4j {wanted}{how} needs Java {java_range(wanted)[0]} or newer, and none was found "
                                f"(JDKs seen: {seen}): install one (e.g. Temurin 21 or 25) under {JVM_DIR} or set JAVA_HOME")
        how = "forced by GRAPHMEM_NEO4J_VERSION or --neo4j-version" if forced else "the version this data folder was last served by"
        return Choice(wanted, jdk, f"{how}; {_where(jdk)}")
    newest = _fitting(jdks, NEO4J_2026)
    if newest is not None:
        return Choice(NEO4J_2026, newest, _where(newest))
    jdk = _fitting(jdks, NEO4J_LTS)
    if jdk is None:
        raise LauncherError(f"no Java 17 or newer was found (JDKs seen: {seen}): install a JDK "
                            "(e.g. apt-get install openjdk-17-jdk, or Temurin 21/25 for Neo4j 2026) or set JAVA_HOME")
    return Choice(NEO4J_LTS, jdk, f"no Java 21+ found; {_where(jdk)}")
