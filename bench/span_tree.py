"""The span trees docs/observability.md shows, from a real run: one ``after_turn`` with a
recorded extraction model that reports its tokens, then one ``recall`` (after a first turn
and recall in another scope, so the statements are planned), on the default
embedder and entity extractor, read back through the OpenTelemetry SDK's in-memory
exporter and printed as indented trees with each span's duration and attributes.

    python bench/span_tree.py
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphmem import Memory, Observability
from tests.fakes import PromptedChatModel, extraction, tool_answer

SCOPE = "acme/support"
TURN = [{"role": "user", "name": "Priya", "content": "I just moved from Leeds to Glasgow for a job at Acme."},
        {"role": "assistant", "content": "Congratulations on the move, Priya!"}]
SHOWN = ("graphmem.", "gen_ai.usage", "gen_ai.request.model", "db.response.returned_rows", "error.type")


def recorded_model() -> PromptedChatModel:
    """Answers the extraction prompt with what a model would extract from TURN."""

    def answer(prompt: str) -> tuple[Any, float]:
        if "Messages:" not in prompt:
            return tool_answer("Judgement", {"verdicts": []}), 0.0
        return extraction(entities=[{"name": "Priya", "type": "person", "aliases": []},
                                    {"name": "Acme", "type": "organization", "aliases": []}], facts=[{
            "subject": "Priya", "predicate": "lives_in", "object": "Glasgow", "object_is_entity": False,
            "text": "Priya lives in Glasgow", "messages": [1], "single_valued": True}]), 0.0

    return PromptedChatModel(answer=answer, usage=48)


def tree(spans: list[ReadableSpan]) -> str:
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    ids = {s.context.span_id for s in spans}
    for s in sorted(spans, key=lambda s: s.start_time or 0):
        parent = s.parent.span_id if s.parent is not None and s.parent.span_id in ids else None
        by_parent.setdefault(parent, []).append(s)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for s in by_parent.get(parent, []):
            ms = ((s.end_time or 0) - (s.start_time or 0)) / 1e6
            shown = {k: v for k, v in (s.attributes or {}).items() if k.startswith(SHOWN)}
            told = " ".join(f"{k}={list(v) if isinstance(v, tuple) else v}" for k, v in shown.items())
            lines.append(f"{'  ' * depth}{s.name}  {ms:.1f} ms  {told}".rstrip())
            walk(s.context.span_id, depth + 1)

    walk(None, 0)
    return "\n".join(lines)


def main() -> int:
    uri, auth = harness.neo4j_auth()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with Memory(uri, auth, tenant=f"spans-{uuid.uuid4().hex[:8]}", observability=Observability(tracer_provider=provider)) as memory:
        memory.setup()
        memory.ingest([{"role": "user", "name": "Priya", "content": "Hi, I'm Priya. I work in Leeds."}],
                      scope=SCOPE, llm=None, session_id="s1")
        # a first turn and recall plan the statements (a fresh server plans each on first use)
        memory.after_turn(TURN, scope="warm/up", llm=recorded_model(), session_id="s0").result(timeout=60)
        memory.recall("Where does Priya live?", scope="warm/up")
        exporter.clear()
        memory.after_turn(TURN, scope=SCOPE, llm=recorded_model(), session_id="s1").result(timeout=60)
        turn = tree(list(exporter.get_finished_spans()))
        exporter.clear()
        memory.recall("Where does Priya live now?", scope=SCOPE)
        recall = tree(list(exporter.get_finished_spans()))
        memory.erase(scope="acme")
        memory.erase(scope="warm")
    print("after_turn:\n" + turn + "\n\nrecall:\n" + recall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
