"""Tool-argument errors as a model reads them, shared by the LangChain tools and the MCP server:
one clause per problem, each starting with the argument at fault, and none of pydantic's
"For further information visit https://errors.pydantic.dev/..." lines. No framework import."""

from __future__ import annotations

from pydantic import ValidationError

UNKNOWN_ARGUMENT = "not an argument of this tool (the application decides where memories live)"


def argument_errors(error: ValidationError, unknown: str = UNKNOWN_ARGUMENT) -> str:
    """``Invalid arguments: <field>: <problem>; ...`` for a tool call's ``ValidationError``;
    an argument the schema does not name gets ``unknown`` as its problem."""
    parts = []
    for e in error.errors(include_url=False):
        field = ".".join(str(p) for p in e.get("loc", ())) or "input"
        if e.get("type") == "extra_forbidden":
            parts.append(f"{field}: {unknown}")
        else:
            parts.append(f"{field}: {e.get('msg')}")
    return "Invalid arguments: " + "; ".join(parts)
