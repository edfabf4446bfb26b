"""Which JDK and which Neo4j ``graphmem neo4j start`` picks (graphmem/_server/java.py):
fake JDK folders (a ``bin/java``, a ``bin/javac`` and a ``release`` file), no Java run."""

from __future__ import annotations

import os

import pytest

from graphmem import LauncherError
from graphmem._server.java import NEO4J_2026, NEO4J_LTS, Jdk, choose, find_jdks, forced_version, kept_version


def fake_jdk(folder, version, *, javac=True):
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "java").write_text("#!/bin/sh\nexit 1\n")
    if javac:
        (folder / "bin" / "javac").write_text("")
    (folder / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\nJAVA_VERSION_DATE="2026-01-20"\n')
    return folder


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A /usr/lib/jvm with Java 17 and 25 (as this project's machines have), java 17 on PATH, no JAVA_HOME."""
    jvm = tmp_path / "jvm"
    fake_jdk(jvm / "java-17-openjdk-amd64", "17.0.15")
    fake_jdk(jvm / "temurin-25-jdk-amd64", "25.0.1")
    (jvm / "java-1.17.0-openjdk-amd64").symlink_to(jvm / "java-17-openjdk-amd64")
    (jvm / "jre-only-26").mkdir()  # no bin/javac: Maven cannot build with it
    fake_jdk(jvm / "jre-only-26", "26", javac=False)
    path = tmp_path / "bin"
    path.mkdir()
    (path / "java").symlink_to(jvm / "java-17-openjdk-amd64" / "bin" / "java")
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("GRAPHMEM_NEO4J_VERSION", raising=False)
    return jvm


def test_jdks_in_lookup_order_java_home_then_jvm_dir_newest_first_then_path(machine, tmp_path, monkeypatch):
    home = fake_jdk(tmp_path / "my-jdk", "21.0.5")
    monkeypatch.setenv("JAVA_HOME", str(home))
    found = find_jdks(machine)
    assert [(j.home.name, j.feature, j.found) for j in found] == [
        ("my-jdk", 21, "JAVA_HOME"), ("temurin-25-jdk-amd64", 25, str(machine)), ("java-17-openjdk-amd64", 17, str(machine))]
    # the symlinked folder and java on PATH are the same JDK, listed once


def test_java_21_or_newer_runs_2026_and_says_why(machine):
    choice = choose(find_jdks(machine))
    assert (choice.neo4j, choice.jdk.home.name) == (NEO4J_2026, "temurin-25-jdk-amd64")
    assert choice.line() == f"neo4j 2026.08.1 (Java 25.0.1 at {machine / 'temurin-25-jdk-amd64'})"


def test_java_home_comes_first(machine, tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(tmp_path / "jdk21", "21.0.5")))
    choice = choose(find_jdks(machine))
    assert (choice.neo4j, choice.jdk.home) == (NEO4J_2026, tmp_path / "jdk21")
    assert "from JAVA_HOME" in choice.why


def test_only_java_17_runs_the_lts(tmp_path, monkeypatch):
    jvm = tmp_path / "jvm"
    fake_jdk(jvm / "java-17-openjdk-amd64", "17.0.15")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    choice = choose(find_jdks(jvm))
    assert choice.neo4j == NEO4J_LTS
    assert choice.line() == f"neo4j 5.26.19 (no Java 21+ found; Java 17.0.15 at {jvm / 'java-17-openjdk-amd64'})"


def test_java_on_path_without_a_release_file_is_asked_its_version(tmp_path, monkeypatch):
    home = tmp_path / "odd-jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text('#!/bin/sh\necho \'openjdk version "21.0.2" 2024-01-16\' >&2\n')
    java.chmod(0o755)
    monkeypatch.setenv("PATH", str(home / "bin"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert find_jdks(tmp_path / "no-jvm") == []  # a JRE (no javac): Maven could not build the launcher with it
    (home / "bin" / "javac").write_text("#!/bin/sh\n")
    [jdk] = find_jdks(tmp_path / "no-jvm")
    assert (jdk.version, jdk.feature, jdk.found) == ("21.0.2", 21, "PATH")


def test_forcing_the_lts_picks_a_java_it_supports(machine, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "5.26.19")
    choice = choose(find_jdks(machine), forced_version())
    assert (choice.neo4j, choice.jdk.feature) == (NEO4J_LTS, 17)  # 5.26 supports Java 17 and 21, not 25
    assert choice.why.startswith("forced by GRAPHMEM_NEO4J_VERSION")


def test_forcing_2026_without_java_21_is_a_clear_error(tmp_path, monkeypatch):
    jvm = tmp_path / "jvm"
    fake_jdk(jvm / "java-17-openjdk-amd64", "17.0.15")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(LauncherError, match=r"Neo4j 2026.08.1 needs Java 21 or newer.*Java 17.0.15 at"):
        choose(find_jdks(jvm), forced_version("2026.08.1"))


@pytest.mark.parametrize("asked", ["2026", "latest", "5.26", "neo4j-5.26.19", "5.26.19; rm -rf /"])
def test_a_forced_version_must_be_a_neo4j_version(asked, monkeypatch):
    monkeypatch.delenv("GRAPHMEM_NEO4J_VERSION", raising=False)
    with pytest.raises(LauncherError, match="is not a Neo4j version"):
        forced_version(asked)


def test_the_option_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "5.26.19")
    assert forced_version("2026.08.1") == "2026.08.1"
    assert forced_version() == "5.26.19"
    monkeypatch.setenv("GRAPHMEM_NEO4J_VERSION", "")
    assert forced_version() is None


def test_a_data_folder_keeps_its_version_unless_forced(machine):
    jdks = find_jdks(machine)
    kept = choose(jdks, kept="5.26.19")
    assert (kept.neo4j, kept.jdk.feature) == (NEO4J_LTS, 17) and "last served by" in kept.why
    assert choose(jdks, forced="2026.08.1", kept="5.26.19").neo4j == NEO4J_2026  # an upgrade, when asked for
    with pytest.raises(LauncherError, match="cannot open a newer store"):
        choose(jdks, forced="5.26.19", kept="2026.08.1")


def test_no_java_at_all(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(LauncherError, match="no Java 17 or newer was found"):
        choose(find_jdks(tmp_path / "no-jvm"))


def test_versions_of_old_and_new_schemes():
    assert Jdk(os.devnull, "1.8.0_402", "PATH").feature == 8  # type: ignore[arg-type]
    assert Jdk(os.devnull, "25", "PATH").feature == 25  # type: ignore[arg-type]
    assert Jdk(os.devnull, "21-ea", "PATH").feature == 21  # type: ignore[arg-type]


def test_the_kept_version_of_a_data_folder(tmp_path):
    data = tmp_path / "neo4j-data"
    assert kept_version(data, "v") is None  # a new folder: the default applies
    (data / "data" / "databases").mkdir(parents=True)
    assert kept_version(data, "v") == NEO4J_LTS  # a store from before the version file: 5.26 wrote it
    (data / "v").write_text("2026.08.1\n")
    assert kept_version(data, "v") == NEO4J_2026
    (data / "v").write_text("?\n")
    assert kept_version(data, "v") is None
