"""Scripted chat models built on langchain-core's own fakes (no network, no LLM)."""

from __future__ import annotations

import itertools
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

_ids = itertools.count()


def tool_answer(schema: str, args: dict[str, Any]) -> AIMessage:
    """A model reply that calls the structured-output tool ``schema`` with ``args``."""
    return AIMessage(content="", tool_calls=[{"name": schema, "args": args, "id": f"call-{next(_ids)}"}])


def extraction(entities: Any = (), facts: Any = (), profile: dict[str, Any] | None = None) -> AIMessage:
    """A model reply carrying an extraction (what ``ingest`` and ``after_turn`` ask for)."""
    args: dict[str, Any] = {"entities": list(entities), "facts": list(facts)}
    if profile is not None:
        args["profile"] = profile
    return tool_answer("Extraction", args)


class ScriptedChatModel(GenericFakeChatModel):
    """langchain-core's GenericFakeChatModel with tool binding, so
    ``with_structured_output`` runs its real tool-call parsing on the scripted replies.
    ``calls`` counts the requests the model received."""

    calls: int = 0

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super()._generate(*args, **kwargs)

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super()._generate(*args, **kwargs)


def scripted(*replies: AIMessage | str) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(replies))


class JsonChatModel(FakeListChatModel):
    """A model without tool calling that answers with text (graphmem asks it for JSON)."""

    calls: int = 0

    def _call(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        return super()._call(*args, **kwargs)
