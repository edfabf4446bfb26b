"""The two baselines every retrieval benchmark compares graphmem with, over the same turns:
Okapi BM25 over the turns' words and dense-only search with the same embedder graphmem
uses (plus their reciprocal rank fusion, the textbook hybrid). Each returns the turns'
indexes, best first."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

# Lucene's English stop words (what graphmem's full-text index drops), so BM25 sees the same words.
STOP = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their then "
                 "there these they this to was will with".split())
WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` without the stop words."""
    return [w for w in (t.lower() for t in WORD.findall(text)) if w not in STOP]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over a list of documents."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(words(d)) for d in docs]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        terms = [w for w in set(words(query)) if w in self.idf]
        out = []
        for doc, length in zip(self.docs, self.lengths):
            s = 0.0
            for w in terms:
                tf = doc.get(w, 0)
                if tf:
                    s += self.idf[w] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / self.avg))
            out.append(s)
        return out

    def rank(self, query: str) -> list[int]:
        """Every document's index, best first (ties in document order)."""
        return [i for _, i in sorted((-s, i) for i, s in enumerate(self.scores(query)))]


def dense_rank(query_vec: Sequence[float], vectors: Sequence[Sequence[float]]) -> list[int]:
    """Every vector's index by dot product with the query (cosine: the embedders'
    vectors are unit length), best first."""
    def cos(v):
        return sum(a * b for a, b in zip(query_vec, v))
    return [i for _, i in sorted((-cos(v), i) for i, v in enumerate(vectors))]


def rrf(*rankings: Sequence[int], k: int = 60) -> list[int]:
    """Reciprocal rank fusion of full rankings of the same documents, best first."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, i in enumerate(ranking, 1):
            fused[i] = fused.get(i, 0.0) + 1.0 / (k + rank)
    return [i for _, i in sorted((-s, i) for i, s in fused.items())]
