"""Fixtures of the framework adapters' tests (make test-frameworks): besides the suite's
``memory`` (a ``Memory`` on a fresh tenant of the session's Neo4j), an ``AsyncMemory`` on a
fresh tenant and a memory whose spans are read back through OpenTelemetry's in-memory
exporter."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphmem import AsyncMemory, Memory, Observability


class Spans:
    """A tracer provider whose finished spans are kept in memory."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def names(self) -> list[str]:
        return [s.name for s in sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)]

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if s.name == name]


@pytest.fixture
def spans():
    return Spans()


@pytest.fixture
def observed(neo4j, schema, embedder, tenant, spans):
    """A ``Memory`` on a fresh tenant whose spans ``spans`` keeps."""
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                observability=Observability(tracer_provider=spans.provider)) as m:
        yield m


@pytest.fixture
async def amemory(neo4j, schema, embedder, tenant):
    """An ``AsyncMemory`` on a fresh tenant."""
    m = AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder)
    try:
        yield m
    finally:
        await m.close()


@pytest.fixture(params=["Memory", "AsyncMemory"])
async def either(request, neo4j, schema, embedder, tenant):
    """A ``Memory``, then an ``AsyncMemory`` (a test runs once with each), on a fresh tenant."""
    kind = Memory if request.param == "Memory" else AsyncMemory
    m = kind(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder)
    try:
        yield m
    finally:
        closed = m.close()
        if closed is not None:
            await closed
