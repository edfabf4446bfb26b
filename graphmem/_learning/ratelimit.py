"""Whether a chat model's error is its provider's rate limit, and how long to wait before
asking again: the provider's ``Retry-After`` when it sends one, else an exponential backoff
with jitter (so that concurrent callers refused together do not all come back together)."""

from __future__ import annotations

import random
from typing import Any

MAX_WAIT = 60.0
"""No single wait is longer than this many seconds, whatever the provider asks."""

_NAMES = ("ratelimit", "resourceexhausted", "toomanyrequests", "throttl")
"""Words in the exception class names providers raise for a rate limit (OpenAI's and
Anthropic's ``RateLimitError``, Google's ``ResourceExhausted``, Bedrock's
``ThrottlingException``...), lower case."""


def is_rate_limit(exc: BaseException) -> bool:
    """True for a rate-limit refusal: an HTTP 429 on the error (or its response), or an
    exception class named for it, on the error or what it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _status(current) == 429:
            return True
        if any(word in cls.__name__.lower() for cls in type(current).__mro__ for word in _NAMES):
            return True
        current = current.__cause__ or current.__context__
    return False


def wait_for(exc: BaseException, attempt: int, first: float, rng: random.Random | None = None) -> float:
    """Seconds to wait before the ``attempt``-th retry (0 for the first) of a rate-limited
    request: the provider's ``retry-after-ms`` / ``retry-after`` header when it gives a
    number, else ``first`` doubled per attempt, with jitter between half and all of it;
    never more than ``MAX_WAIT``."""
    hinted = _retry_after(exc)
    if hinted is not None:
        return min(MAX_WAIT, hinted)
    base = min(MAX_WAIT, first * 2.0 ** min(attempt, 16))
    jitter = rng.uniform(0.5, 1.0) if rng is not None else random.uniform(0.5, 1.0)
    return base * jitter


def _status(exc: BaseException) -> Any:
    for owner in (exc, getattr(exc, "response", None)):
        for name in ("status_code", "status", "http_status", "code"):
            value = getattr(owner, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None or not hasattr(headers, "get"):
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name))
        except (TypeError, ValueError):
            continue
        if value >= 0:
            return value * scale
    return None
