"""Unit tests for the built-in HashingEmbedder (graphmem/_base/embeddings.py)."""

from __future__ import annotations

import math

import pytest

from graphmem import HashingEmbedder, InvalidInputError


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))  # inputs are unit vectors


def test_deterministic_across_instances_and_methods():
    a, b = HashingEmbedder(64), HashingEmbedder(64)
    text = "Alice moved to Berlin in 2021"
    assert a.embed_query(text) == b.embed_query(text)
    assert a.embed_documents([text, "other"])[0] == a.embed_query(text)
    assert a.embed_query("Hello World") == a.embed_query("hello world")  # case-insensitive
    assert a.embed_query("Hello World") != a.embed_query("Goodbye World")


@pytest.mark.parametrize("dimensions", [8, 64, 256])
def test_dimension_and_unit_norm(dimensions):
    vector = HashingEmbedder(dimensions).embed_query("The quick brown fox jumps")
    assert len(vector) == dimensions
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-9)


@pytest.mark.parametrize("text", ["", "   ", "!!! ???"])
def test_text_without_words_gives_finite_nonzero_unit_vector(text):
    vector = HashingEmbedder(32).embed_query(text)
    assert len(vector) == 32
    assert all(math.isfinite(x) for x in vector)
    assert any(vector)
    assert math.isclose(sum(x * x for x in vector), 1.0)


def test_shared_words_are_more_similar_than_unrelated_text():
    e = HashingEmbedder(256)
    base = e.embed_query("Alice lives in Paris")
    related = e.embed_query("Alice lives in Paris, France")
    unrelated = e.embed_query("quarterly revenue spreadsheet totals")
    assert cosine(base, related) > cosine(base, unrelated)
    assert cosine(base, related) > 0.5


@pytest.mark.parametrize("dimensions", [0, 7, 16.0, "64"])
def test_rejects_bad_dimensions(dimensions):
    with pytest.raises(InvalidInputError) as info:
        HashingEmbedder(dimensions)
    assert info.value.field == "dimensions"
