# Generated from graphmem/_async/llm.py by tools/unasync.py: do not edit.
# Edit the async source and run `python tools/unasync.py` to regenerate.
"""Structured calls to any langchain-core chat model, with bounded retries.

This file is generated from ``graphmem/_async/llm.py`` by ``tools/unasync.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from .._base.errors import InvalidInputError, ModelError
from .._base.observe import OFF, Observability, model_name
from .._learning.prompts import json_instructions
from .._learning.ratelimit import is_rate_limit, wait_for
from .._learning.usage import Tally, UsageCollector

M = TypeVar("M", bound=BaseModel)


class LlmCaller:
    """Asks a chat model for one pydantic object: ``with_structured_output`` when the model
    supports tool calling, otherwise JSON in the reply parsed against the schema. Every
    failure -- an exception from the model (timeouts, refusals, transport), output that is
    not JSON or does not fit the schema, or output the caller's ``check`` rejects -- is
    retried up to ``retries`` times, then raised as ``ModelError``. A rate-limit refusal
    (HTTP 429 or the provider's rate-limit error) is not one of those: the request waits
    (the provider's ``Retry-After``, else ``backoff`` seconds doubled per refusal, with
    jitter) and is asked again, up to ``rate_limit_retries`` times, without holding a slot.
    ``tally`` (a ``Tally`` the caller owns) gets one entry per request, the tokens each
    reply reports and the refusals, so one call's requests can be counted while others run
    concurrently. ``calls`` counts the requests made to models through this caller; at most
    ``concurrency`` are in flight."""

    def __init__(self, *, retries: int = 2, concurrency: int = 4, rate_limit_retries: int = 8,
                 backoff: float = 1.0, observe: Observability = OFF) -> None:
        if not isinstance(retries, int) or retries < 0:
            raise ValueError("retries must be a non-negative integer")
        self.retries = retries
        self.rate_limit_retries = rate_limit_retries
        self.backoff = backoff
        self.calls = 0
        self.observe = observe
        self._slots = threading.Semaphore(concurrency)

    def ask(
        self,
        llm: Any,
        schema: type[M],
        messages: list[tuple[str, str]],
        *,
        purpose: str,
        check: Callable[[M], None] | None = None,
        tally: Tally | None = None,
    ) -> M:
        runnable, structured = _runnable(llm, schema)
        prompt = messages if structured else _with_json_instructions(messages, schema)
        tally = Tally() if tally is None else tally
        model = model_name(llm)
        errors: list[str] = []
        refusals = 0
        while len(errors) <= self.retries:
            self.calls += 1
            tally.request()
            one = Tally()  # this request's tokens, for its span
            wait = None
            with self._slots:  # the span is the request itself: no queueing, no backoff in it
                with self.observe.span(f"chat {model}", {"gen_ai.operation.name": "chat", "gen_ai.request.model": model,
                                                         "graphmem.purpose": purpose}, client=True) as span:
                    try:
                        try:
                            out = runnable.invoke(prompt, config={"callbacks": [UsageCollector(one)]})
                        finally:
                            tally.merge(one)
                            _usage(self.observe, span, purpose, model, one)
                        parsed = out if isinstance(out, schema) else schema.model_validate(out)
                        if check is not None:
                            check(parsed)
                        return parsed
                    except Exception as exc:
                        self.observe.failed(span, exc)
                        if is_rate_limit(exc) and refusals < self.rate_limit_retries:
                            wait = wait_for(exc, refusals, self.backoff)
                            refusals += 1
                            tally.refused(wait)
                            span.set_attribute("graphmem.rate_limit.wait", wait)
                        else:
                            errors.append(f"{type(exc).__name__}: {_short(exc)}")
            if wait is not None:  # asked again after the wait, without holding a slot
                time.sleep(wait)
        raise ModelError(purpose, errors)


def _usage(observe: Observability, span: Any, purpose: str, model: str, one: Tally) -> None:
    """The tokens one request's reply reported, on its span and in the metrics."""
    if span.is_recording() and one.reported:
        span.set_attributes({"gen_ai.usage.input_tokens": one.input_tokens,
                             "gen_ai.usage.output_tokens": one.output_tokens})
    observe.model_request(purpose, model, one.input_tokens, one.output_tokens)


def check_llm(llm: Any, *, allow_none: bool = False) -> None:
    """Refuse, before anything is written, what cannot be a langchain-core chat model."""
    if llm is None:
        if not allow_none:
            raise InvalidInputError("llm", "a langchain-core chat model is required")
        return
    if not (hasattr(llm, "with_structured_output") and hasattr(llm, "invoke")):
        raise InvalidInputError("llm", f"must be a langchain-core chat model, got {type(llm).__name__}")


def _runnable(llm: Any, schema: type[BaseModel]) -> tuple[Any, bool]:
    try:
        return llm.with_structured_output(schema), True
    except NotImplementedError:
        from langchain_core.output_parsers import PydanticOutputParser

        return llm | PydanticOutputParser(pydantic_object=schema), False


def _with_json_instructions(messages: list[tuple[str, str]], schema: type[BaseModel]) -> list[tuple[str, str]]:
    role, content = messages[0]
    return [(role, content + "\n\n" + json_instructions(schema)), *messages[1:]]


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."
