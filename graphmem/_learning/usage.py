"""What chat-model calls cost: the requests made and the tokens the model reported for them
(langchain-core's ``usage_metadata`` on the reply), collected per graphmem call while
other calls run concurrently, and the rate-limit refusals met on the way."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from pydantic import BaseModel, ConfigDict


class TokenUsage(BaseModel):
    """Tokens billed by the model for a graphmem call, as the model reported them.
    ``reported`` counts the requests whose reply carried usage (a model that reports none
    leaves every count at 0)."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    """Prompt tokens (the model's ``usage_metadata["input_tokens"]``), summed."""
    output_tokens: int = 0
    """Completion tokens (``usage_metadata["output_tokens"]``), summed."""
    reported: int = 0
    """How many requests reported their usage."""

    @property
    def total_tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(input_tokens=self.input_tokens + other.input_tokens,
                          output_tokens=self.output_tokens + other.output_tokens,
                          reported=self.reported + other.reported)


@dataclass
class Tally:
    """One graphmem call's model requests (retries included, as each is billed), the tokens reported, and the rate-limit refusals with the seconds
    waited for them. Requests of one call may run on several threads: updates are locked."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reported: int = 0
    rate_limited: int = 0
    waited: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __len__(self) -> int:
        return self.requests

    def request(self) -> None:
        with self._lock:
            self.requests += 1

    def usage_of(self, message: Any) -> None:
        """Add the usage a model's reply reports (nothing when it reports none)."""
        usage = getattr(message, "usage_metadata", None)
        if not isinstance(usage, dict):
            return
        with self._lock:
            self.input_tokens += _count(usage.get("input_tokens"))
            self.output_tokens += _count(usage.get("output_tokens"))
            self.reported += 1

    def merge(self, other: Tally) -> None:
        """Add the tokens ``other`` collected (one request's) to these."""
        with self._lock:
            self.input_tokens += other.input_tokens
            self.output_tokens += other.output_tokens
            self.reported += other.reported

    def refused(self, seconds: float) -> None:
        with self._lock:
            self.rate_limited += 1
            self.waited += seconds

    def usage(self) -> TokenUsage:
        return TokenUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens, reported=self.reported)

    def notes(self) -> list[str]:
        """A line for the result when the model's rate limit held requests back."""
        if not self.rate_limited:
            return []
        return [f"the model refused {self.rate_limited} request(s) for its rate limit; "
                f"waited {self.waited:.1f} s in all before retrying"]


class UsageCollector(BaseCallbackHandler):
    """A callback that hands every reply's ``usage_metadata`` to a ``Tally``. Run inline:
    it only adds numbers, so it needs no thread of its own."""

    run_inline = True

    def __init__(self, tally: Tally) -> None:
        super().__init__()
        self.tally = tally

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        for generations in getattr(response, "generations", None) or []:
            for generation in generations:
                self.tally.usage_of(getattr(generation, "message", None))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
