"""Issue 28.5: ``graphmem mcp --http`` had no authentication (any local process could call it)
and accepted an Origin of ``localhost:<any port>``. Now every request needs the bearer token,
checked before the MCP session is looked up, and a browser Origin other than the server's own
(or one the operator allowed) is refused. Against a real server process on 127.0.0.1 and the
test Neo4j; what landed is counted by direct Cypher."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from urllib.parse import unquote

import httpx
import pytest

from graphmem.integrations._mcp_http import TOKEN_FILE, resolve_token
from tests.mcp_http import REPO, client, http_server

# make test-reliability: an MCP HTTP server of its own per test
pytestmark = [pytest.mark.long, pytest.mark.integration, pytest.mark.reliability]

ROOT = "acme/alice"
PROTOCOL = "2025-06-18"


def server_env(neo4j, tenant: str, **extra: str) -> dict[str, str]:
    env = {"NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password,
           "GRAPHMEM_TENANT": tenant, "GRAPHMEM_SCOPE": ROOT, **extra}
    return env


class Raw:
    """JSON-RPC over plain HTTP, to see the status codes an SDK client hides."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.session: dict[str, str] = {}
        self.calls = 0

    def post(self, message: dict, *, token: str | None, **headers: str) -> httpx.Response:
        sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                **self.session, **headers}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return httpx.post(self.url, headers=sent, content=json.dumps(message), timeout=60)

    def open(self, token: str) -> None:
        """An MCP session, as a client opens one: initialize, then initialized."""
        done = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}},
            token=token)
        assert done.status_code == 200, done.text
        self.session = {"mcp-session-id": done.headers["mcp-session-id"], "mcp-protocol-version": PROTOCOL}
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, token=token).status_code == 202

    def remember(self, text: str, *, token: str | None, **headers: str) -> httpx.Response:
        self.calls += 1
        return self.post({"jsonrpc": "2.0", "id": self.calls, "method": "tools/call",
                          "params": {"name": "remember", "arguments": {"text": text}}}, token=token, **headers)


def result(response: httpx.Response) -> dict:
    """The JSON-RPC result of a streamable-HTTP response (an SSE event)."""
    assert response.status_code == 200, (response.status_code, response.text)
    [data] = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data)["result"]


def texts(driver, tenant: str) -> list[str]:
    records, _, _ = driver.execute_query("MATCH (n:Memory {tenant: $t}) RETURN n.text AS text ORDER BY text", {"t": tenant})
    return [r["text"] for r in records]


def test_no_token_or_a_wrong_one_gets_401_and_writes_nothing(neo4j, schema, driver, tenant):
    token = "tok-" + uuid.uuid4().hex
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token)) as (port, _):
        raw = Raw(port)
        refused = raw.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}, token=None)
        assert refused.status_code == 401 and "mcp-session-id" not in refused.headers
        assert refused.headers["www-authenticate"].startswith("Bearer")
        raw.open(token)  # a real session exists: the token is still needed for every request on it
        for attempt in (None, "wrong-" + uuid.uuid4().hex, token[:-1], token + "x", token.upper()):
            response = raw.remember(f"planted with {attempt}", token=attempt)
            assert response.status_code == 401, response.text
            assert "bearer token is required" in response.json()["error"]
        for headers in ({"Authorization": f"Basic {token}"}, {"Authorization": token}, {"Authorization": ""}):
            assert raw.remember("planted without the scheme", token=None, **headers).status_code == 401
        for method in ("GET", "DELETE"):  # the event stream and session end are guarded too
            assert httpx.request(method, raw.url, headers=raw.session, timeout=60).status_code == 401
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=60).status_code == 401  # before any routing
        assert texts(driver, tenant) == []
        stored = result(raw.remember("Alice's token-guarded fact", token=token))
        assert not stored["isError"] and "remembered" in stored["content"][0]["text"]
        assert result(raw.remember("Alice's second fact", token=None, Authorization=f"bearer {token}"))["isError"] is False
        assert texts(driver, tenant) == ["Alice's second fact", "Alice's token-guarded fact"]


async def test_the_sdk_client_works_with_the_token(neo4j, schema, driver, tenant):
    token = "tok-" + uuid.uuid4().hex
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token)) as (port, _):
        async with client(port, token) as mcp:
            out = await mcp.call_tool("remember", {"text": "Alice likes the SDK client"})
            assert not out.is_error
        assert texts(driver, tenant) == ["Alice likes the SDK client"]


def test_only_the_servers_own_origin_and_allowed_ones_pass(neo4j, schema, driver, tenant):
    token = "tok-" + uuid.uuid4().hex
    allowed = "http://127.0.0.1:3000"
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token), "--allow-origin", allowed) as (port, _):
        raw = Raw(port)
        raw.open(token)
        foreign = [f"http://localhost:{port + 1}", f"http://127.0.0.1:{port + 1}", "http://127.0.0.1:3001",
                   f"https://127.0.0.1:{port}", "http://evil.example", f"http://evil.example:{port}", "null"]
        for origin in foreign:
            response = raw.remember(f"planted from {origin}", token=token, Origin=origin)
            assert response.status_code == 403, (origin, response.text)
        assert texts(driver, tenant) == []
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", allowed):
            assert result(raw.remember(f"from {origin}", token=token, Origin=origin))["isError"] is False
        assert raw.remember("no token, own origin", token=None, Origin=f"http://127.0.0.1:{port}").status_code == 401
        assert texts(driver, tenant) == sorted(f"from {o}" for o in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", allowed))


def test_a_token_in_the_url_is_refused_and_never_logged(neo4j, schema, driver, tenant):
    """Issue 43.6: ``POST /mcp?token=<token>`` was refused but the access log printed the
    URL, token and all."""
    token = "tok-" + uuid.uuid4().hex
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token)) as (port, process):
        leaked = httpx.post(f"http://127.0.0.1:{port}/mcp?token={token}", timeout=60, content=b"{}",
                            headers={"Content-Type": "application/json"})
        assert leaked.status_code == 401
        raw = Raw(port)
        raw.open(token)  # a request that passes is logged too
    assert token not in process.stderr_text
    # the access line names the route, never the query (issue 49.5: it used to print /mcp?[redacted])
    assert '"POST /mcp HTTP/1.1" 401 ' in process.stderr_text and '"POST /mcp HTTP/1.1" 200 ' in process.stderr_text
    assert not any("/mcp?" in line for line in process.stderr_text.splitlines() if '"POST ' in line)


def test_an_origin_with_a_trailing_slash_passes_both_checks(neo4j, schema, driver, tenant):
    """Issue 43.6: graphmem's gate accepted ``http://127.0.0.1:PORT/`` but the SDK's own
    Origin check refused it."""
    token = "tok-" + uuid.uuid4().hex
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token)) as (port, _):
        raw = Raw(port)
        raw.open(token)
        assert result(raw.remember("from the slash", token=token, Origin=f"http://127.0.0.1:{port}/"))["isError"] is False
        assert raw.remember("from afar", token=token, Origin="http://evil.example/").status_code == 403
    assert texts(driver, tenant) == ["from the slash"]


def test_a_first_start_makes_a_private_token_file_and_prints_only_its_path(neo4j, schema, driver, tenant, tmp_path):
    state = tmp_path / "state"
    with http_server(server_env(neo4j, tenant, GRAPHMEM_STATE_DIR=str(state))) as (port, process):
        token_file = state / TOKEN_FILE
        token = token_file.read_text().strip()
        assert token_file.stat().st_mode & 0o777 == 0o600 and len(token) >= 40
        raw = Raw(port)
        assert raw.remember("no token", token=None).status_code == 401
        raw.open(token)
        assert result(raw.remember("Alice's fact via the generated token", token=token))["isError"] is False
    assert str(token_file) in process.stderr_text and token not in process.stderr_text
    assert resolve_token(None, state, environ={}, say=pytest.fail) == (token, str(token_file))  # reused, silently
    assert texts(driver, tenant) == ["Alice's fact via the generated token"]


@pytest.mark.parametrize(("setup", "message"), [
    ("loose-file", "chmod 600"),
    ("short-token", "GRAPHMEM_MCP_TOKEN"),
    ("bad-origin", "allow_origin"),
])
def test_unsafe_access_settings_refuse_to_start(tmp_path, setup, message):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(GRAPHMEM_TENANT="t", GRAPHMEM_SCOPE=ROOT, GRAPHMEM_STATE_DIR=str(tmp_path / "state"))
    args = ["--http", "--port", "1"]
    if setup == "loose-file":
        loose = tmp_path / "token"
        loose.write_text("a-long-enough-token-value\n")
        loose.chmod(0o644)
        args += ["--token-file", str(loose)]
    elif setup == "short-token":
        env["GRAPHMEM_MCP_TOKEN"] = "short"
    else:
        args += ["--allow-origin", "127.0.0.1:3000/path"]
    done = subprocess.run([sys.executable, "-m", "graphmem._cli", "mcp", *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "a-long-enough-token-value" not in done.stderr
    assert not (tmp_path / "state" / TOKEN_FILE).exists()


def raw_request(port: int, request: bytes) -> bytes:
    """``request`` sent as bytes on a new connection, the response read until the server closes it
    (every request says ``Connection: close``) or 10 s pass."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except TimeoutError:
            pass
    return b"".join(chunks)


def encoded(text: str, *, upper: bool = False, times: int = 1) -> str:
    """Every character of ``text`` percent-encoded ``times`` over (``%74``, ``%2574``...)."""
    out = "".join(f"%{ord(c):02X}" if upper else f"%{ord(c):02x}" for c in text)
    for _ in range(times - 1):
        out = out.replace("%", "%25")
    return out


def test_the_token_is_in_no_log_line_whatever_form_the_request_takes(neo4j, schema, driver, tenant):
    """Issue 49.5: the access log printed the raw request target, so a token in an absolute-form
    target (``POST http://127.0.0.1:PORT/mcp?token=...``), in the path (``/mcp/<token>``) or
    percent-encoded (``/mcp%3Ftoken%3D<token>``) landed in it; and the SDK logs a Host header or
    session id it refuses. Now the access line holds only what the server decides (method, the
    route or a placeholder, status, size), and every other line has the token redacted in any
    form. The log is checked as written and decoded up to three times over, in any case."""
    token = "tok-" + uuid.uuid4().hex
    bearer = f"Authorization: Bearer {token}\r\n"
    with http_server(server_env(neo4j, tenant, GRAPHMEM_MCP_TOKEN=token)) as (port, process):
        here = f"127.0.0.1:{port}"

        def send(method: str, target: str, *headers: str, host: str = here) -> bytes:
            head = f"{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n" \
                   f"Accept: application/json, text/event-stream\r\n{''.join(headers)}Content-Length: 2\r\n" \
                   "Connection: close\r\n\r\n{}"
            return raw_request(port, head.encode("latin-1"))

        answers = [
            send("POST", f"http://{here}/mcp?token={token}"),  # absolute form
            send("POST", f"http://{here}/mcp/{token}"),
            send("POST", f"/mcp/{token}"),  # in the path
            send("POST", f"/mcp%3Ftoken%3D{token}"),  # percent-encoded
            send("POST", f"/mcp?token={encoded(token)}"),
            send("POST", f"/mcp/{encoded(token, upper=True)}"),
            send("POST", f"/mcp%253Ftoken%253D{encoded(token, times=2)}"),  # double-encoded
            send("POST", f"/mcp?Authorization=Bearer%20{token}"),  # a header as a query parameter
            send("POST", f"/mcp?access_token={token}&x=1"),
            send("POST", f"/mcp;token={token}"),
            send(token, "/mcp"),  # the token as the method
            send("POST", "/mcp", f"X-Forwarded-For: {token}\r\n"),  # a client address the server would trust
            send("POST", f"/mcp?token={token}", bearer),  # the token, also where it does not belong
            send("POST", f"/other/{token}", bearer),
            send("POST", "/mcp", bearer, host=token),  # the SDK logs a Host it refuses
            send("POST", "/mcp", bearer, f"mcp-session-id: {token}\r\n"),  # ... and a session id it does not know
        ]
        statuses = [a.split(b" ", 2)[1] for a in answers]
        raw = Raw(port)
        raw.open(token)  # a request that passes is logged too
    assert statuses[:12] == [b"401"] * 12, statuses  # without the bearer header nothing passes
    assert statuses[12] == b"200" or statuses[12].startswith(b"4"), statuses  # reached the SDK
    log = process.stderr_text
    for decoded in range(4):
        assert token.lower() not in log.lower(), (decoded, log)
        log = unquote(log)
    lines = process.stderr_text.splitlines()
    assert any('"POST /mcp HTTP/1.1" 200' in line for line in lines)  # the route the server serves
    # targets other than /mcp (the absolute forms, the path, the encoded ones, the ;param) by a placeholder
    assert sum('"POST [other path] HTTP/1.1" 401 ' in line for line in lines) == 7, process.stderr_text
    assert sum('"POST /mcp HTTP/1.1" 401 ' in line for line in lines) == 4, process.stderr_text  # a query is never logged
    assert sum('"[other method] /mcp HTTP/1.1" 401 ' in line for line in lines) == 1, process.stderr_text
    assert "[redacted]" in process.stderr_text  # the SDK's own lines about the Host and the session id
    assert texts(driver, tenant) == []
