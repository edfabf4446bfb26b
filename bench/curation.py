"""Curation of one large tenant: N machine-made facts of which a known share are exact
restatements (some with a copy a person gave), a share written long ago (stale), and a
small scope of planted near-duplicates; then ``curate`` (dedupe, prune), ``consolidate``
with a deterministic local chat model, and a second ``curate`` that must change nothing.

    python bench/curation.py [--size 100000] [--dup-share 0.1] [--stale-share 0.05] [--near 100]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from recall import sentence

from graphmem import Memory, WordLlamaEmbedder

ROOT = "t"


class FirstLineModel(BaseChatModel):
    """A local stand-in for a chat model: merges near-duplicates by keeping the first one
    listed (graphmem asks a model without tool calling for JSON)."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "first-line"

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.calls += 1
        listed = [line[2:] for line in str(messages[-1].content).splitlines() if line.startswith("- ")]
        reply = json.dumps({"text": listed[0] if listed else "nothing"})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(timezone.utc)

    def __call__(self) -> datetime:
        return self.now


def plan(size: int, dup_share: float, stale_share: float, near: int, rng: random.Random) -> tuple[dict[str, list[dict]], int, int]:
    """The rows to write: ``fresh`` and ``stale`` machine-made facts (a ``dup_share`` of all
    of them restating an earlier one, one in ten of those groups also stated by a person:
    ``user``), and ``near`` pairs of near-duplicates in their own scope."""
    originals = max(1, round(size * (1 - dup_share)) - 2 * near)
    texts = [sentence(rng) + f" [{i}]" for i in range(originals)]
    rows: dict[str, list[dict]] = {"fresh": [], "stale": [], "user": [], "near": []}
    stale_cut = round(originals * stale_share)
    for i, text in enumerate(texts):
        rows["stale" if i < stale_cut else "fresh"].append({"text": text, "scope": f"{ROOT}/s{i % 20}",
                                                              "provenance": "extraction"})
    originals_fresh = list(rows["fresh"])
    copies = size - originals - 2 * near
    with_person: set[int] = set()
    for j in range(copies):
        pick = rng.randrange(len(originals_fresh))
        source = originals_fresh[pick]
        variant = source["text"].upper() if j % 2 else source["text"] + "."
        if j % 10 == 0:
            with_person.add(pick)
            rows["user"].append({"text": variant, "scope": source["scope"], "provenance": "user"})
        else:
            rows["fresh"].append({"text": variant, "scope": source["scope"], "provenance": "extraction"})
    # every machine-made copy goes, and so does an original a person restated
    expected = copies - len(rows["user"]) + len(with_person)
    for k in range(near):
        base = f"Supplier {k} {sentence(rng)} with invoices settled by transfer"
        rows["near"] += [{"text": base, "scope": f"{ROOT}/near", "provenance": "extraction"},
                         {"text": base + " again", "scope": f"{ROOT}/near", "provenance": "extraction"}]
    return rows, copies, expected


_IDS = itertools.count()


def write(memory: Memory, rows: list[dict], batch: int) -> None:
    # explicit ids: the planted copies must land as copies (remember without an id would
    # return the record already there, which is what curation cleans up after)
    for start in range(0, len(rows), batch):
        memory.remember_many([{**row, "id": f"row-{next(_IDS)}"} for row in rows[start:start + batch]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--dup-share", type=float, default=0.1)
    parser.add_argument("--stale-share", type=float, default=0.05)
    parser.add_argument("--near", type=int, default=100)
    parser.add_argument("--threshold", type=float, default=0.97)
    parser.add_argument("--batch", type=int, default=5000)
    args = parser.parse_args(argv)
    uri, auth = harness.neo4j_auth()
    rows, copies, expected = plan(args.size, args.dup_share, args.stale_share, args.near, random.Random(11))
    tenant = f"bench-curation-{uuid.uuid4().hex[:8]}"
    clock = Clock()
    model = FirstLineModel()
    table: list[list[object]] = []
    with Memory(uri, auth, tenant=tenant, embedder=WordLlamaEmbedder(), clock=clock) as memory:
        memory.setup()
        started = time.perf_counter()
        now = clock.now
        clock.now = now - timedelta(days=200)
        write(memory, rows["stale"], args.batch)
        clock.now = now
        write(memory, rows["fresh"] + rows["user"] + rows["near"], args.batch)
        written = time.perf_counter() - started
        total = sum(len(v) for v in rows.values())
        print(f"  wrote {total:,} facts in {written:.1f}s", file=sys.stderr)
        people = memory.stats(scope=ROOT).by_provenance.get("user", 0)
        clock.now = now + timedelta(minutes=1)
        cutoff = now - timedelta(days=90)

        first = memory.curate(scope=ROOT, older_than=cutoff, batch=args.batch)
        table.append(["curate: dedupe + prune", f"{first.seconds['total']:.1f}", first.deduplicated, 0, first.pruned,
                      first.before.believed, first.after.believed])
        started = time.perf_counter()
        merged_before = memory.stats(scope=f"{ROOT}/near")
        facts = memory.consolidate(scope=f"{ROOT}/near", llm=model, threshold=args.threshold, max_merges=10 * args.near)
        seconds = time.perf_counter() - started
        merged_after = memory.stats(scope=f"{ROOT}/near")
        table.append([f"consolidate {ROOT}/near ({model.calls} model calls)", f"{seconds:.1f}", 0,
                      merged_after.by_reason.get("merged", 0), 0, merged_before.believed, merged_after.believed])
        second = memory.curate(scope=ROOT, older_than=cutoff, batch=args.batch)
        table.append(["curate again (nothing to do)", f"{second.seconds['total']:.1f}", second.deduplicated, 0,
                      second.pruned, second.before.believed, second.after.believed])
        people_after = memory.stats(scope=ROOT).by_provenance.get("user", 0)
        erased = memory.erase(scope=ROOT)
        print(f"  erased {erased.total:,} memories", file=sys.stderr)
    headers = ["step", "seconds", "deduplicated", "merged away", "pruned", "believed before", "believed after"]
    body = harness.table(headers, table)
    notes = (
        f"{total:,} machine-made and user facts in one tenant over 21 scopes: {len(rows['stale']):,} written 200 days "
        f"earlier (stale: pruned with older_than = 90 days ago), {copies:,} "
        f"exact restatements (case or a trailing full stop differ; {len(rows['user']):,} of them by a person, "
        f"which curation keeps: user records {people:,} before, {people_after:,} after), and {args.near} pairs of "
        f"near-duplicates in {ROOT}/near merged by a local stand-in model (cosine >= {args.threshold}, WordLlama). "
        f"Consolidation made {len(facts)} merged facts. Embedding with WordLlama is not in these times (only the "
        f"merged facts are embedded during consolidation); writing them took {written:.0f}s. Expected from the "
        f"plan: {expected:,} deduplicated (each machine-made copy, and each original a person restated), "
        f"{len(rows['stale']):,} pruned, {2 * args.near} merged away into {args.near}.")
    print(body)
    print(notes)
    print(harness.write_result("curation", f"Curation of a {total:,}-memory tenant", body, notes))
    ok = (people == people_after and first.deduplicated == expected and first.pruned == len(rows["stale"])
          and len(facts) == args.near and second.deduplicated == second.pruned == 0)
    if not ok:
        print("curation did not change what the plan says it should", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
