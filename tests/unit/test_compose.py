"""docker/compose.yml bounds lock waits like the embedded launcher does (issue 23.3), and the
docs tell owners of other servers to do the same."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def environment() -> dict[str, str]:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    return compose["services"]["neo4j"]["environment"]


def test_compose_sets_the_launchers_lock_and_transaction_timeouts():
    env = environment()
    assert env["NEO4J_db_lock_acquisition_timeout"] == "10s"
    assert env["NEO4J_db_transaction_timeout"] == "10m"
    launcher = next((ROOT / "docker" / "embedded").rglob("Launcher.java")).read_text()
    assert "lock_acquisition_timeout, Duration.ofSeconds(10)" in launcher
    assert "transaction_timeout, Duration.ofMinutes(10)" in launcher


def test_compose_advertises_the_published_bolt_address_for_routing_drivers():
    assert environment()["NEO4J_server_bolt_advertised__address"] == "127.0.0.1:${NEO4J_BOLT_PORT:-7687}"


def test_the_docs_name_both_settings_for_servers_graphmem_does_not_start():
    for doc in ("docs/neo4j.md", "docs/reliability.md"):
        text = (ROOT / doc).read_text()
        assert "db.lock.acquisition.timeout" in text and "db.transaction.timeout" in text, doc
