"""Retrieval quality without an LLM on LongMemEval S (60-question dev subset): graphmem's
fused recall against BM25 over turns and dense-only vector search over turns (same
embedder), computed in the same run.

Every haystack turn is ingested as an episode (one ``ingest(llm=None)`` per session, with
the session's date); each question is asked at its date, so graphmem leaves out turns
dated later, and the baselines are given the same turns (a few evidence sessions in the
set are dated after their question; no system can find those). Scores per question type:
session recall@5 / @10 (share of the evidence sessions among the sessions of the top-k
turns), all-evidence@10 (all evidence sessions in the top 10) and nDCG@10 (over the
distinct sessions of the top 10 turns, binary relevance).

Abstention questions (ids ending ``_abs``: the history never says the answer, and their
"evidence" sessions are the ones that come closest) are left out of the question types and
of "overall", as LongMemEval's own retrieval metrics leave them out; they are reported on
a row of their own, and a last row scores all questions as earlier runs did.

    python bench/longmemeval.py [--data PATH] [--limit N]     (or GRAPHMEM_LONGMEMEVAL=PATH)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from baselines import BM25, dense_rank

from graphmem import MAX_TEXT_LENGTH, Memory, WordLlamaEmbedder

DATA = Path(os.environ.get("GRAPHMEM_LONGMEMEVAL") or Path(__file__).resolve().parents[2] / "shared" / "data"
            / "longmemeval" / "longmemeval_s_dev60.json")  # ../shared/data next to the repository
K = 10
ABSTENTION = "abstention (not scored)"
EVERY = "all questions, abstention included"


def when(text: str) -> datetime:
    return datetime.strptime(text, "%Y/%m/%d (%a) %H:%M").replace(tzinfo=timezone.utc)


def sessions_of(ranked_sessions: list[str], k: int) -> list[str]:
    return list(dict.fromkeys(ranked_sessions[:k]))


def scores(ranked_sessions: list[str], evidence: set[str]) -> dict[str, float]:
    top5, top10 = set(sessions_of(ranked_sessions, 5)), sessions_of(ranked_sessions, K)
    dcg = sum(1 / math.log2(i + 2) for i, s in enumerate(top10) if s in evidence)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(evidence), K)))
    return {
        "recall@5": len(top5 & evidence) / len(evidence),
        "recall@10": len(set(top10) & evidence) / len(evidence),
        "all@10": float(evidence <= set(top10)),
        "ndcg@10": dcg / ideal,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions (0 = all)")
    parser.add_argument("--record", default="", help="pickle every question's turns, rankings and recall candidates here")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        raise SystemExit(f"LongMemEval data not found at {path} (see ../shared/data/longmemeval/README.md)")
    questions = json.loads(path.read_text())
    if args.limit:
        questions = questions[:args.limit]
    uri, auth = harness.neo4j_auth()
    embedder = WordLlamaEmbedder()
    recorder = harness.Recorder() if args.record else None
    record: list[dict] = []
    results: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    run = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    ingest_seconds = recall_ms = 0.0
    for n, q in enumerate(questions, 1):
        asked = when(q["question_date"])
        # every system sees the same turns: those said at or before the question's date
        turns = [(sid, when(date), t["role"], t["content"][:MAX_TEXT_LENGTH])
                 for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"])
                 for t in session if t["content"].strip() and when(date) <= asked]
        evidence = set(q["answer_session_ids"])
        texts = [t[3] for t in turns]
        bm25 = BM25(texts).rank(q["question"])
        dense = dense_rank(embedder.embed_query(q["question"]), embedder.embed_documents(texts))
        tenant = f"lme-{run}-{n}"
        with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory:
            if n == 1:
                memory.setup()
            t0 = time.perf_counter()
            episodes: list[str] = []
            for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
                msgs = [{"role": t["role"], "content": t["content"][:MAX_TEXT_LENGTH]} for t in session if t["content"].strip()]
                if msgs:
                    episodes += memory.ingest(msgs, scope="lme", llm=None, session_id=sid, occurred_at=when(date)).episode_ids
            ingest_seconds += time.perf_counter() - t0
            t0 = time.perf_counter()
            hits = memory.recall(q["question"], scope="lme", k=K, valid_at=asked, kinds=["episode"])
            this_ms = (time.perf_counter() - t0) * 1000
            recall_ms += this_ms
            ours = [h.record.session_id for h in hits]
            if recorder:
                record.append({"question_id": q["question_id"], "kind": q["question_type"], "question": q["question"],
                               "evidence": sorted(evidence), "graphmem": [h.record.id for h in hits],
                               "episodes": episodes, "rows": recorder.take()})
            memory.erase(scope="lme")
        # LongMemEval scores retrieval without its abstention questions: nothing answers them
        kind = ABSTENTION if q["question_id"].endswith("_abs") else q["question_type"]
        for name, ranked in (("graphmem", ours), ("BM25", [turns[i][0] for i in bm25]),
                             ("dense", [turns[i][0] for i in dense])):
            results[name][kind].append(scores(ranked, evidence))
        print(f"[{n}/{len(questions)}] {kind}: nDCG@10 graphmem {results['graphmem'][kind][-1]['ndcg@10']:.3f} "
              f"BM25 {results['BM25'][kind][-1]['ndcg@10']:.3f} dense {results['dense'][kind][-1]['ndcg@10']:.3f} "
              f"(recall {this_ms:.0f} ms)",
              flush=True)
    if args.record:
        with open(args.record, "wb") as f:
            pickle.dump(record, f)
    kinds = sorted(k for k in results["graphmem"] if k != ABSTENTION)
    extra = [ABSTENTION, EVERY] if ABSTENTION in results["graphmem"] else []
    metrics = ["recall@5", "recall@10", "all@10", "ndcg@10"]
    rows = []
    for kind in [*kinds, "overall", *extra]:
        for name in ("graphmem", "BM25", "dense"):
            per = results[name]
            if kind in ("overall", EVERY):
                items = [s for k in (kinds if kind == "overall" else [*kinds, ABSTENTION]) for s in per[k]]
            else:
                items = per[kind]
            if items:  # (--limit may leave a row without questions)
                rows.append([kind, name, len(items), *(sum(s[m] for s in items) / len(items) for m in metrics)])
    body = harness.table(["question type", "system", "questions", *metrics], [
        [*r[:3], *(f"{v:.3f}" for v in r[3:])] for r in rows])
    def verdict(kind: str) -> str:  # on nDCG@10, the last column
        ours = next(r[-1] for r in rows if r[0] == kind and r[1] == "graphmem")
        best = max(r[-1] for r in rows if r[0] == kind and r[1] != "graphmem")
        return "beats both" if ours > best + 1e-9 else ("ties the best" if abs(ours - best) <= 1e-9 else "LOSES")

    wins = {kind: verdict(kind) for kind in [*kinds, "overall", *extra[1:]] if any(r[0] == kind for r in rows)}
    scored = sum(len(results["graphmem"][k]) for k in kinds)
    notes = (f"{len(questions)} questions ({scored} scored, {len(questions) - scored} abstention questions left out "
             f"of the types and overall, as LongMemEval's retrieval metrics do), {sum(len(s) for q in questions for s in q['haystack_sessions']):,} turns; "
             f"ingest {ingest_seconds:.0f} s in total, graphmem recall mean {recall_ms / len(questions):.0f} ms; "
             f"run {time.perf_counter() - started:.0f} s. graphmem on nDCG@10 against the better baseline: "
             + "; ".join(f"{k}: {v}" for k, v in wins.items()))
    out = harness.write_result("longmemeval", "LongMemEval S (dev 60): retrieval without an LLM", body, notes)
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
