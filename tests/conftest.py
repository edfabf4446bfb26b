"""Test configuration: a real Neo4j for every integration test, an isolated tenant per test.

``GRAPHMEM_TEST_SCHEME=neo4j`` runs the tests over a routing URI (``neo4j://``, what a
cluster or Aura needs: reads in read transactions, a routing table) instead of ``bolt://``;
a single Neo4j 5 server answers routing requests itself.

With pytest-xdist (``make test`` runs ``-n``), the controller starts the one server in a
thread of its own while its workers start, collect and run the tests that need no server
(the unit tests go first); the thread applies the schema once and then writes the server's
address to a hand-off file, which a worker's ``neo4j`` fixture waits for. Every worker runs
against that server, each test in a tenant of its own. The modules of ``TOGETHER`` (a
module-wide fixture, or servers of their own) run whole on one worker, each test of the
others wherever a worker is free (the scheduler below); the slowest start first (``FIRST``),
right after the unit tests."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import tempfile
import threading
import time
import uuid

import pytest
from neo4j import GraphDatabase

import graphmem
import graphmem._base.templates
from graphmem import HashingEmbedder, Memory

from .neo4j_server import Server, neo4j_server

# the agent frameworks' adapters are tested in a venv of their own (make test-frameworks sets
# GRAPHMEM_FRAMEWORKS): the dev venv, where make test runs, has none of the five installed
collect_ignore = [] if os.environ.get("GRAPHMEM_FRAMEWORKS") else ["frameworks"]

_STACK = contextlib.ExitStack()
_SERVER = {}
DIMENSIONS = 256


# modules whose tests must run on one worker, one after the other, by group: a module-wide
# fixture built once (the 50,000-memory tenant, the server test_faults kills), or servers
# of their own (make demo's, the persistence test's: never two extra servers at once)
TOGETHER = {
    "tests/integration/test_recall_filtered.py": "big-tenant",
    "tests/reliability/test_faults.py": "faults",
    "tests/launcher/test_browser.py": "launcher",
    "tests/launcher/test_persistence.py": "launcher",
    "tests/launcher/test_versions.py": "launcher",
    # writes tenant "demo" as make demo does in test_browser.py (on the session's server)
    "tests/integration/test_demo.py": "launcher",
    "tests/integration/test_recall_cases.py": "recall-cases",
    "tests/reliability/test_secrets.py": "secrets",
    "tests/unit/test_onnx_embedder.py": "onnx",
    # test_the_tally reads the counts the module's fuzz tests left in this process
    "tests/reliability/test_fuzz_surfaces.py": "fuzz",
    # a Neo4j of its own, re-embedded and switched between slots
    "tests/integration/test_operations.py": "operations",
    "tests/integration/test_reembed_writers.py": "reembed-writers",
    # a Neo4j of its own, its indexes dropped and its store's node changed by hand
    "tests/integration/test_store_check.py": "store-check",
    # make test-reliability only: a Neo4j of its own, re-embedded beside writer processes
    "tests/reliability/test_reembed_races.py": "reembed-races",
}
# the slowest tests (make test --durations), started first so that they overlap the rest
FIRST = ("tests/integration/test_operations.py", "tests/integration/test_reembed_writers.py",
         "tests/integration/test_store_check.py", "tests/launcher/", "tests/integration/test_recall_filtered.py",
         "tests/integration/test_bench_smoke.py",
         "tests/integration/test_scopes_tenants.py", "tests/integration/test_notebooks.py",
         "tests/integration/test_cli_", "tests/integration/test_demo.py", "tests/reliability/")


# each reliability test is bounded in time (issue 23): the slowest, a kill -9 and restart of
# Neo4j, takes about 35 s; anything else ends at the suite-wide 600 s (pyproject.toml)
RELIABILITY_TIMEOUT = 180


def _order(nodeid: str) -> int:
    """Unit tests first (they run while the server starts), then the slowest, then the rest."""
    if nodeid.startswith("tests/unit/"):
        return -1
    return next((i for i, p in enumerate(FIRST) if nodeid.startswith(p)), len(FIRST))


def pytest_collection_modifyitems(config, items):
    # in that order, stable otherwise; every worker collects the same order
    items.sort(key=lambda item: _order(item.nodeid))
    for item in items:
        if item.nodeid.replace("\\", "/").startswith(("tests/integration/", "tests/frameworks/")):
            item.add_marker(pytest.mark.integration)
        if item.get_closest_marker("reliability") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(RELIABILITY_TIMEOUT))


def _distributing(config) -> bool:
    """Whether this process is pytest-xdist's controller, handing tests to workers."""
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput") \
        and getattr(config.option, "dist", "no") != "no"


def _bring_up() -> str:
    """Start (or find) the test server; the header line naming it."""
    server = _STACK.enter_context(neo4j_server())
    scheme = os.environ.get("GRAPHMEM_TEST_SCHEME")
    if scheme:
        server = dataclasses.replace(server, uri=with_scheme(server.uri, scheme))
    with GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        records, _, _ = driver.execute_query(graphmem._base.templates.get("server_components").text)
    info = records[0]
    _SERVER["server"] = server
    _SERVER["header"] = f"neo4j: {info['name']} {info['version']} {info['edition']} at {server.uri} via {server.source}"
    return _SERVER["header"]


def pytest_configure(config):
    if hasattr(config, "workerinput") and "graphmem_neo4j" in config.workerinput:
        _SERVER["handoff"] = config.workerinput["graphmem_neo4j"]


def _bring_up_and_hand_off(handoff: str) -> None:
    """In the controller's thread: start the server, apply the schema once (so that workers
    do not create the same indexes all at once), then write its address, or why it failed,
    to ``handoff`` (renamed into place: a reader never sees half a file)."""
    try:
        _bring_up()
        server = _SERVER["server"]
        with Memory(server.uri, (server.user, server.password), embedder=HashingEmbedder(DIMENSIONS)) as m:
            m.setup()
        message = {"server": dataclasses.asdict(server)}
    except BaseException as exc:  # handed to every worker's neo4j fixture
        message = {"error": f"{type(exc).__name__}: {exc}"}
    partial = handoff + ".partial"
    with open(partial, "w") as f:
        json.dump(message, f)
    os.replace(partial, handoff)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    # the controller runs no test: it starts the server while xdist starts its workers
    config = session.config
    if _distributing(config) and not all(str(a).replace("\\", "/").startswith("tests/unit") for a in config.args):
        folder = tempfile.mkdtemp(prefix="graphmem-test-")
        _STACK.callback(shutil.rmtree, folder, ignore_errors=True)
        _SERVER["handoff"] = handoff = os.path.join(folder, "neo4j.json")
        thread = threading.Thread(target=_bring_up_and_hand_off, args=(handoff,), name="neo4j-bring-up", daemon=True)
        thread.start()
        _SERVER["thread"] = thread


def _handed_off(handoff: str, patience: float = 900.0) -> Server:
    """The server the controller's thread brought up (waiting for it), or a failure saying why not."""
    deadline = time.monotonic() + patience
    while not os.path.exists(handoff):
        if time.monotonic() > deadline:
            pytest.fail(f"the test server was not up after {patience:.0f} s (hand-off file {handoff})")
        time.sleep(0.2)
    with open(handoff) as f:
        message = json.load(f)
    if "error" in message:
        pytest.fail(f"the test server could not be brought up: {message['error']}")
    return Server(**message["server"])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: the modules of ``TOGETHER`` as one unit per group, every other
    test a unit of its own. (pytest 9.2 ignores xdist's own ``xdist_group`` marks: xdist
    renames the test through ``item._nodeid``, which no longer changes ``item.nodeid``.)"""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Together(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return Together(config, log)


def unit_of(nodeid: str) -> str:
    """The unit of work a test is scheduled in: its module's group, or the test itself."""
    return TOGETHER.get(nodeid.split("::", 1)[0], nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):  # xdist: each worker learns where the server's address will be
    if "handoff" in _SERVER:
        node.workerinput["graphmem_neo4j"] = _SERVER["handoff"]


def pytest_report_header(config):
    return _SERVER.get("header")


def pytest_terminal_summary(terminalreporter):
    # with xdist the server comes up after the header was printed: name it at the end
    if "thread" in _SERVER and "header" in _SERVER:
        terminalreporter.write_line(_SERVER["header"])


def pytest_report_collectionfinish(config, start_path, items):
    if "server" in _SERVER or "handoff" in _SERVER:  # brought up, or being brought up by the controller
        return None
    if not any(item.get_closest_marker("integration") for item in items):
        return "neo4j: not needed (no integration tests selected)"
    return _bring_up()


def pytest_sessionfinish(session, exitstatus):
    if "thread" in _SERVER:
        _SERVER["thread"].join()  # a server still starting is stopped below once it is up
    _STACK.close()


def with_scheme(uri: str, scheme: str) -> str:
    """``uri`` with its scheme replaced (``bolt://127.0.0.1:7687`` -> ``neo4j://127.0.0.1:7687``)."""
    return f"{scheme}://{uri.split('://', 1)[1]}"


@pytest.fixture(scope="session")
def neo4j():
    """The running test server (uri, user, password, source); in an xdist worker, the one the
    controller hands off (waiting until it is up)."""
    if "server" not in _SERVER and "handoff" in _SERVER:
        _SERVER["server"] = _handed_off(_SERVER["handoff"])
    if "server" not in _SERVER:
        pytest.fail("no Neo4j was brought up for this session")
    return _SERVER["server"]


@pytest.fixture(scope="session")
def driver(neo4j):
    with GraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password)) as d:
        yield d


@pytest.fixture(scope="session")
def embedder():
    return HashingEmbedder(DIMENSIONS)


@pytest.fixture(scope="session")
def schema(neo4j, embedder):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), embedder=embedder) as m:
        m.setup()


@pytest.fixture
def tenant():
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def memory(neo4j, schema, embedder, tenant):
    """A Memory on a fresh tenant: tests never see each other's records."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        yield m
