"""The real offline embedder loads from its wheel and behaves semantically."""

from __future__ import annotations

import math

from graphmem import WordLlamaEmbedder


def cos(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_wordllama_is_offline_semantic_and_nan_free():
    embedder = WordLlamaEmbedder()
    home, query, other, empty, symbols = embedder.embed_documents(
        ["Alice lives in Berlin", "Which city is Alice's home?", "The invoice is overdue", "", "?!"])
    assert len(home) == 256 == embedder.dimensions
    assert cos(home, query) > cos(other, query)
    for vector in (empty, symbols):
        assert all(math.isfinite(x) for x in vector) and any(vector)
    assert abs(math.sqrt(cos(home, home)) - 1.0) < 1e-5
    assert embedder.embed_query("Alice lives in Berlin") == home
    assert embedder.embed_documents([]) == []
