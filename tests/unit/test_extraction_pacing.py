"""The parts of extraction at the model's pace that need no server: requests sized by
tokens, rate-limit detection and waits, token tallies, lanes and jobs run ahead."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from graphmem import InvalidInputError, LearningSettings
from graphmem._learning import batches, ratelimit
from graphmem._learning.usage import Tally, TokenUsage, UsageCollector
from graphmem._working.ahead import Ahead, AsyncAhead
from graphmem._working.lanes import AsyncLanes, Lanes


def msgs(*lengths: int) -> list[dict]:
    return [{"role": "user", "content": "x" * n, "id": None} for n in lengths]


def test_messages_are_packed_into_requests_under_the_budget_in_order():
    parts = batches.parts(msgs(900, 900, 900, 100), ["e1", "e2", "e3", "e4"], 500)  # 2,000 characters
    assert [p.episode_ids for p in parts] == [["e1", "e2"], ["e3", "e4"]]
    assert [p.first for p in parts] == [0, 2]
    assert all(sum(len(m["content"]) + 16 for m in p.msgs) <= 2_000 for p in parts)


def test_a_message_over_the_budget_is_cut_at_whitespace_into_pieces_citing_it():
    text = " ".join(f"word{i}" for i in range(1_000))
    parts = batches.parts([{"role": "user", "content": "hi"}, {"role": "user", "content": text}], ["a", "b"], 500)
    assert [p.episode_ids for p in parts] == [["a"], ["b"], ["b"], ["b"], ["b"]]
    pieces = [p.msgs[0]["content"] for p in parts[1:]]
    assert all(len(p) <= 2_000 - 16 for p in pieces) and {p.pieces for p in parts[1:]} == {4}
    assert " ".join(pieces) == text  # nothing lost, no word split
    assert batches.cut("a" * 50, 20) == ["a" * 20, "a" * 20, "a" * 10]  # no whitespace: cut at the limit


def test_one_small_batch_is_one_request():
    assert len(batches.parts(msgs(30, 40, 50), ["1", "2", "3"], 8_000)) == 1


class RateLimitError(Exception):
    pass


class Response:
    def __init__(self, status: int, headers: dict) -> None:
        self.status_code, self.headers = status, headers


class HTTPError(Exception):
    def __init__(self, status: int, headers: dict | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.response = Response(status, headers or {})


def test_rate_limits_are_told_by_status_or_class_name_also_when_wrapped():
    assert ratelimit.is_rate_limit(RateLimitError("slow down"))
    assert ratelimit.is_rate_limit(HTTPError(429))
    assert not ratelimit.is_rate_limit(HTTPError(500))
    assert not ratelimit.is_rate_limit(TimeoutError("timed out"))
    try:
        try:
            raise HTTPError(429)
        except HTTPError as inner:
            raise RuntimeError("the provider refused") from inner
    except RuntimeError as outer:
        assert ratelimit.is_rate_limit(outer)


def test_the_wait_follows_retry_after_else_doubles_with_jitter_and_is_capped():
    assert ratelimit.wait_for(HTTPError(429, {"retry-after": "7"}), 0, 1.0) == 7.0
    assert ratelimit.wait_for(HTTPError(429, {"retry-after-ms": "250"}), 0, 1.0) == 0.25
    assert ratelimit.wait_for(HTTPError(429, {"retry-after": "3600"}), 0, 1.0) == ratelimit.MAX_WAIT
    rng = random.Random(3)
    waits = [ratelimit.wait_for(RateLimitError(), n, 1.0, rng) for n in range(8)]
    assert all(0.5 * min(60, 2 ** n) <= w <= min(60, 2 ** n) for n, w in enumerate(waits))
    assert max(waits) <= ratelimit.MAX_WAIT


def test_a_tally_sums_what_replies_report_and_ignores_what_they_do_not():
    tally = Tally()
    collector = UsageCollector(tally)
    reply = AIMessage(content="", usage_metadata={"input_tokens": 120, "output_tokens": 30, "total_tokens": 150})
    collector.on_llm_end(LLMResult(generations=[[ChatGeneration(message=reply)]]))
    collector.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage(content="no usage"))]]))
    tally.request()
    tally.refused(2.5)
    assert tally.usage() == TokenUsage(input_tokens=120, output_tokens=30, reported=1)
    assert tally.usage().total_tokens == 150 and len(tally) == 1
    assert tally.notes() == ["the model refused 1 request(s) for its rate limit; waited 2.5 s in all before retrying"]
    assert TokenUsage(input_tokens=1, reported=1) + TokenUsage(output_tokens=2, reported=1) == TokenUsage(
        input_tokens=1, output_tokens=2, reported=2)


@pytest.mark.parametrize("field, value", [
    ("rate_limit_retries", -1), ("rate_limit_backoff", -0.5), ("rate_limit_backoff", 120),
    ("extraction_batch_tokens", 100), ("max_concurrent_model_calls", 0),
])
def test_pacing_settings_are_checked(field, value):
    with pytest.raises(InvalidInputError) as caught:
        LearningSettings(**{field: value})
    assert caught.value.field == field


async def test_async_tickets_of_a_lane_go_in_the_order_they_were_taken():
    lanes = AsyncLanes()
    order: list[str] = []
    tickets = [lanes.ticket("a") for _ in range(3)]
    other = lanes.ticket("b")

    async def land(i: int, delay: float) -> None:
        await asyncio.sleep(delay)
        await tickets[i].turn()
        order.append(f"a{i}")
        tickets[i].done()

    async def elsewhere() -> None:
        await other.turn()  # another lane never waits for this one
        order.append("b")
        other.done()

    await asyncio.gather(land(0, 0.06), land(1, 0.03), land(2, 0.0), elsewhere())
    assert order == ["b", "a0", "a1", "a2"]
    assert lanes._tails == {}  # a finished lane leaves nothing behind
    tickets[0].done()  # done twice: nothing happens


def test_thread_tickets_of_a_lane_go_in_the_order_they_were_taken():
    lanes = Lanes()
    order: list[int] = []
    tickets = [lanes.ticket("a") for _ in range(4)]

    def land(i: int) -> None:
        time.sleep(0.02 * (4 - i))  # the last ticket's holder is ready first
        tickets[i].turn()
        order.append(i)
        tickets[i].done()

    threads = [threading.Thread(target=land, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2, 3] and lanes._tails == {}


async def test_async_jobs_run_at_once_and_come_back_in_order():
    started: list[int] = []

    def job(i: int, delay: float):
        async def run() -> int:
            started.append(i)
            await asyncio.sleep(delay)
            if i == 2:
                raise ValueError("job 2 failed")
            return i
        return run

    ahead = AsyncAhead([job(0, 0.05), job(1, 0.0), job(2, 0.0)])
    assert await ahead.take(0) == 0 and started == [0, 1, 2]
    assert await ahead.take(1) == 1
    with pytest.raises(ValueError, match="job 2"):
        await ahead.take(2)
    await ahead.close()


def test_thread_jobs_run_at_once_and_a_lone_job_runs_in_the_callers_thread():
    running = threading.Barrier(2, timeout=10)  # both must be running for either to finish

    def job(i: int):
        def run() -> int:
            running.wait()
            return i
        return run

    ahead = Ahead([job(0), job(1)])
    assert [ahead.take(0), ahead.take(1)] == [0, 1]
    ahead.close()
    lone = Ahead([threading.current_thread])
    assert lone.take(0) is threading.current_thread()
    lone.close()
