"""Unit tests for error translation and redaction (graphmem/_base/errors.py) and the executor's
retry rules (graphmem/_async/executor.py via its generated twin), without a database."""

from __future__ import annotations

import time

import pytest
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    Neo4jError,
    ResultFailedError,
    ServiceUnavailable,
    TransactionError,
    TransientError,
)

from graphmem import (
    ConfigurationError,
    ConflictError,
    GraphMemError,
    Memory,
    Neo4jUnavailableError,
    SchemaError,
    Settings,
)
from graphmem._base.errors import NEO4J_HOW_TO, redact, translated_errors
from graphmem._sync.executor import Executor, _in_transaction


@pytest.mark.parametrize("text, expected", [
    ("bolt://neo4j:secret@host:7687", "bolt://***@host:7687"),
    ("Given URI: 'neo4j+s://u:p%40ss@db.example'.", "Given URI: 'neo4j+s://***@db.example'."),
    ("bolt://host:7687/x@y", "bolt://host:7687/x@y"),  # an @ after the host is not user info
    ("no uri here", "no uri here"),
])
def test_redact_masks_user_info(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("uri", ["bolt://neo4j:secret-pw@localhost:7687", "neo4j+s://admin:secret-pw@db.example"])
def test_a_uri_with_a_password_is_refused_without_echoing_it(uri):
    with pytest.raises(ConfigurationError) as info:
        Memory(uri)
    message = "".join(str(e) for e in (info.value, info.value.__cause__))
    assert "secret-pw" not in message and "secret-pw" not in repr(info.value)
    assert "NEO4J_USER" in str(info.value)


def test_a_uri_with_a_password_from_the_environment_is_refused_without_echoing_it(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "bolt://neo4j:env-secret-pw@localhost:7687")
    from graphmem import connect

    with pytest.raises(ConfigurationError) as info:
        connect()
    assert "env-secret-pw" not in str(info.value) and "env-secret-pw" not in str(info.value.__cause__)


def test_driver_errors_carrying_a_uri_are_redacted():
    with pytest.raises(Neo4jUnavailableError) as info:
        with translated_errors():
            raise ServiceUnavailable("Couldn't connect to bolt://neo4j:hunter2@10.0.0.1:7687")
    assert "hunter2" not in str(info.value) and NEO4J_HOW_TO in str(info.value)


def test_an_exhausted_pool_is_not_reported_as_an_unreachable_server():
    from neo4j.exceptions import ConnectionAcquisitionTimeoutError

    with pytest.raises(Neo4jUnavailableError) as info:
        with translated_errors():
            raise ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 60.0s")
    message = str(info.value)
    assert "pool" in message and "max_connection_pool_size" in message and NEO4J_HOW_TO not in message
    assert "within 60.0s" in message


@pytest.mark.parametrize("index", ["memory_text", "entity_keys"])
def test_a_missing_full_text_index_is_a_schema_error_naming_it_and_what_to_run(index):
    # what Neo4j 2026.08 answers a recall or an ingest once the index was dropped (issue 49.6)
    raw = Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Procedure.ProcedureCallFailed",
        message="Failed to invoke procedure `db.index.fulltext.queryNodes`: Caused by: "
                f"java.lang.IllegalArgumentException: There is no such fulltext schema index: {index}")
    with pytest.raises(SchemaError) as info:
        with translated_errors():
            raise raw
    assert f"the full-text index {index} is missing" in str(info.value) and "graphmem setup" in str(info.value)
    assert info.value.__cause__ is raw and "ProcedureCallFailed" not in str(info.value)
    other = Neo4jError._hydrate_neo4j(code="Neo.ClientError.Procedure.ProcedureCallFailed", message="boom")
    with pytest.raises(GraphMemError, match="Neo4j error Neo.ClientError.Procedure.ProcedureCallFailed: boom") as info:
        with translated_errors():
            raise other
    assert not isinstance(info.value, SchemaError)


def test_settings_carry_the_timeouts(monkeypatch):
    monkeypatch.setenv("NEO4J_CONNECTION_TIMEOUT", "1.5")
    settings = Settings()
    assert settings.connection_timeout == 1.5 and settings.max_retry_time == 30.0
    with pytest.raises(ValueError):
        Settings(connection_timeout=0)


class Script:
    """An attempt that fails with the given errors, then returns 'done'."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "done"


def executor(**kwargs) -> Executor:
    return Executor(None, database=None, tracer=None, owns_driver=False, **kwargs)


def test_transient_errors_of_a_live_server_are_retried():
    script = Script(TransientError("deadlock"), TransientError("lock timeout"))
    assert executor()._retrying(script, write=False) == "done"
    assert script.calls == 3


class FakeTx:
    def __init__(self, failed: Exception | None) -> None:
        self._last_error = failed  # what the driver records when a statement fails


def managed(tx: FakeTx, seen: list[str]):
    """A session's ``execute_write`` as the driver runs it: a function that raises is
    rolled back (through the connection); one that returns is committed, and the commit of
    a failed transaction raises ``TransactionError`` at once."""

    def execute(fn, *args):
        try:
            out = fn(tx, *args)
        except Exception:
            seen.append("rollback")
            raise
        if tx._last_error is not None:
            raise TransactionError(None, "Transaction failed") from tx._last_error
        seen.append("commit")
        return out

    return execute


def test_a_failed_statement_reaches_the_caller_as_itself_without_a_driver_rollback():
    # the driver has already handed the connection back when a statement fails; its
    # rollback would probe it while another thread may own it (the stall of issue 23.3)
    conflict = ConstraintError("taken")
    seen: list[str] = []

    def work(tx):
        raise conflict

    with pytest.raises(ConstraintError) as info:
        _in_transaction(managed(FakeTx(failed=conflict), seen), work)
    assert info.value is conflict and seen == []
    # an error of graphmem's own code in a sound transaction is rolled back as usual
    def buggy(tx):
        raise ValueError("bad")

    with pytest.raises(ValueError):
        _in_transaction(managed(FakeTx(failed=None), seen), buggy)
    assert seen == ["rollback"]
    with pytest.raises(ConstraintError):  # a server error in a transaction the driver did not mark failed
        _in_transaction(managed(FakeTx(failed=None), seen), work)
    assert seen == ["rollback", "rollback"]
    assert _in_transaction(managed(FakeTx(failed=None), seen), lambda tx, x: x * 2, 21) == 42


def test_any_error_after_a_failed_statement_is_kept_from_the_driver_and_unwrapped():
    # e.g. the driver's own "Transaction failed" from a later tx.run: still no rollback I/O,
    # and the caller gets the server's error, which the retry table knows
    conflict = ConstraintError("taken")
    seen: list[str] = []

    def work(tx):
        try:
            raise conflict
        except ConstraintError:
            pass  # a work function that swallows the failure and runs on
        raise TransactionError(None, "Transaction failed") from conflict

    with pytest.raises(ConstraintError) as info:
        _in_transaction(managed(FakeTx(failed=conflict), seen), work)
    assert info.value is conflict and seen == []


def test_a_server_error_the_drivers_rollback_replaced_is_raised_as_itself():
    # seen racing upserts before the fix above: a uniqueness conflict surfaced as
    # ResultFailedError, was not retried, and was reported as "Neo4j is unreachable"
    def execute(fn, *args):
        raise ResultFailedError(None, "The result has failed.") from ConstraintError("taken")

    with pytest.raises(ConstraintError):
        _in_transaction(execute, lambda tx: None)


def test_a_connection_not_handed_out_in_time_is_tried_once_more_then_reported():
    # seen once in CI on a loaded machine: one of 160 racing writes waited the driver's
    # 60 s for a new connection; the next attempt opens another
    starved = ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 60.0s")
    script = Script(starved)
    assert executor()._retrying(script, write=True) == "done"
    assert script.calls == 2
    with pytest.raises(Neo4jUnavailableError, match="failed to obtain a connection"):
        executor()._retrying(Script(starved, starved), write=False)


def test_an_unreachable_server_is_given_up_after_connection_timeout():
    script = Script(*[ServiceUnavailable("refused")] * 1000)
    started = time.monotonic()
    with pytest.raises(Neo4jUnavailableError, match="graphmem neo4j start"):
        executor(connection_timeout=0.5)._retrying(script, write=False)
    assert time.monotonic() - started < 1.0 and script.calls > 1


def test_the_unreachable_message_says_how_to_get_graphmem_on_path_and_export_the_connection():
    from graphmem._base.errors import NEO4J_HOW_TO

    assert "source .venv/bin/activate" in NEO4J_HOW_TO and ".venv/bin/graphmem" in NEO4J_HOW_TO
    assert 'eval "$(graphmem neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD' in NEO4J_HOW_TO


def test_a_uniqueness_conflict_is_retried_on_writes_only_and_a_bounded_number_of_times():
    assert executor()._retrying(Script(ConstraintError("taken")), write=True) == "done"
    with pytest.raises(ConflictError):
        executor()._retrying(Script(ConstraintError("taken")), write=False)
    script = Script(*[ConstraintError("taken")] * 10)
    with pytest.raises(ConflictError):
        executor(conflict_retries=2)._retrying(script, write=True)
    assert script.calls == 3


def test_an_async_embedder_failure_is_a_model_error_naming_it():
    import asyncio

    from graphmem import HashingEmbedder, ModelError
    from graphmem._base.embeddings import check_embedder

    class Down(HashingEmbedder):
        def embed_query(self, text):
            raise ConnectionError("embedding service down")

    checked = check_embedder(Down(64))
    with pytest.raises(ModelError, match="embedder Down") as info:
        asyncio.run(checked.aembed_query("x"))
    assert isinstance(info.value.__cause__, ConnectionError)
    assert len(asyncio.run(checked.aembed_documents(["fine"]))[0]) == 64  # what works still works
    assert check_embedder(checked) is checked and check_embedder(None) is None


def test_the_suites_server_check_reports_a_server_that_stopped_answering(tmp_path):
    # tests/neo4j_server.py starts the embedded Neo4j once more if the first stops
    # answering; what it reports must say why (seen once in a fresh-clone run)
    from graphmem._server.launcher import _free_port
    from tests.neo4j_server import Server, _lost

    (tmp_path / "neo4j.pid").write_text("999999999\n")
    (tmp_path / "neo4j.log").write_text("started\nstopping\n")
    port = _free_port()  # nothing listens on it
    report = _lost(Server(f"bolt://127.0.0.1:{port}", "neo4j", "x", "test"), {"GRAPHMEM_STATE_DIR": str(tmp_path)},
                   patience=0.3)
    assert "ServiceUnavailable" in report and f":{port}" in report
    assert "pid 999999999 gone" in report and "started | stopping" in report

