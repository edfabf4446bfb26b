"""The MCP HTTP server's logging (``graphmem.integrations._mcp_log``, issue 49.5): the token in
any form is redacted from a record, and the access line holds nothing the client wrote."""

from __future__ import annotations

import logging

import pytest

from graphmem.integrations._mcp_log import OTHER_METHOD, OTHER_PATH, Redacted, access_line, token_pattern

TOKEN = "Tok-9f_ZQ.a~b1234567890"


def percent(text: str, fmt: str = "%{:02x}") -> str:
    return "".join(fmt.format(ord(c)) for c in text)


@pytest.mark.parametrize("form", [
    TOKEN, TOKEN.upper(), TOKEN.lower(), percent(TOKEN), percent(TOKEN, "%{:02X}"), percent(TOKEN).replace("%", "%25"),
    percent(TOKEN).replace("%", "%2525"), TOKEN[:5] + percent(TOKEN[5:9]) + TOKEN[9:],
])
def test_every_form_of_the_token_is_found(form):
    assert token_pattern(TOKEN).fullmatch(form)


def test_other_text_is_left_alone():
    pattern = token_pattern(TOKEN)
    assert not pattern.search(TOKEN[:-1] + "_") and not pattern.search("/mcp?token=" + TOKEN[1:])


def record(msg: str, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("mcp", logging.WARNING, __file__, 1, msg, args or None, exc_info)


def test_a_record_loses_the_token_in_its_message_arguments_and_traceback():
    redacted = Redacted(TOKEN)
    line = record("Invalid Host header: %s", percent(TOKEN))
    assert redacted.filter(line) and line.getMessage() == "Invalid Host header: [redacted]"
    try:
        raise ValueError(f"bad target /mcp/{TOKEN}")
    except ValueError as exc:
        failed = record("Exception in ASGI application", exc=exc)
    redacted.filter(failed)
    text = logging.Formatter().format(failed)
    assert TOKEN not in text and "bad target /mcp/[redacted]" in text
    plain = record("Started server process [%d]", 42)
    redacted.filter(plain)
    assert plain.args == (42,) and plain.getMessage() == "Started server process [42]"  # untouched


def test_the_access_line_holds_only_what_the_server_decides():
    scope = {"client": ("127.0.0.1", 5000), "method": TOKEN, "path": f"/mcp/{TOKEN}", "http_version": "1.1",
             "query_string": f"token={TOKEN}".encode(), "raw_path": f"/mcp/{TOKEN}".encode()}
    fmt, args = access_line(scope, {"/mcp"}, 401, 118)
    assert fmt % args == f'127.0.0.1:5000 - "{OTHER_METHOD} {OTHER_PATH} HTTP/1.1" 401 118'
    fmt, args = access_line(dict(scope, method="POST", path="/mcp"), {"/mcp"}, 200, 579)
    assert fmt % args == '127.0.0.1:5000 - "POST /mcp HTTP/1.1" 200 579'
