"""Extraction at the model's pace (issue 41): requests of concurrent ingests and turns run
at once but land in the order they were made, a provider's rate limit is waited out, the
tokens the model reports come back in the result, and a batch is split by tokens."""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

from langchain_core.messages import AIMessage

from graphmem import AsyncMemory, LearningSettings, Memory
from tests.fakes import PromptedChatModel, extraction, tool_answer
from tests.integration.helpers import utc

SCOPE = "crm/ana"
NOTHING_CONTRADICTS = tool_answer("Judgement", {"verdicts": []})


def lives_in(city: str) -> AIMessage:
    return extraction(entities=[{"name": "Ana", "type": "person", "aliases": []}], facts=[{
        "subject": "Ana", "predicate": "lives_in", "object": city, "object_is_entity": False,
        "text": f"Ana lives in {city}", "messages": [1], "single_valued": True}])


class Gate:
    """Holds one answer: ``wait`` marks the request as in flight (``started``), waits for
    ``after`` (other gates' events), then marks it answered (``done``)."""

    def __init__(self) -> None:
        self.started, self.done, self.after = threading.Event(), threading.Event(), []

    def wait(self, timeout: float) -> bool:
        self.started.set()
        ok = all(event.wait(timeout) for event in self.after)
        self.done.set()
        return ok


def moves(cities: list[str], *, hold: bool = False) -> PromptedChatModel:
    """A model that answers "I live in <city>" at once, or, with ``hold``, in the reverse of
    the order of ``cities``, every request in flight together: the last city is answered once
    every other one has been asked, and each other one once the city after it was answered."""
    gates = {city: Gate() for city in cities}
    if hold:
        gates[cities[-1]].after = [gates[c].started for c in cities[:-1]]
        for city, later in itertools.pairwise(cities):
            gates[city].after = [gates[later].done]

    def answer(prompt: str) -> tuple[Any, Any]:
        if "Messages:" not in prompt:
            return NOTHING_CONTRADICTS, 0.0
        city = next(c for c in cities if f"I live in {c}" in prompt)
        return lives_in(city), gates[city] if hold else 0.0

    return PromptedChatModel(answer=answer)


def said(city: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"I live in {city} now."}]


async def test_concurrent_ingests_of_a_scope_land_in_call_order_whatever_order_the_model_answers(
        neo4j, schema, embedder, tenant):
    # the first session's answer comes last: landed in arrival order, the later move would
    # be written first and the earlier one would not be superseded by it
    model = moves(["Paris", "Berlin"], hold=True)
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        first, second = await asyncio.gather(
            m.ingest(said("Paris"), scope=SCOPE, llm=model, session_id="s1", occurred_at=utc(2024, 1, 1)),
            m.ingest(said("Berlin"), scope=SCOPE, llm=model, session_id="s2", occurred_at=utc(2024, 3, 1)))
        [paris], [berlin] = first.facts, second.facts
        assert (paris.object, berlin.object) == ("Paris", "Berlin")
        assert model.peak == 2  # both requests were in flight together
        assert second.superseded == (paris.id,) and not first.superseded
        paris = await m.get(paris.id)
        assert paris.valid_to == utc(2024, 3, 1) and paris.created_at < berlin.created_at
        assert [f.object for f in await m.facts(scope=SCOPE, subject="Ana")] == ["Berlin"]


def test_after_turn_asks_for_turns_at_once_and_lands_them_in_turn_order(neo4j, schema, embedder, tenant):
    model = moves(["Paris", "Berlin", "Rome"], hold=True)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        for n, city in enumerate(["Paris", "Berlin", "Rome"]):
            memory.after_turn(said(city), scope=SCOPE, llm=model, session_id="chat", occurred_at=utc(2024, 1 + n, 1))
        turns = memory.await_extractions(timeout=60)
        assert [t.ok for t in turns] == [True] * 3
        assert model.peak == 3  # the later turns were asked before the first one had landed
        [paris], [berlin], [rome] = (t.extraction.facts for t in turns)
        assert [f.object for f in (paris, berlin, rome)] == ["Paris", "Berlin", "Rome"]
        assert turns[1].extraction.superseded == (paris.id,) and turns[2].extraction.superseded == (berlin.id,)
        assert paris.created_at < berlin.created_at < rome.created_at
        assert [f.object for f in memory.facts(scope=SCOPE, subject="Ana")] == ["Rome"]


class RateLimitError(Exception):
    """Shaped like the providers' errors: a class name and an HTTP status."""

    status_code = 429


def limited(refusals: int) -> PromptedChatModel:
    asked = []

    def answer(prompt: str) -> tuple[Any, float]:
        asked.append(prompt)
        if len(asked) <= refusals:
            return RateLimitError("Rate limit reached for requests"), 0.0
        return lives_in("Lisbon"), 0.0

    return PromptedChatModel(answer=answer)


def test_a_rate_limited_request_waits_and_is_asked_again(neo4j, schema, embedder, tenant):
    settings = LearningSettings(rate_limit_backoff=0.01, model_retries=0)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                learning=settings) as memory:
        result = memory.ingest(said("Lisbon"), scope=SCOPE, llm=limited(3))
        # three refusals do not use up the one attempt model_retries=0 leaves
        assert result.error is None and [f.object for f in result.facts] == ["Lisbon"]
        assert result.model_calls == 4
        assert any("refused 3 request(s) for its rate limit" in n for n in result.notes)

        stubborn = LearningSettings(rate_limit_backoff=0.01, rate_limit_retries=2, model_retries=0)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                learning=stubborn) as memory:
        result = memory.ingest(said("Lisbon"), scope="crm/other", llm=limited(10))
        assert result.model_calls == 3 and not result.facts and len(result.episodes) == 1
        assert "RateLimitError" in (result.error or "")


def test_the_tokens_the_model_reports_are_in_the_result(neo4j, schema, embedder, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as memory:
        model = moves(["Oslo"])
        model.usage = 40
        result = memory.ingest(said("Oslo"), scope=SCOPE, llm=model)
        [prompt] = model.prompts
        assert result.model_calls == 1
        assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.reported) == (len(prompt) // 4, 40, 1)
        assert result.usage.total_tokens == len(prompt) // 4 + 40

        turn = memory.after_turn(said("Bergen"), scope="crm/turn", llm=moves(["Bergen"]), session_id="t")
        silent = turn.result(timeout=60).extraction  # a model that reports no usage: zeros, and says so
        assert silent.model_calls == 1 and silent.usage.reported == 0 and silent.usage.total_tokens == 0


def test_a_batch_over_the_token_budget_goes_in_several_requests_and_a_long_message_in_pieces(
        neo4j, schema, embedder, tenant, driver):
    settings = LearningSettings(extraction_batch_tokens=500)  # 2,000 characters of messages a request
    short = [" ".join(f"{tag}{i}" for i in range(190)) for tag in ("a", "b", "c")]
    long = " ".join(f"w{i}" for i in range(1_000))  # three requests' worth
    assert all(800 < len(s) < 900 for s in short) and 4_500 < len(long) < 5_900

    def answer(prompt: str) -> tuple[Any, float]:
        if "Messages:" not in prompt:
            return NOTHING_CONTRADICTS, 0.0
        block = prompt.split("Messages:\n", 1)[1]
        first_word = block.split(": ", 1)[1].split()[0]
        return extraction(entities=[{"name": "Zed", "type": "person", "aliases": []}], facts=[{
            "subject": "Zed", "predicate": "wrote", "object": first_word, "object_is_entity": False,
            "text": f"Zed wrote a message starting with {first_word}", "messages": [1]}]), 0.0

    model = PromptedChatModel(answer=answer)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                learning=settings) as memory:
        messages = [{"role": "user", "content": text} for text in (*short, long)]
        result = memory.ingest(messages, scope=SCOPE, llm=model)
    blocks = [p.split("Messages:\n", 1)[1] for p in model.prompts if "Messages:" in p]
    assert all(len(b) <= 2_000 for b in blocks)
    # two short messages fit one request, the third its own; the long one in three pieces
    # (the requests are asked at once: the prompts come in any order)
    [ab] = [b for b in blocks if "a0 " in b]
    [c] = [b for b in blocks if "c0 " in b]
    assert ab.count("\n") + 1 == 2 and "b0 " in ab and c.count("\n") + 1 == 1
    assert len(blocks) == 5 and result.model_calls == len(model.prompts)
    assert all(long not in b for b in blocks) and all(w in "".join(blocks) for w in ("w0 ", "w600 ", "w999"))
    by_start = {f.object: f for f in result.facts}
    assert set(by_start) >= {"a0", "c0", "w0"} and len(result.facts) == 5
    long_episode = result.episodes[3].id
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {tenant: $t})-[:DERIVED_FROM]->(e:Episode) WHERE f.object STARTS WITH 'w' "
        "RETURN collect(DISTINCT e.id) AS episodes, count(f) AS facts", {"t": tenant})
    assert records[0]["episodes"] == [long_episode] and records[0]["facts"] == 3
