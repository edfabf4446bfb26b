"""What graphmem shows of its work through OpenTelemetry: spans and metrics, when the
``opentelemetry-api`` package is installed (``pip install 'graphmem[otel]'``), through the
providers the application configured (the global ones unless ``Observability`` is given
others). Without the package, or without an SDK behind the API, all of it costs a few
function calls: nothing is recorded and nothing is sent anywhere. graphmem never exports
on its own: where spans and metrics go is the application's SDK setup
(docs/observability.md).

What a span holds is chosen for an operator: tenant, scope depth, counts, names of
templates and models, timings, error classes. Memory text, questions, user ids and error
messages are left out unless ``record_content=True``."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from typing import Any

from .._version import __version__

try:  # an optional dependency: graphmem runs the same without it
    from opentelemetry import metrics as _metrics
    from opentelemetry import trace as _trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError:  # pragma: no cover - exercised by the test that hides the package
    _metrics = _trace = None  # type: ignore[assignment]

AVAILABLE = _trace is not None
"""Whether ``opentelemetry-api`` could be imported."""
NAME = "graphmem"
"""The instrumentation scope of every tracer and meter graphmem asks for."""
_NULL = contextlib.nullcontext()
SECONDS = (0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
           10.0, 30.0, 60.0, 120.0, 300.0)
"""Bucket bounds (seconds) advised for the duration histograms: a recall takes milliseconds,
an ingest with a model minutes (the SDK's own default bounds are made for milliseconds)."""
TOKENS = (16, 64, 256, 1024, 4096, 16384, 65536, 262144)
"""Bucket bounds advised for ``gen_ai.client.token.usage`` (the GenAI conventions' powers of 4)."""


class _NullSpan:
    """Stands for a span when nothing records (every method does nothing)."""

    def is_recording(self) -> bool:
        return False

    def set_attribute(self, key: str, value: Any) -> None:
        pass

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        pass

    def add_event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        pass


NULL_SPAN = _NullSpan()


class Observability:
    """Where graphmem's spans and metrics go, and what they may hold.

    ``tracer_provider`` and ``meter_provider`` are OpenTelemetry providers (default: the
    global ones, which are no-ops until the application installs an SDK); ``record_content``
    adds what is otherwise never recorded: the question of a recall, the user, agent and
    session ids a call names, and error messages (which may quote input); ``enabled=False``
    turns graphmem's instrumentation off altogether. Requires nothing: without
    ``opentelemetry-api`` installed it records nothing, whatever it is given."""

    def __init__(self, *, tracer_provider: Any = None, meter_provider: Any = None, record_content: bool = False,
                 enabled: bool = True) -> None:
        if not isinstance(record_content, bool):
            from .errors import InvalidInputError

            raise InvalidInputError("record_content", "must be True or False")
        self.record_content = record_content
        """Whether spans may hold content: questions, scope paths, ids, error messages."""
        self._tracer: Any = None
        self._meter: Any = None
        if enabled and AVAILABLE:
            self._tracer = (tracer_provider.get_tracer(NAME, __version__) if tracer_provider is not None
                           else _trace.get_tracer(NAME, __version__))
            self._meter = (meter_provider.get_meter(NAME, __version__) if meter_provider is not None
                           else _metrics.get_meter(NAME, __version__))
        self.on = self._tracer is not None
        """Whether anything may be recorded (the API is there and instrumentation is on)."""
        if self._meter is not None:
            self._instruments(self._meter)

    def _instruments(self, meter: Any) -> None:
        self.operation_duration = meter.create_histogram(
            "graphmem.operation.duration", unit="s", explicit_bucket_boundaries_advisory=SECONDS,
            description="Duration of a public graphmem call (recall, remember, ingest...), by graphmem.operation")
        self.db_duration = meter.create_histogram(
            "db.client.operation.duration", unit="s", explicit_bucket_boundaries_advisory=SECONDS,
            description="Duration of one Cypher template run")
        self.errors = meter.create_counter(
            "graphmem.errors", unit="{error}", description="Public calls that raised, by error.type")
        self.written = meter.create_counter(
            "graphmem.memories.written", unit="{memory}", description="Memories created, by graphmem.kind")
        self.superseded = meter.create_counter(
            "graphmem.facts.superseded", unit="{fact}", description="Facts whose valid time a newer value ended")
        self.invalidated = meter.create_counter(
            "graphmem.memories.invalidated", unit="{memory}", description="Memories no longer believed, by graphmem.reason")
        self.model_requests = meter.create_counter(
            "graphmem.model.requests", unit="{request}", description="Chat-model requests, by graphmem.purpose")
        self.model_tokens = meter.create_counter(
            "graphmem.model.tokens", unit="{token}", description="Tokens the chat model reported, by gen_ai.token.type")
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", explicit_bucket_boundaries_advisory=TOKENS,
            description="Tokens per chat-model request")

    # -- spans -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _span(self, name: str, attributes: Mapping[str, Any], kind: Any) -> Iterator[Any]:
        with self._tracer.start_as_current_span(name, kind=kind, attributes=attributes, record_exception=False,
                                               set_status_on_exception=False) as span:
            try:
                yield span
            except BaseException as exc:
                self.failed(span, exc)
                raise

    def span(self, name: str, attributes: Mapping[str, Any] | None = None, *, client: bool = False) -> Any:
        """A context manager around a span ``name`` (a CLIENT span with ``client``) that is
        the current span while it runs; it yields the span (``NULL_SPAN`` when nothing
        records) and marks it failed, with the error's class, when the block raises."""
        if not self.on:
            return contextlib.nullcontext(NULL_SPAN)
        return self._span(name, attributes or {}, SpanKind.CLIENT if client else SpanKind.INTERNAL)

    def failed(self, span: Any, exc: BaseException) -> None:
        """Mark ``span`` failed by ``exc``: ``error.type`` (its class), the status, and the
        message only with ``record_content``."""
        if not span.is_recording():
            return
        kind = type(exc).__name__
        span.set_attribute("error.type", kind)
        field = getattr(exc, "field", None)
        if isinstance(field, str):  # its argument only: a longer path may hold a key the caller chose
            span.set_attribute("graphmem.error.field", field if self.record_content else _argument(field))
        if self.record_content:
            span.set_attribute("graphmem.error.message", str(exc)[:1000])
        span.set_status(Status(StatusCode.ERROR, kind))

    def query(self, name: str, database: str | None, server: tuple[str, int] | None) -> Any:
        """The span of one Cypher template run (database conventions: the template name is
        the operation; never its parameters), or a no-op context."""
        if not self.on:
            return _NULL
        attributes: dict[str, Any] = {"db.system.name": "neo4j", "db.operation.name": name, "db.query.summary": name}
        if database:
            attributes["db.namespace"] = database
        if server is not None:
            attributes["server.address"], attributes["server.port"] = server
        return self._timed_query(name, attributes)

    @contextlib.contextmanager
    def _timed_query(self, name: str, attributes: dict[str, Any]) -> Iterator[Any]:
        started = time.perf_counter()
        error: str | None = None
        try:
            with self._span(name, attributes, SpanKind.CLIENT) as span:
                yield span
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            if self._meter is not None:
                labels = {"db.system.name": "neo4j", "db.operation.name": name}
                if error is not None:
                    labels["error.type"] = error
                self.db_duration.record(time.perf_counter() - started, labels)

    # -- metrics -----------------------------------------------------------------------

    def called(self, operation: str, seconds: float, error: str | None, *, nested: bool = False) -> None:
        """Count one public call: its duration, and its error class if it raised
        (``graphmem.nested`` when it ran inside another graphmem call)."""
        if self._meter is None:
            return
        labels: dict[str, Any] = {"graphmem.operation": operation}
        if nested:
            labels["graphmem.nested"] = True
        if error is not None:
            labels["error.type"] = error
            self.errors.add(1, labels)
        self.operation_duration.record(seconds, labels)

    def event(self, kind: str, ids: tuple[str, ...], reason: str | None, detail: Mapping[str, Any]) -> None:
        """Count what a published event says was written, superseded or invalidated."""
        if self._meter is None:
            return
        if kind == "remembered":
            for memory_kind, n in (detail.get("kinds") or {}).items():
                self.written.add(int(n), {"graphmem.kind": memory_kind})
        elif kind == "superseded":
            self.superseded.add(len(ids))
        elif kind == "invalidated":
            self.invalidated.add(len(ids), {"graphmem.reason": reason or "unknown"})

    def model_request(self, purpose: str, model: str, input_tokens: int, output_tokens: int) -> None:
        """Count one chat-model request and the tokens its reply reported."""
        if self._meter is None:
            return
        self.model_requests.add(1, {"graphmem.purpose": purpose, "gen_ai.request.model": model})
        for kind, n in (("input", input_tokens), ("output", output_tokens)):
            if n:
                labels = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model, "gen_ai.token.type": kind}
                self.model_tokens.add(n, labels)
                self.token_usage.record(n, labels)


OFF = Observability(enabled=False)
"""Instrumentation switched off (what a part built without a memory object uses)."""


def recording() -> bool:
    """Whether the current span records (attributes are worth computing)."""
    return _trace is not None and _trace.get_current_span().is_recording()


def annotate(**attributes: Any) -> None:
    """Set attributes on the current span, when one records (None values are left out)."""
    if _trace is None:
        return
    span = _trace.get_current_span()
    if span.is_recording():
        span.set_attributes({k if "." in k else f"graphmem.{k}": v for k, v in attributes.items() if v is not None})


def note(name: str, **attributes: Any) -> None:
    """Add an event (a retry, a rate-limit wait) to the current span, when one records."""
    if _trace is None:
        return
    span = _trace.get_current_span()
    if span.is_recording():
        span.add_event(name, {k: v for k, v in attributes.items() if v is not None})


def model_name(model: Any) -> str:
    """What a chat model or embedder calls its model (``model_name``, ``model``, ...), else its
    class; its last path segment, at most 64 characters (a span name and a metric label)."""
    for attribute in ("model_name", "model", "model_id", "deployment_name"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value.strip():
            return value.strip().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1][:64] or type(model).__name__
    return type(model).__name__


def _argument(field: str) -> str:
    """The argument a field path starts with (``messages`` of ``messages[1].name``)."""
    return field.split(".", 1)[0].split("[", 1)[0]
