"""What ``graphmem mcp --http`` logs, and why the bearer token is never in it.

The access log is graphmem's own: one line per request, written when its response ends, made
only of what the server itself decides: the client's socket address, the method if it is a
standard one (else ``[other method]``), the route the server serves (``/mcp``) or
``[other path]`` for any other target, the HTTP version, the status and the size of the body
sent. The request line as the client wrote it is never logged: a token put in the path, the
query, an absolute-form target (``POST http://host/mcp?token=...``) or the method, encoded or
not, has nowhere to go. (uvicorn's own access log, which printed the raw target, is off, and
so is its reading of ``X-Forwarded-For``, which would have put a header's text in the client
address.)

Every other line, uvicorn's and the MCP SDK's (a ``Host`` header it refuses, a session id it
does not know, a traceback), passes ``Redacted`` on its way out: the configured token is
replaced by ``[redacted]`` wherever it appears, as written or percent-encoded once or more
(``%74``, ``%2574``), in any case.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Collection, MutableMapping
from typing import Any

from ._mcp_http import App, Receive, Scope, Send

ACCESS_LOGGER = "graphmem.mcp.access"
METHODS = frozenset({"GET", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"})
OTHER_METHOD = "[other method]"
OTHER_PATH = "[other path]"
REDACTED = "[redacted]"
_VERSIONS = frozenset({"1.0", "1.1", "2"})


def token_pattern(token: str) -> re.Pattern[str]:
    """A pattern of ``token`` in any case with any of its characters percent-encoded, once or
    more (``%2574`` is ``%74`` encoded again), in either case of the hex digits."""
    return re.compile("".join(f"(?:{re.escape(ch)}|%(?:25)*{ord(ch):02x})" for ch in token), re.IGNORECASE)


class Redacted(logging.Filter):
    """Replaces the token, in any form ``token_pattern`` matches, in a record's message and
    traceback before any handler formats it."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.pattern = token_pattern(token)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: logging reports it as it would have
            message = str(record.msg)
        clean = self.pattern.sub(REDACTED, message)
        if clean != message:
            record.msg, record.args = clean, None
            record.__dict__.pop("color_message", None)  # uvicorn's coloured copy of the message
        for attribute in ("exc_text", "stack_info"):
            text = getattr(record, attribute, None)
            if text:
                setattr(record, attribute, self.pattern.sub(REDACTED, text))
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            if self.pattern.search(text):
                record.exc_info, record.exc_text = None, self.pattern.sub(REDACTED, text)
        return True


def redact_everywhere(token: str) -> None:
    """``Redacted`` on every handler that exists now (the root's, uvicorn's, the SDK's) and on
    logging's last resort; call it once logging is configured."""
    redacted = Redacted(token)
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    handlers = [h for lg in loggers for h in lg.handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if not any(isinstance(f, Redacted) for f in handler.filters):
            handler.addFilter(redacted)


def access_logger(level: str, token: str) -> logging.Logger:
    """The access log: standard output, uvicorn's layout (``INFO:     <line>``), at ``level``."""
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.setLevel(level.upper())
    logger.propagate = False
    if not logger.handlers:
        stdout = logging.StreamHandler(sys.stdout)
        stdout.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        logger.addHandler(stdout)
    for handler in logger.handlers:
        if not any(isinstance(f, Redacted) for f in handler.filters):
            handler.addFilter(Redacted(token))
    return logger


def access_line(scope: Scope, routes: Collection[str], status: int, size: int) -> tuple[str, tuple[Any, ...]]:
    """The access log's format and arguments for one request: nothing the client wrote but a
    method of ``METHODS`` and a path of ``routes``."""
    client = scope.get("client")
    where = f"{client[0]}:{client[1]}" if client else "-"
    method = scope.get("method")
    path = scope.get("path")
    version = scope.get("http_version")
    return '%s - "%s %s HTTP/%s" %d %d', (
        where, method if method in METHODS else OTHER_METHOD, path if path in routes else OTHER_PATH,
        version if version in _VERSIONS else "?", status, size)


class AccessLog:
    """ASGI middleware: one ``access_line`` per HTTP request, when its response ends (a
    streamed response, such as the event stream of ``GET /mcp``, when the stream closes)."""

    def __init__(self, app: App, routes: Collection[str], logger: logging.Logger) -> None:
        self.app = app
        self.routes = frozenset(routes)
        self.logger = logger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        response = {"status": 0, "size": 0}

        async def sent(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                response["status"] = int(message["status"])
            elif message["type"] == "http.response.body":
                response["size"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, sent)
        finally:
            if response["status"]:
                fmt, args = access_line(scope, self.routes, response["status"], response["size"])
                self.logger.info(fmt, *args)
