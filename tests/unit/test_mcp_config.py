"""The MCP server's configuration and scope confinement (graphmem/integrations/mcp.py);
no database. The server itself is tested in tests/integration/test_mcp.py."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone

import pytest

from graphmem import ConfigurationError, Fact, InvalidInputError
from graphmem._cli.main import main
from graphmem.integrations._mcp_support import Bounds, ServerConfig, record_line

ENV = {"GRAPHMEM_TENANT": "acme", "GRAPHMEM_SCOPE": "support/alice", "NEO4J_URI": "bolt://127.0.0.1:7999",
       "NEO4J_USER": "u", "NEO4J_PASSWORD": "s3cret-pw"}


def test_config_comes_from_the_environment_and_flags_win():
    config = ServerConfig.from_env(ENV)
    assert (config.tenant, config.scope, config.embedder, config.uri, config.user) == (
        "acme", "support/alice", "wordllama", "bolt://127.0.0.1:7999", "u")
    assert "s3cret-pw" not in repr(config)
    flagged = ServerConfig.from_env(ENV, tenant="other", scope="x", embedder="hashing", uri=None)
    assert (flagged.tenant, flagged.scope, flagged.embedder, flagged.uri) == ("other", "x", "hashing", "bolt://127.0.0.1:7999")


def test_the_user_id_comes_from_the_environment_or_the_flag():
    assert ServerConfig.from_env(ENV).user_id is None
    assert ServerConfig.from_env({**ENV, "GRAPHMEM_MCP_USER_ID": "maria"}).user_id == "maria"
    assert ServerConfig.from_env({**ENV, "GRAPHMEM_MCP_USER_ID": "maria"}, user_id="bob").user_id == "bob"


@pytest.mark.parametrize("change, words", [
    ({"GRAPHMEM_MCP_USER_ID": "bad\x00id"}, "user_id"),
    ({"GRAPHMEM_TENANT": ""}, "GRAPHMEM_TENANT"),
    ({"GRAPHMEM_SCOPE": ""}, "GRAPHMEM_SCOPE"),
    ({"GRAPHMEM_SCOPE": "a/../b"}, "'..'"),
    ({"GRAPHMEM_SCOPE": "/abs"}, "scope"),
    ({"GRAPHMEM_EMBEDDER": "openai"}, "embedder must be one of"),
])
def test_bad_configuration_is_refused(change, words):
    with pytest.raises(ConfigurationError, match=words):
        ServerConfig.from_env({**ENV, **change})


@pytest.mark.parametrize("sub, expected", [(None, "r/s"), ("", "r/s"), ("a", "r/s/a"), ("a/b", "r/s/a/b")])
def test_sub_scopes_are_relative_to_the_root(sub, expected):
    assert Bounds("r/s").scope(sub) == expected


@pytest.mark.parametrize("sub", ["..", "../x", "a/../../x", "/r/x", "a//b", "./a", "a/", " a"])
def test_no_sub_scope_leaves_the_root(sub):
    with pytest.raises(InvalidInputError) as info:
        Bounds("r/s").scope(sub)
    assert info.value.field == "scope"


def test_owned_and_inherited_scopes():
    bounds = Bounds("r/s")
    assert [bounds.owns(p) for p in ("r/s", "r/s/t", "r/st", "r", "r/x")] == [True, True, False, False, False]
    assert [bounds.inherits(p) for p in ("r", "r/s", "r/x", "q")] == [True, False, False, False]


def test_a_line_carries_id_structure_validity_and_scope():
    fact = Fact(id="f1", tenant="t", scope="r/s", text="Alice  moved\nto Berlin", subject="alice", predicate="lives_in",
                object="Berlin", valid_from=datetime(2023, 3, 1, tzinfo=timezone.utc),
                created_at=datetime(2024, 1, 1, tzinfo=timezone.utc), provenance="user")
    assert record_line(fact, score=0.8312) == ("- [fact f1] (0.83) Alice moved to Berlin (since 2023-03-01) | "
                                               "alice lives_in Berlin | user | scope r/s")


def test_the_cli_reports_missing_configuration(monkeypatch, capsys):
    for key in ("GRAPHMEM_TENANT", "GRAPHMEM_SCOPE"):
        monkeypatch.delenv(key, raising=False)
    assert main(["mcp", "--tenant", "acme"]) == 2
    assert "GRAPHMEM_SCOPE or --scope" in capsys.readouterr().err


def test_the_integrations_package_imports_no_framework():
    probe = "import sys, graphmem.integrations; print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'langgraph')))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_the_recall_tool_offers_every_kind_of_record():
    """An agent can keep notes, summaries, decisions or corrections, not only the first five kinds."""
    from typing import get_args

    from graphmem._base.kinds import KINDS
    from graphmem.integrations._mcp_tools import Kind

    assert sorted(get_args(Kind)) == sorted(KINDS)
