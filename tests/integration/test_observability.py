"""OpenTelemetry on a real Neo4j (issue 42), read back through the SDK's in-memory
exporters: the span tree of recall, remember, ingest with a recorded model (its tokens on
the model's span), after_turn's background work in the turn's trace, an error's span, the
metrics; and no memory text, question or user id in any attribute unless asked for."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from graphmem import InvalidInputError, Memory, Observability
from tests.fakes import PromptedChatModel, extraction, tool_answer

SCOPE = "acme/support"
SECRET = "Zanzibar"  # a word of every text, question and id these tests give: never in telemetry by default
USER = f"user-{SECRET.lower()}"


class Telemetry:
    """An SDK tracer and meter provider with in-memory exporters."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def observability(self, **kwargs: Any) -> Observability:
        return Observability(tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs)

    def spans(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.parent is not None and s.parent.span_id == parent.context.span_id]

    def metrics(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    out.setdefault(metric.name, []).extend(metric.data.data_points)
        return out

    def total(self, metric: str, **labels: Any) -> float:
        return sum(getattr(p, "value", None) if hasattr(p, "value") else p.count
                   for p in self.metrics().get(metric, []) if labels.items() <= dict(p.attributes).items())


@pytest.fixture
def otel():
    return Telemetry()


@pytest.fixture
def observed(neo4j, schema, embedder, tenant, otel):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                observability=otel.observability()) as memory:
        yield memory


def model(usage: int | None = 9) -> PromptedChatModel:
    """A recorded extraction model that reports its tokens (input: prompt length / 4; none
    with ``usage=None``)."""

    def answer(prompt: str) -> tuple[Any, float]:
        if "Messages:" not in prompt:
            return tool_answer("Judgement", {"verdicts": []}), 0.0
        return extraction(entities=[{"name": "Ana", "type": "person", "aliases": []}], facts=[{
            "subject": "Ana", "predicate": "lives_in", "object": SECRET, "object_is_entity": False,
            "text": f"Ana lives in {SECRET}", "messages": [1], "single_valued": True}]), 0.0

    return PromptedChatModel(answer=answer, usage=usage)


def test_a_recall_is_a_span_with_its_embedding_and_its_statement(observed, otel):
    observed.remember(f"Ana moved to {SECRET} in May", scope=SCOPE)
    observed.remember("Ana has two cats", scope=SCOPE)
    otel.exporter.clear()
    found = observed.recall(f"Where did Ana move, {SECRET}?", scope=SCOPE, k=5, kinds=["fact"])
    [recall] = otel.named("graphmem.recall")
    attributes = dict(recall.attributes or {})
    assert attributes["graphmem.tenant"] == observed.tenant and attributes["graphmem.scope.depth"] == 2
    assert attributes["graphmem.k"] == 5 and attributes["graphmem.kinds"] == ("fact",)
    assert attributes["graphmem.returned"] == len(found) >= 1
    assert attributes["graphmem.candidates.semantic"] >= 1 and attributes["graphmem.candidates.lexical"] >= 1
    assert {"semantic", "lexical"} <= set(attributes["graphmem.signals"])
    kids = {s.name: s for s in otel.children(recall)}
    embedding = next(s for name, s in kids.items() if name.startswith("embeddings "))
    assert embedding.attributes["gen_ai.operation.name"] == "embeddings"
    assert embedding.attributes["gen_ai.embeddings.dimension.count"] == observed._store.embedder.dimensions
    statement = next(s for name, s in kids.items() if name.startswith("recall"))
    assert statement.attributes["db.system.name"] == "neo4j"
    assert statement.attributes["db.operation.name"] == statement.name
    assert statement.attributes["db.response.returned_rows"] >= 1
    assert statement.attributes["server.address"] == "127.0.0.1"
    assert otel.total("graphmem.operation.duration", **{"graphmem.operation": "graphmem.recall"}) == 1
    assert otel.total("db.client.operation.duration", **{"db.operation.name": statement.name}) == 1


def test_a_call_a_service_answers_is_one_span_with_the_tenant(observed, otel):
    """``counts`` is handed by the front door to a service (``AsyncGraph``): still one span
    named for the public call, its statement under it, the tenant on it."""
    observed.remember("Ana has two cats", scope=SCOPE)
    otel.exporter.clear()
    assert observed.counts(scope=SCOPE)[0]["total"] == 1
    [counts] = otel.named("graphmem.counts")
    assert counts.attributes["graphmem.tenant"] == observed.tenant and "graphmem.nested" not in counts.attributes
    assert [s.name for s in otel.children(counts)] == ["memory_stats"]
    assert otel.total("graphmem.operation.duration", **{"graphmem.operation": "graphmem.counts"}) == 1


def test_a_remember_is_a_span_over_its_writes_and_counts_what_it_wrote(observed, otel):
    otel.exporter.clear()
    observed.remember(f"Ana moved to {SECRET}", scope=SCOPE)
    [remember] = otel.named("graphmem.remember")
    names = [s.name for s in otel.children(remember)]
    assert "fact_create" in names and any(n.startswith("embeddings ") for n in names)
    assert otel.total("graphmem.memories.written", **{"graphmem.kind": "fact"}) == 1
    observed.remember(f"Ana moved to {SECRET}", scope=SCOPE)  # a duplicate: returned, not written
    assert otel.total("graphmem.memories.written", **{"graphmem.kind": "fact"}) == 1


def test_ingest_with_a_model_puts_its_tokens_on_the_model_span(observed, otel):
    llm = model(usage=9)
    result = observed.ingest([{"role": "user", "content": f"I live in {SECRET} now."}], scope=SCOPE, llm=llm)
    assert result.usage.output_tokens >= 9
    [ingest] = otel.named("graphmem.ingest")
    assert ingest.attributes["graphmem.messages"] == 1 and ingest.attributes["graphmem.facts"] == 1
    assert ingest.attributes["graphmem.output_tokens"] == result.usage.output_tokens
    chats = [s for s in otel.spans() if s.name.startswith("chat ")]
    assert chats and all(s.context.trace_id == ingest.context.trace_id for s in chats)
    first = chats[0]
    assert first.attributes["gen_ai.operation.name"] == "chat" and first.attributes["graphmem.purpose"]
    assert first.attributes["gen_ai.usage.output_tokens"] == 9
    assert first.attributes["gen_ai.usage.input_tokens"] == len(llm.prompts[0]) // 4
    assert sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats) == result.usage.input_tokens
    assert otel.total("graphmem.model.tokens", **{"gen_ai.token.type": "output"}) == result.usage.output_tokens
    assert otel.total("graphmem.model.requests") == len(llm.prompts)
    assert otel.total("graphmem.memories.written", **{"graphmem.kind": "episode"}) == 1


def test_after_turn_s_background_work_stays_in_the_turn_s_trace(observed, otel):
    handle = observed.after_turn([{"role": "user", "content": f"I live in {SECRET} now."}], scope=SCOPE, llm=model())
    assert handle.result(timeout=60).ok
    [turn] = otel.named("graphmem.after_turn")
    [background] = otel.named("graphmem.after_turn.background")
    assert background.context.trace_id == turn.context.trace_id
    assert background.parent is not None and background.parent.span_id == turn.context.span_id
    assert background.attributes["graphmem.ok"] is True and background.attributes["graphmem.episodes"] == 1
    under = {s.name for s in otel.spans() if s.context.trace_id == turn.context.trace_id}
    assert any(n.startswith("chat ") for n in under) and "fact_create" in under and "episode_create" in under


def test_async_memory_spans_and_its_background_work_too(neo4j, schema, embedder, tenant, otel):
    import asyncio

    from graphmem import AsyncMemory

    async def run() -> None:
        async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                               observability=otel.observability()) as memory:
            handle = await memory.after_turn([{"role": "user", "content": "I live in Oslo now."}], scope=SCOPE,
                                             llm=model())
            assert (await handle.result(timeout=60)).ok
            await memory.recall("Where does Ana live?", scope=SCOPE)

    asyncio.run(run())
    [turn] = otel.named("graphmem.after_turn")
    [background] = otel.named("graphmem.after_turn.background")
    assert background.context.trace_id == turn.context.trace_id
    assert otel.named("graphmem.recall")


def test_a_failed_call_is_an_error_span_with_its_class(observed, otel):
    with pytest.raises(InvalidInputError):
        observed.recall("anything", scope=SCOPE, k=0)
    [recall] = otel.named("graphmem.recall")
    assert recall.status.status_code is StatusCode.ERROR
    assert recall.attributes["error.type"] == "InvalidInputError" and recall.attributes["graphmem.error.field"] == "k"
    assert "graphmem.error.message" not in recall.attributes  # the message may quote input
    assert otel.total("graphmem.errors", **{"error.type": "InvalidInputError"}) == 1


def _everything(memory: Memory) -> None:
    """Calls whose arguments all carry SECRET: texts, question, user id, scope path."""
    scope = f"acme/{SECRET.lower()}"
    fact = memory.remember(f"Ana moved to {SECRET}", scope=scope, user_id=USER)
    memory.recall(f"Who lives in {SECRET}?", scope=scope, user_id=USER)
    memory.context(f"What about {SECRET}?", scope=scope)
    memory.ingest([{"role": "user", "name": SECRET, "content": f"I live in {SECRET} now."}], scope=scope, llm=model(),
                  user_id=USER)
    memory.after_turn([{"role": "user", "content": f"{SECRET} is lovely"}], scope=scope, llm=model(),
                      user_id=USER).result(timeout=60)
    memory.correct(fact.id, f"Ana moved to {SECRET} City")
    with pytest.raises(InvalidInputError):
        memory.remember(f"{SECRET} " * 10, scope=scope, importance=7)
    memory.erase(user_id=USER)


def _strings(otel: Telemetry) -> list[str]:
    seen: list[str] = []
    for span in otel.spans():
        seen += [span.name, *(str(v) for v in (span.attributes or {}).values())]
        seen += [str(v) for event in span.events for v in (event.attributes or {}).values()]
        seen.append(span.status.description or "")
    for points in otel.metrics().values():
        seen += [str(v) for p in points for v in dict(p.attributes).values()]
    return seen


def test_no_text_question_or_user_id_in_any_attribute_unless_asked(neo4j, schema, embedder, tenant, otel):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                observability=otel.observability()) as memory:
        _everything(memory)
    seen = _strings(otel)
    assert len(otel.spans()) > 40 and {"graphmem.recall", "graphmem.ingest", "graphmem.erase"} <= set(seen)
    assert [s for s in seen if SECRET.lower() in s.lower()] == []

    asked = Telemetry()  # the same calls, content on: the search above would have seen it
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-content", embedder=embedder,
                observability=asked.observability(record_content=True)) as memory:
        _everything(memory)
    shown = [s for s in _strings(asked) if SECRET.lower() in s.lower()]
    assert f"Who lives in {SECRET}?" in shown and USER in shown


def test_a_memory_without_observability_records_nothing(neo4j, schema, embedder, tenant, otel):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                observability=Observability(tracer_provider=otel.tracer_provider, enabled=False)) as memory:
        memory.remember("Ana has two cats", scope=SCOPE)
        memory.recall("cats?", scope=SCOPE)
    assert otel.spans() == []


def test_observability_must_be_an_observability(neo4j, tenant):
    from graphmem import ConfigurationError

    with pytest.raises(ConfigurationError, match="observability"):
        Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=None, observability="otel")


_WITHOUT_OPENTELEMETRY = """
import importlib.abc, json, os, sys

class Hidden(importlib.abc.MetaPathFinder):  # as if opentelemetry-api were not installed
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Hidden())
from graphmem import HashingEmbedder, Memory, Observability
from graphmem._base import observe

events = []
with Memory(os.environ["T_URI"], (os.environ["T_USER"], os.environ["T_PASSWORD"]), tenant=os.environ["T_TENANT"],
            embedder=HashingEmbedder(int(os.environ["T_DIM"])), on_event=events.append,
            observability=Observability(record_content=True)) as memory:
    fact = memory.remember("Ana lives in Oslo", scope="acme/support")
    found = memory.recall("Where does Ana live?", scope="acme/support")
    memory.ingest([{"role": "user", "name": "Ana", "content": "I moved to Bergen."}], scope="acme/support", llm=None)
    memory.after_turn([{"role": "user", "content": "Bergen is rainy"}], scope="acme/support").result(timeout=60)
print(json.dumps({"available": observe.AVAILABLE, "loaded": sorted(m for m in sys.modules if m.startswith("opentelemetry")),
                  "found": [r.record.id for r in found], "fact": fact.id, "events": [e.kind for e in events]}))
"""


def test_everything_runs_the_same_without_opentelemetry(neo4j, schema, embedder, tenant):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "T_URI": neo4j.uri, "T_USER": neo4j.user, "T_PASSWORD": neo4j.password, "T_TENANT": tenant,
           "T_DIM": str(embedder.dimensions)}
    done = subprocess.run([sys.executable, "-c", _WITHOUT_OPENTELEMETRY], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["available"] is False and out["loaded"] == []
    assert out["fact"] in out["found"]
    assert {"remembered", "recalled", "ingested"} <= set(out["events"])


def test_graphmem_connects_to_nothing_but_neo4j(neo4j, schema, tenant, otel, monkeypatch):
    """Every socket graphmem opens, with the default embedder and entity extractor, the SDK
    recording and every kind of call made, goes to the Neo4j port on the loopback address:
    no telemetry, no model download, no lookup of any other name."""
    from tests.network_guard import guard_sockets

    tried = guard_sockets(monkeypatch, neo4j.uri)
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, observability=otel.observability()) as memory:
        fact = memory.remember("Ana lives in Oslo", scope=SCOPE)
        memory.recall("Where does Ana live?", scope=SCOPE)
        memory.context("Ana", scope=SCOPE)
        memory.ingest([{"role": "user", "name": "Ana", "content": "I moved to Bergen with Priya."}], scope=SCOPE,
                      llm=model())
        memory.after_turn([{"role": "user", "content": "Bergen is rainy"}], scope=SCOPE, llm=model()).result(timeout=60)
        memory.correct(fact.id, "Ana lives in Bergen")
        assert list(memory.export_records())
        memory.erase(scope=SCOPE)
    assert len(otel.spans()) > 20
    assert tried == []


def test_a_call_inside_a_call_is_a_nested_child_counted_apart(observed, otel):
    observed.remember("Ana has two cats", scope=SCOPE)
    otel.exporter.clear()
    observed.context("What pets does Ana have?", scope=SCOPE)
    [context] = otel.named("graphmem.context")
    [recall] = otel.named("graphmem.recall")
    assert recall.parent is not None and recall.parent.span_id == context.context.span_id
    assert recall.attributes["graphmem.nested"] is True and "graphmem.nested" not in context.attributes
    top = {"graphmem.operation": "graphmem.recall"}
    assert otel.total("graphmem.operation.duration", **top, **{"graphmem.nested": True}) == 1
    assert otel.total("graphmem.operation.duration", **{"graphmem.operation": "graphmem.context"}) == 1
    points = otel.metrics()["graphmem.operation.duration"]
    assert not [p for p in points if dict(p.attributes) == top]  # no top-level recall was made


def test_an_integration_s_call_is_a_span_over_the_memory_s(observed, otel):
    from graphmem.integrations.langchain import memory_tools

    recall = next(t for t in memory_tools(observed, scope=SCOPE) if t.name == "recall")
    observed.remember("Ana has two cats", scope=SCOPE)
    otel.exporter.clear()
    assert "cats" in recall.invoke({"query": "What pets does Ana have?"})
    [tool] = otel.named("graphmem.langchain.recall")
    [inner] = otel.named("graphmem.recall")
    assert inner.parent is not None and inner.parent.span_id == tool.context.span_id
    assert tool.attributes["graphmem.tenant"] == observed.tenant


def _points(otel: Telemetry, metric: str) -> dict[tuple[tuple[str, Any], ...], Any]:
    """The data points of ``metric``, by their attributes (sorted pairs)."""
    return {tuple(sorted(dict(p.attributes).items())): p for p in otel.metrics().get(metric, [])}


def test_a_newer_value_counts_one_superseded_fact_and_no_invalidation(observed, otel):
    from .helpers import utc

    old = observed.remember(f"Ann lives in {SECRET}", scope=SCOPE, subject="ann", predicate="lives_in",
                            object=SECRET, valid_from=utc(2020))
    assert otel.total("graphmem.facts.superseded") == 0  # a first value ends nothing
    new = observed.remember("Ann lives in Berlin", scope=SCOPE, subject="ann", predicate="lives_in", object="Berlin",
                            valid_from=utc(2023))
    closed = observed.get(old.id)
    assert closed.valid_to == new.valid_from and closed.invalidated_at is None  # the world changed: ended, believed
    superseded = _points(otel, "graphmem.facts.superseded")
    assert list(superseded) == [()] and superseded[()].value == 1  # one fact, no attribute (no text, no id)
    assert otel.total("graphmem.memories.invalidated") == 0
    observed.remember("Ann likes Berlin", scope=SCOPE)  # no subject/predicate: supersedes nothing
    assert otel.total("graphmem.facts.superseded") == 1
    # a third value from the same instant as Berlin: two values for one period, the newer wins
    # (invalidated, reason corrected) and nothing more is superseded
    third = observed.remember("Ann lives in Madrid", scope=SCOPE, subject="ann", predicate="lives_in",
                              object="Madrid", valid_from=utc(2023))
    assert observed.get(new.id).invalidated_at is not None and observed.get(third.id).invalidated_at is None
    assert otel.total("graphmem.facts.superseded") == 1
    assert {k: p.value for k, p in _points(otel, "graphmem.memories.invalidated").items()} == {
        (("graphmem.reason", "corrected"),): 1}


def test_forget_and_correct_count_invalidated_memories_by_reason(observed, otel):
    observed.remember(f"Ana keeps bees in {SECRET}", scope=SCOPE)
    kept = observed.remember(f"Ana keeps goats in {SECRET}", scope=SCOPE)
    assert observed.forget(scope=SCOPE, text=f"Ana keeps bees in {SECRET}") == 1
    assert {k: p.value for k, p in _points(otel, "graphmem.memories.invalidated").items()} == {
        (("graphmem.reason", "forgotten"),): 1}
    assert observed.forget(scope=SCOPE, text="Ana keeps nothing of the kind") == 0  # nothing forgotten, nothing counted
    observed.correct(kept.id, f"Ana keeps sheep in {SECRET}", reason=f"{SECRET}: misheard")
    assert {k: p.value for k, p in _points(otel, "graphmem.memories.invalidated").items()} == {
        (("graphmem.reason", "forgotten"),): 1, (("graphmem.reason", "corrected"),): 1}
    assert otel.total("graphmem.facts.superseded") == 0  # an invalidation ends no valid time
    assert [s for s in _strings(otel) if SECRET.lower() in s.lower()] == []  # the reason's text is not a label


def test_each_model_request_records_its_tokens_in_the_gen_ai_histogram(observed, otel):
    from graphmem._base.observe import TOKENS

    llm = model(usage=9)
    result = observed.ingest([{"role": "user", "name": "Ana", "content": f"I live in {SECRET} now."}], scope=SCOPE,
                             llm=llm)
    requests = len(llm.prompts)
    assert requests >= 1 and result.usage.output_tokens == 9 * requests
    points = _points(otel, "gen_ai.client.token.usage")
    labels = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "PromptedChatModel"}
    assert set(points) == {tuple(sorted({**labels, "gen_ai.token.type": kind}.items())) for kind in ("input", "output")}
    output = points[tuple(sorted({**labels, "gen_ai.token.type": "output"}.items()))]
    assert (output.count, output.sum, output.min, output.max) == (requests, 9 * requests, 9, 9)
    assert tuple(output.explicit_bounds) == TOKENS and output.bucket_counts[0] == requests  # 9 <= 16: the first bucket
    said = [len(p) // 4 for p in llm.prompts]  # what the recorded model reports as input tokens
    given = points[tuple(sorted({**labels, "gen_ai.token.type": "input"}.items()))]
    assert (given.count, given.sum, given.min, given.max) == (requests, sum(said), min(said), max(said))
    assert given.sum == result.usage.input_tokens
    assert sum(given.bucket_counts) == requests and given.bucket_counts[0] == sum(1 for n in said if n <= TOKENS[0])
    assert otel.total("graphmem.model.requests") == requests


def test_a_model_that_reports_no_tokens_records_no_token_usage(observed, otel):
    llm = model(usage=None)  # no usage_metadata on its replies
    observed.ingest([{"role": "user", "name": "Ana", "content": f"I live in {SECRET} now."}], scope=SCOPE, llm=llm)
    assert llm.prompts and otel.total("graphmem.model.requests") == len(llm.prompts)
    assert _points(otel, "gen_ai.client.token.usage") == {} and otel.total("graphmem.model.tokens") == 0
