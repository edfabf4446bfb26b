"""Offline study of recall's fusion on LoCoMo and LongMemEval, without Neo4j.

For every question it computes once what recall's statement would see: each visible turn's
cosine similarity to the question (the same WordLlama embedder, on Neo4j's 0..1 scale) and
its full-text score, Lucene's BM25 (k1 1.2, b 0.75, no (k1 + 1) factor, as Lucene 9 scores)
under a choice of analyzers. Then it replays the candidate selection of cypher/recall.cypher
(the best 10 semantic and 20 lexical hits, reciprocal rank fusion, the best 20 plus each
side's best 10) and graphmem's scoring (``fused_evidence``, the session spread), and scores
the top 10 as bench/locomo.py and bench/longmemeval.py do. Settings can be varied freely:
a whole grid runs in seconds. ``--check`` compares the replay with the rankings a real run
recorded (``--record`` of both benchmarks).

    python bench/fusion_lab.py [--check-locomo PKL] [--check-lme PKL]

The English analyzer's stemming is approximated with NLTK's Porter stemmer (original
algorithm, as Lucene's PorterStemFilter), so it needs ``pip install nltk``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
import longmemeval
from baselines import BM25, STOP

from graphmem._recall.candidates import candidate
from graphmem._recall.fulltext import FUNCTION_WORDS

CACHE = Path(os.environ.get("GRAPHMEM_LAB_CACHE", "/tmp/graphmem-fusion-lab"))
TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:['\u2019]\w+)*", re.UNICODE)
WORD = re.compile(r"\w+", re.UNICODE)

# Function words that carry no topic (question words, auxiliaries, pronouns, quantifiers):
# recall leaves them out of the query (step A); the lab varies it.
QUESTION_STOP = FUNCTION_WORDS  # recall's own list (graphmem/_recall/fulltext.py)


def porter():
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)
    cache: dict[str, str] = {}

    def stem(word: str) -> str:
        out = cache.get(word)
        if out is None:
            out = cache[word] = stemmer.stem(word)
        return out
    return stem


def analyzer(name: str):
    """A function text -> tokens, like Neo4j's full-text analyzer ``name``."""
    stem = porter() if name == "english" else None

    def analyze(text: str) -> list[str]:
        out = []
        for token in TOKEN.findall(text.lower()):
            if name == "english" and token.endswith(("'s", "\u2019s")):
                token = token[:-2]
            if name != "standard-no-stop-words" and token in STOP:
                continue
            out.append(stem(token) if stem else token)
        return out
    return analyze


def lucene_bm25(doc_tokens: list[list[str]], query_tokens: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Lucene 9's BM25 of each document for a query of SHOULD term clauses (a repeated query
    term is a clause of its own, as in recall's Lucene query)."""
    n = len(doc_tokens)
    counts = [Counter(d) for d in doc_tokens]
    lengths = [len(d) for d in doc_tokens]
    avg = sum(lengths) / max(1, n)
    df = Counter(w for c in counts for w in c)
    out = [0.0] * n
    for w in query_tokens:
        f = df.get(w)
        if not f:
            continue
        idf = math.log(1 + (n - f + 0.5) / (f + 0.5))
        for i, c in enumerate(counts):
            tf = c.get(w)
            if tf:
                out[i] += idf * tf / (tf + k1 * (1 - b + b * lengths[i] / avg))
    return out


@dataclass
class Question:
    data: str  # "locomo" or "lme"
    kind: str  # category or question type
    text: str
    turn_ids: list[str]  # dia_id (LoCoMo) or a running index (LongMemEval)
    sessions: list[str]
    visible: list[bool]
    semantic: list[float]  # Neo4j's cosine, (1 + cos) / 2
    semantic_content: list[float]  # the same for the query's content words only (``content_words``)
    lexical: dict[str, list[float]]  # analyzer variant -> BM25 per turn
    evidence: list[str]  # turn ids (LoCoMo) or session ids (LongMemEval)
    bench_bm25: list[int]  # the benchmarks' own BM25 baseline ranking (visible turns)


def content_words(query: str) -> str:
    """The query without its function words (``QUESTION_STOP`` and Lucene's stop words), or
    the query itself when nothing else is left."""
    kept = [w for w in WORD.findall(query) if w.lower() not in QUESTION_STOP and w.lower() not in STOP]
    return " ".join(kept) or query


def _cosines(embedder, query: str, vectors: list[list[float]]) -> tuple[list[float], list[float]]:
    out = []
    for text in (query, content_words(query)):
        qv = embedder.embed_query(text)
        out.append([(1 + sum(a * b for a, b in zip(qv, v))) / 2 for v in vectors])
    return out[0], out[1]


def _embed(embedder, texts: list[str]) -> list[list[float]]:
    return embedder.embed_documents(texts) if texts else []


def lexical_variants(texts: list[str], query: str) -> dict[str, list[float]]:
    from graphmem._recall import fulltext

    words = fulltext.words(query, keep_function_words=True) or ""
    out = {}
    for name in ("english", "standard"):
        analyze = analyzer(name)
        docs = [analyze(t) for t in texts]
        out[name] = lucene_bm25(docs, analyze(words))
        # the query's function words left out on the query side only
        out[name + "+qstop"] = lucene_bm25(docs, [w for w in analyze(" ".join(
            x for x in words.split() if x not in QUESTION_STOP))])
    return out


def load_locomo(path: Path, embedder) -> list[Question]:
    out = []
    for sample in json.loads(path.read_text()):
        parts = locomo.sessions(sample["conversation"])
        turns = [(t["dia_id"], f"session_{n}", locomo.turn_text(t)) for n, _, s in parts for t in s]
        texts = [t[2] for t in turns]
        vectors = _embed(embedder, texts)
        ids = {t[0] for t in turns}
        for q in sample["qa"]:
            evidence = locomo.evidence_of(q, ids)
            if not evidence or int(q["category"]) not in (1, 2, 3, 4):
                continue
            semantic, content = _cosines(embedder, str(q["question"]), vectors)
            out.append(Question("locomo", str(q["category"]), str(q["question"]), [t[0] for t in turns],
                                [t[1] for t in turns], [True] * len(turns), semantic, content,
                                lexical_variants(texts, str(q["question"])), evidence,
                                BM25(texts).rank(str(q["question"]))[:10]))
    return out


def load_lme(path: Path, embedder) -> list[Question]:
    out = []
    for q in json.loads(path.read_text()):
        if q["question_id"].endswith("_abs"):
            continue
        asked = longmemeval.when(q["question_date"])
        turns = [(sid, longmemeval.when(date) <= asked, t["content"][:4000])
                 for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"])
                 for t in session if t["content"].strip()]
        texts = [t[2] for t in turns]
        vectors = _embed(embedder, texts)
        vis = [i for i, t in enumerate(turns) if t[1]]
        semantic, content = _cosines(embedder, q["question"], vectors)
        out.append(Question("lme", q["question_type"], q["question"], [str(i) for i in range(len(turns))],
                            [t[0] for t in turns], [t[1] for t in turns], semantic, content,
                            lexical_variants(texts, q["question"]), list(q["answer_session_ids"]),
                            [vis[i] for i in BM25([texts[i] for i in vis]).rank(q["question"])[:10]]))
    return out


def load(name: str, path: Path) -> list[Question]:
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = CACHE / f"{name}.pkl"
    if cached.is_file():
        return [Question(**q) for q in pickle.loads(cached.read_bytes())]
    from graphmem import WordLlamaEmbedder

    embedder = WordLlamaEmbedder()
    questions = load_locomo(path, embedder) if name == "locomo" else load_lme(path, embedder)
    cached.write_bytes(pickle.dumps([vars(q) for q in questions]))
    return questions


@dataclass(frozen=True)
class Setup:
    """One way of scoring: the analyzer variant and recall's settings, plus experimental
    steps recall does not have (0 = off)."""

    lexical: str = "english"
    content_query: bool = False  # embed only the query's content words (step A2)
    lowest: float = -2.0  # standing of a candidate a side did not return (graphmem's _LOWEST)
    semantic_share: float = 0.7
    semantic_spread: float = 0.05
    lexical_spread: float = 0.5
    session_penalty: float = 0.05
    semantic_fetch: int = 10
    lexical_fetch: int = 20
    keep: int = 20
    shortlist: int = 10
    session_lift: float = 0.0  # + this x the best fused score of the turn's session (others)
    neighbour_lift: float = 0.0  # + this x the best fused score of the turn's neighbours
    neighbours: tuple[int, ...] = (-1, 1)  # which: -1 the turn before (the one it answers), 1 the turn after
    rrf_only: bool = False
    next_edges: float = 0.0  # weight of the graph part when turns are linked to their neighbours
    expand_from: int = 5
    named_share: float = 0.0  # semantic_share for queries that name someone (capitalised word inside), 0 = off
    best_side: float = 0.0  # + this x the better of the two standings (either side's standout counts)
    min_relevance: float = -1.0  # recall's relevance floor (a word match, or a plain cosine at least this)


_NAME = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][a-z]+")


def names_someone(query: str) -> bool:
    """Whether a capitalised word stands inside the query (not first in a sentence; "I" is
    not a name): a person, place or product the full-text side can match exactly."""
    return any(w != "I" for w in _NAME.findall(query))


# steps A-E of docs/recall-generalisation.md, fitted on LoCoMo dev3 and LongMemEval dev60 together
PROPOSED = Setup(lexical="english+qstop", content_query=True, lowest=-3.0, semantic_share=0.65,
                 session_penalty=0.08, neighbour_lift=0.4)


def replay(q: Question, s: Setup, k: int = 10) -> list[int]:
    """Indexes of the top ``k`` turns as graphmem would rank them under ``s``."""
    from graphmem._recall import fusion, plan

    n = len(q.turn_ids)
    lex = q.lexical[s.lexical]
    cosine = q.semantic_content if s.content_query else q.semantic
    vis = [i for i in range(n) if q.visible[i]]
    sem_rank = sorted(vis, key=lambda i: (-cosine[i], i))[:s.semantic_fetch]
    lex_rank = [i for i in sorted(vis, key=lambda i: (-lex[i], i)) if lex[i] > 0][:s.lexical_fetch]
    srank = {i: r + 1 for r, i in enumerate(sem_rank)}
    lrank = {i: r + 1 for r, i in enumerate(lex_rank)}
    cands = set(srank) | set(lrank)
    rrf = {i: (1 / (60 + srank[i]) if i in srank else 0) + (1 / (60 + lrank[i]) if i in lrank else 0) for i in cands}
    direct = sorted(cands, key=lambda i: (-rrf[i], i))
    kept = [i for r, i in enumerate(direct) if r < s.keep or srank.get(i, 99) <= s.shortlist
            or lrank.get(i, 99) <= s.shortlist]
    if s.rrf_only:
        return kept[:k]
    graph: dict[int, float] = {}
    if s.next_edges:  # recall's one-hop expansion, as if each turn were linked to the turns before and after it
        for i in direct[:s.expand_from]:
            for j in (i - 1, i + 1):
                if 0 <= j < n and q.visible[j] and q.sessions[j] == q.sessions[i]:
                    graph[j] = max(graph.get(j, 0.0), min(1.0, rrf[i] / (2 / 61)))
        kept += [j for j in sorted(graph) if j not in kept]
    rows = [candidate(semantic=cosine[i], lexical=lex[i] if i in lrank else None,
                      semantic_rank=srank.get(i), lexical_rank=lrank.get(i)) for i in kept]
    share = s.named_share if s.named_share and names_someone(q.text) else s.semantic_share
    settings = plan.RecallSettings(semantic_share=share, semantic_spread=s.semantic_spread,
                                      lexical_spread=s.lexical_spread)
    saved, fusion._LOWEST = fusion._LOWEST, s.lowest
    try:
        fused = (fusion.fused_evidence(rows, settings) if not s.best_side
                 else fused_with_best_side(rows, settings, s.best_side))
    finally:
        fusion._LOWEST = saved
    score = {i: f + s.next_edges * graph.get(i, 0.0) / 0.6 for i, f in zip(kept, fused)}
    if s.session_lift or s.neighbour_lift:
        best_in_session: dict[str, list[float]] = {}
        for i in kept:
            best_in_session.setdefault(q.sessions[i], []).append(score[i])
        lifted = {}
        for i in kept:
            others = sorted(best_in_session[q.sessions[i]], reverse=True)
            other = others[1] if others[0] == score[i] and len(others) > 1 else (others[0] if others[0] != score[i] else 0)
            near = max((score.get(j, 0.0) for j in (i + d for d in s.neighbours)
                        if 0 <= j < n and q.sessions[j] == q.sessions[i]), default=0.0)
            lifted[i] = score[i] + s.session_lift * other + s.neighbour_lift * near
        score = lifted
    # final score 0.6 x fused (recency, importance and trust are the same for every turn here),
    # then the session spread, best first
    order = sorted(kept, key=lambda i: (-score[i], i))
    # recall's relevance floor removes what neither matches a word nor comes near in meaning
    order = [i for i in order if i in lrank or 2 * cosine[i] - 1 >= s.min_relevance]
    if s.session_penalty <= 0:
        return order[:k]
    taken: Counter = Counter()
    out: list[int] = []
    pool = [(0.6 * score[i], i) for i in order]
    while pool and len(out) < k:
        best = max(pool, key=lambda p: (p[0] - s.session_penalty * taken[q.sessions[p[1]]], -order.index(p[1])))
        pool.remove(best)
        out.append(best[1])
        taken[q.sessions[best[1]]] += 1
    return out


def fused_with_best_side(rows: list, settings, weight: float) -> list[float]:
    """``fused_evidence`` plus ``weight`` x the better of a candidate's two standings."""
    from graphmem._recall import fusion as fusion

    sem = [r.semantic for r in rows if r.semantic_rank]
    lex = [r.lexical for r in rows if r.lexical_rank]
    semantic = fusion._Side(sem, settings.semantic_spread) if sem else None
    lexical = (fusion._Side(lex, max(1e-6, min(settings.lexical_spread, 0.3 * max(lex)))) if lex else None)
    share = settings.semantic_share if semantic and lexical else (1.0 if semantic else 0.0)
    out = []
    for r in rows:
        a = semantic.standing(r.semantic, bool(r.semantic_rank)) if semantic else fusion._LOWEST
        b = lexical.standing(r.lexical, bool(r.lexical_rank)) if lexical else fusion._LOWEST
        out.append(share * a + (1 - share) * b + weight * max(a, b))
    low, high = min(out), max(out)
    return [(e - low) / (high - low) if high > low else 1.0 for e in out]


def rank_baseline(q: Question, side: str, lexical: str = "english", k: int = 10) -> list[int]:
    if side == "bench-bm25":
        return q.bench_bm25[:k]
    vis = [i for i in range(len(q.turn_ids)) if q.visible[i]]
    key = q.semantic if side == "dense" else q.lexical[lexical]
    return sorted(vis, key=lambda i: (-key[i], i))[:k]


def measure(q: Question, top: list[int]) -> dict[str, float]:
    if q.data == "locomo":
        return locomo.scores([q.turn_ids[i] for i in top], q.evidence)
    return longmemeval.scores([q.sessions[i] for i in top], set(q.evidence))


MAIN = {"locomo": "recall@10", "lme": "ndcg@10"}


def table(questions: list[Question], rank) -> dict[str, float]:
    """The main metric per kind and overall."""
    per: dict[str, list[float]] = {}
    for q in questions:
        per.setdefault(q.kind, []).append(measure(q, rank(q))[MAIN[q.data]])
    out = {kind: sum(v) / len(v) for kind, v in sorted(per.items())}
    everything = [x for v in per.values() for x in v]
    out["overall"] = sum(everything) / len(everything)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", default=str(locomo.DATA))
    parser.add_argument("--lme", default=str(longmemeval.DATA))
    args = parser.parse_args(argv)
    data = {"locomo": load("locomo", Path(args.locomo)), "lme": load("lme", Path(args.lme))}
    for name, questions in data.items():
        print(name, "BM25 (bench)", table(questions, lambda q: rank_baseline(q, "bench-bm25")))
        print(name, "BM25 (Lucene english)", table(questions, lambda q: rank_baseline(q, "bm25")))
        print(name, "dense", table(questions, lambda q: rank_baseline(q, "dense")))
        print(name, "graphmem", table(questions, lambda q: replay(q, Setup())))
        print(name, "graphmem, steps A-E", table(questions, lambda q: replay(q, PROPOSED)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
