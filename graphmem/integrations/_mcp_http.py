"""Who may call ``graphmem mcp --http``: a bearer token and an Origin check, in front of the SDK.

Every HTTP request must carry ``Authorization: Bearer <token>``; the token is compared in
constant time before anything else runs (no MCP session is looked up, no body is read), and a
request without it gets 401. A request whose ``Origin`` header (browsers send one) is not the
server's own origin, ``http://127.0.0.1:<port>`` or ``http://localhost:<port>``, nor one the
operator allowed, gets 403: a web page on another port of this machine cannot drive the server.

The token comes from ``--token-file`` (a file only its owner may read), else from
``GRAPHMEM_MCP_TOKEN``, else from ``<state dir>/mcp-token``, which the first start creates
(mode 600, 43 random characters). The token is never printed or logged: the start message
names the file it is in, and what the server logs is in ``_mcp_log``.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._base.errors import ConfigurationError

TOKEN_VARIABLE = "GRAPHMEM_MCP_TOKEN"
ORIGINS_VARIABLE = "GRAPHMEM_MCP_ALLOWED_ORIGINS"
TOKEN_FILE = "mcp-token"
MIN_TOKEN_LENGTH = 16
MCP_PATH = "/mcp"  # the one route the server serves

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class HttpAccess:
    """The token every request must present and the origins a browser may call from."""

    token: str = field(repr=False)
    origins: frozenset[str]
    token_source: str  # where the token came from, for the start message (never the token)


def _checked_token(token: str, where: str) -> str:
    token = token.strip()
    if len(token) < MIN_TOKEN_LENGTH or not token.isascii() or not token.isprintable() or " " in token:
        raise ConfigurationError(f"graphmem mcp: the bearer token in {where} must be {MIN_TOKEN_LENGTH} or more "
                                 "printable ASCII characters without spaces")
    return token


def _read_token_file(path: Path) -> str:
    try:
        mode = path.stat().st_mode
        text = path.read_text()
    except OSError as exc:
        raise ConfigurationError(f"graphmem mcp: token_file: cannot read {path} ({exc.strerror})") from None
    if mode & 0o077:
        raise ConfigurationError(f"graphmem mcp: token_file: {path} may be read by other users (mode "
                                 f"{mode & 0o777:o}): `chmod 600 {path}`")
    return _checked_token(text, str(path))


def resolve_token(token_file: Path | None, state_dir: Path, environ: Mapping[str, str] | None = None,
                  say: Callable[[str], None] | None = None) -> tuple[str, str]:
    """(token, where it came from): ``token_file``, else ``GRAPHMEM_MCP_TOKEN``, else the state
    dir's ``mcp-token``, created with a new random token on first use (``say`` is told where)."""
    env = os.environ if environ is None else environ
    if token_file is not None:
        return _read_token_file(token_file), str(token_file)
    if env.get(TOKEN_VARIABLE):
        return _checked_token(env[TOKEN_VARIABLE], TOKEN_VARIABLE), TOKEN_VARIABLE
    path = state_dir / TOKEN_FILE
    if path.exists():
        return _read_token_file(path), str(path)
    from .._server.process import write_private

    state_dir.mkdir(parents=True, exist_ok=True)
    write_private(path, secrets.token_urlsafe(32) + "\n")
    (say or _stderr)(f"graphmem mcp: generated a bearer token in {path} (mode 600); MCP clients must send "
                     "`Authorization: Bearer <the file's content>`")
    return _read_token_file(path), str(path)


def _origin(value: str, where: str) -> str:
    """``scheme://host[:port]``, lower-case, as browsers send it; anything else is refused."""
    parts = urlsplit(value.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or port == -1 \
            or parts.query or parts.fragment or parts.username or parts.password:
        raise ConfigurationError(f"graphmem mcp: {where}: {value!r} is not an origin such as "
                                 "'http://127.0.0.1:3000' or 'https://app.example.com'")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def allowed_origins(port: int, extra: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The server's own origins on ``port`` plus ``extra`` (``--allow-origin``) and
    ``GRAPHMEM_MCP_ALLOWED_ORIGINS`` (comma-separated)."""
    env = os.environ if environ is None else environ
    own = {f"http://127.0.0.1:{port}", f"http://localhost:{port}"}
    given = [_origin(o, "allow_origin") for o in extra]
    given += [_origin(o, ORIGINS_VARIABLE) for o in env.get(ORIGINS_VARIABLE, "").split(",") if o.strip()]
    return frozenset(own | set(given))


class AccessGate:
    """ASGI middleware: 401 without the right bearer token, 403 for a foreign Origin, then the app."""

    def __init__(self, app: App, access: HttpAccess) -> None:
        self.app = app
        self.expected = f"bearer {access.token}".encode()
        self.origins = access.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan: the SDK's session manager starts here
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", ())}
        given = headers.get("authorization", b"")
        scheme, _, token = given.partition(b" ")
        if not hmac.compare_digest(scheme.lower() + b" " + token.strip(), self.expected):
            await _refuse(scope, send, 401, "a bearer token is required: send `Authorization: Bearer <token>` "
                          "(see docs/integrations.md#mcp-over-http)", {"www-authenticate": 'Bearer realm="graphmem"'})
            return
        origin = headers.get("origin")
        if origin is not None and origin.decode("latin-1").rstrip("/").lower() not in self.origins:
            await _refuse(scope, send, 403, "this Origin may not call the server (allow it with --allow-origin)")
            return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Send, status: int, message: str, extra: Mapping[str, str] | None = None) -> None:
    if scope["type"] == "websocket":  # closed before it is accepted: the client sees a 403
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def run_http(server: Any, *, port: int, access: HttpAccess) -> None:
    """Serve ``server`` (an ``MCPServer``) as streamable HTTP on 127.0.0.1:``port`` at ``/mcp``,
    behind ``AccessGate``; the SDK's own Host and Origin checks stay on, for this port only."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from ._mcp_log import AccessLog, access_logger, redact_everywhere

    # each origin also with a trailing slash, which the gate accepts too (the SDK compares exactly)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}"],
        allowed_origins=sorted({o for origin in access.origins for o in (origin, origin + "/")}))
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security, host="127.0.0.1")
    print(f"graphmem mcp: serving http://127.0.0.1:{port}{MCP_PATH}; bearer token from {access.token_source}",
          file=sys.stderr)
    # graphmem's own access line (_mcp_log: never the request line as sent); no X-Forwarded-For
    # (every client is local: a header's text would become the logged client address), no websockets
    level = server.settings.log_level
    gated = AccessLog(AccessGate(app, access), {MCP_PATH},
                      access_logger(level, access.token))
    config = uvicorn.Config(gated, host="127.0.0.1", port=port, log_level=level.lower(), access_log=False,
                            proxy_headers=False, ws="none")
    redact_everywhere(access.token)  # after Config, which configures uvicorn's loggers
    await uvicorn.Server(config).serve()


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)
