"""Scripted chat models built on langchain-core's own fakes (no network, no LLM)."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

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


class PromptedChatModel(BaseChatModel):
    """Answers each request from its prompt: ``answer(prompt)`` (the request's message
    texts joined) returns ``(reply, delay)``, the reply an ``AIMessage`` (or an exception
    to raise) given after ``delay`` seconds, or once ``delay`` (a ``threading.Event``) is
    set, so answers can arrive out of the order asked.
    Records the requests (``prompts``) and the most in flight at once (``peak``); with
    ``usage``, each reply reports ``usage_metadata`` of ``len(prompt) // 4`` input and
    ``usage`` output tokens."""

    answer: Any
    usage: int | None = None
    prompts: list[str] = Field(default_factory=list)
    in_flight: int = 0
    peak: int = 0

    @property
    def _llm_type(self) -> str:
        return "prompted-fake"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self

    def _reply(self, messages: list[Any]) -> tuple[Any, Any]:
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        reply, delay = self.answer(prompt)
        if self.usage is not None and isinstance(reply, AIMessage):
            reply = reply.model_copy(update={"usage_metadata": {
                "input_tokens": len(prompt) // 4, "output_tokens": self.usage,
                "total_tokens": len(prompt) // 4 + self.usage}})
        return reply, delay

    def _result(self, reply: Any) -> ChatResult:
        if isinstance(reply, BaseException):
            raise reply
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        reply, delay = self._reply(messages)
        with _flight_lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            if hasattr(delay, "wait"):
                assert delay.wait(30), "the answer's event was never set"
            else:
                time.sleep(delay)
        finally:
            with _flight_lock:
                self.in_flight -= 1
        return self._result(reply)

    async def _agenerate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        reply, delay = self._reply(messages)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            if hasattr(delay, "wait"):
                assert await asyncio.to_thread(delay.wait, 30), "the answer's event was never set"
            else:
                await asyncio.sleep(delay)
        finally:
            self.in_flight -= 1
        return self._result(reply)


_flight_lock = threading.Lock()
