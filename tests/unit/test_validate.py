"""Unit tests for input validation (graphmem/_base/validate.py)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import MAX_TEXT_LENGTH, InvalidInputError, Provenance, Sensitivity
from graphmem._base import validate as check

# -- instant / interval -----------------------------------------------------------------

def test_instant_rejects_naive_datetime_naming_the_field():
    with pytest.raises(InvalidInputError) as info:
        check.instant(datetime(2024, 1, 1), "valid_from")
    assert info.value.field == "valid_from"
    assert "timezone-aware" in info.value.message


def test_instant_converts_aware_datetimes_to_utc():
    plus_two = timezone(timedelta(hours=2))
    result = check.instant(datetime(2024, 1, 1, 12, 0, tzinfo=plus_two), "at")
    assert result == datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)
    assert result.utcoffset() == timedelta(0)
    assert result.hour == 10


def test_instant_none_handling():
    assert check.instant(None, "x") is None
    with pytest.raises(InvalidInputError) as info:
        check.instant(None, "clock", allow_none=False)
    assert info.value.field == "clock"


@pytest.mark.parametrize("value", ["2024-01-01T00:00:00Z", 1704067200, datetime(2024, 1, 1).date()])
def test_instant_rejects_non_datetimes(value):
    with pytest.raises(InvalidInputError, match="must be a datetime"):
        check.instant(value, "x")


def test_interval():
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    check.interval(start, start + timedelta(days=1))
    check.interval(start, start)  # an empty interval is allowed
    check.interval(None, start)
    check.interval(start, None)
    with pytest.raises(InvalidInputError) as info:
        check.interval(start, start - timedelta(seconds=1), "items[0].valid_to")
    assert info.value.field == "items[0].valid_to"
    assert "before valid_from" in info.value.message


# -- text -------------------------------------------------------------------------------

def test_text_accepts_and_returns_unchanged():
    assert check.text("  hello  ") == "  hello  "
    assert check.text("x" * MAX_TEXT_LENGTH) == "x" * MAX_TEXT_LENGTH


@pytest.mark.parametrize("value, reason", [("", "empty"), ("   \n\t", "empty"), (None, "string"), (5, "string")])
def test_text_rejects_empty_and_non_strings(value, reason):
    with pytest.raises(InvalidInputError) as info:
        check.text(value, "content")
    assert info.value.field == "content"
    assert reason in info.value.message


def test_text_rejects_too_long():
    with pytest.raises(InvalidInputError) as info:
        check.text("x" * (MAX_TEXT_LENGTH + 1))
    assert info.value.field == "text"
    assert str(MAX_TEXT_LENGTH) in info.value.message


# -- predicate --------------------------------------------------------------------------

@pytest.mark.parametrize("raw, normal", [
    ("Lives In", "lives_in"),
    ("livesIn", "lives_in"),
    ("works-for", "works_for"),
    ("lives_in", "lives_in"),
    ("  Born   On!! ", "born_on"),
    ("Café", "cafe"),
    ("reportsTo2", "reports_to2"),
])
def test_predicate_normalisation(raw, normal):
    assert check.predicate(raw) == normal


@pytest.mark.parametrize("value", ["!!!", "   ", 42])
def test_predicate_rejects_junk(value):
    with pytest.raises(InvalidInputError) as info:
        check.predicate(value, "pred")
    assert info.value.field == "pred"


def test_predicate_none_and_length_limit():
    assert check.predicate(None) is None
    assert check.predicate("a" * 128) == "a" * 128
    with pytest.raises(InvalidInputError, match="128"):
        check.predicate("a" * 129)


# -- embedding --------------------------------------------------------------------------

def test_embedding_accepts_numbers_and_returns_floats():
    vector = check.embedding((1, 0, 2.5), "embedding", 3)
    assert vector == [1.0, 0.0, 2.5]
    assert all(type(x) is float for x in vector)


@pytest.mark.parametrize("value, dimension, reason", [
    ([1.0, math.nan, 0.0], None, "NaN or infinity"),
    ([1.0, math.inf, 0.0], None, "NaN or infinity"),
    ([1.0, -math.inf], None, "NaN or infinity"),
    ([1.0, 2.0], 3, "has 2 dimensions"),
    ([0.0, 0.0, 0.0], 3, "all zeros"),
    ([1.0, None], None, "only numbers"),
    ([1.0, "abc"], None, "only numbers"),
    ([1.0, [2.0]], None, "only numbers"),
    ([], None, "non-empty list"),
    ("1,2,3", None, "non-empty list"),
    (None, None, "non-empty list"),
])
def test_embedding_rejects_bad_vectors(value, dimension, reason):
    with pytest.raises(InvalidInputError) as info:
        check.embedding(value, "items[1].embedding", dimension)
    assert info.value.field == "items[1].embedding"
    assert reason in info.value.message


def test_a_wrong_dimension_from_the_embedder_names_the_embedder():
    """A vector the embedder made (a write's, or recall's question) says the store's vectors
    come from another embedder; one the caller gave says only the dimensions."""
    hint = "the store's vectors come from another embedder"
    for field, embedded in (("items[0].embedding", True), (check.EMBEDDER_OUTPUT, False)):
        with pytest.raises(InvalidInputError) as info:
            check.embedding([1.0, 2.0], field, 3, embedded=embedded)
        assert info.value.field == field and "has 2 dimensions; the vector index has 3" in info.value.message
        assert hint in info.value.message
    with pytest.raises(InvalidInputError) as info:
        check.embedding([1.0, 2.0], "items[0].embedding", 3)
    assert hint not in info.value.message


# -- choice / unit_interval / tags ------------------------------------------------------

def test_choice_accepts_members_and_values():
    assert check.choice(Provenance.USER, Provenance, "provenance") is Provenance.USER
    assert check.choice("human-correction", Provenance, "provenance") is Provenance.HUMAN_CORRECTION
    assert check.choice("restricted", Sensitivity, "s") is Sensitivity.RESTRICTED


def test_choice_rejects_unknown_value_listing_allowed_ones():
    with pytest.raises(InvalidInputError) as info:
        check.choice("gossip", Provenance, "provenance")
    assert info.value.field == "provenance"
    assert "'gossip'" in info.value.message
    assert "'human-correction'" in info.value.message and "'induction'" in info.value.message


@pytest.mark.parametrize("value, expected", [(None, 0.25), (0, 0.0), (1, 1.0), (0.7, 0.7)])
def test_unit_interval_accepts(value, expected):
    result = check.unit_interval(value, "importance", 0.25)
    assert result == expected
    assert isinstance(result, float)


@pytest.mark.parametrize("value", [-0.01, 1.01, math.nan, True, "0.5"])
def test_unit_interval_rejects(value):
    with pytest.raises(InvalidInputError) as info:
        check.unit_interval(value, "importance", 0.5)
    assert info.value.field == "importance"


def test_tags():
    assert check.tags(["a", "b"]) == ["a", "b"]
    assert check.tags(("x",)) == ["x"]
    assert check.tags(None) == []
    assert check.tags([]) == []
    with pytest.raises(InvalidInputError) as info:
        check.tags("ab", "labels")
    assert info.value.field == "labels"


@pytest.mark.parametrize("bad", ["", "  ", 3, None])
def test_tags_rejects_bad_items_by_index(bad):
    with pytest.raises(InvalidInputError) as info:
        check.tags(["ok", bad])
    assert info.value.field == "tags[1]"


@pytest.mark.parametrize("bad", [5, "one", b"bytes"])
def test_tags_rejects_non_lists(bad):
    with pytest.raises(InvalidInputError) as info:
        check.tags(bad)
    assert info.value.field == "tags"


@pytest.mark.parametrize("bad", [["1", "2"], [True, False], [1.0, None]])
def test_embedding_rejects_strings_booleans_and_none(bad):
    with pytest.raises(InvalidInputError, match="only numbers"):
        check.embedding(bad, "embedding", None)


def test_long_text_keys_are_bounded_and_still_distinguish_texts():
    from graphmem._base.validate import text_key

    long_a, long_b = "A " * 9000 + "end one", "a " * 9000 + "end two"
    assert len(text_key(long_a)) < 1100 and text_key(long_a) != text_key(long_b)
    assert text_key(long_a) == text_key(long_a.lower() + "  ")
    assert text_key("Hello,  World!") == "hello world"


def test_a_checked_embedding_is_a_list_with_a_short_repr():
    """The driver formats each query's parameters for its debug log whether or not that log
    is on: a vector's repr must not cost 256 float formats (0.3 ms) per query or per row."""
    vector = check.embedding([1, 2.5, 3], "embedding", 3)
    assert isinstance(vector, list) and vector == [1.0, 2.5, 3.0]
    assert all(type(x) is float for x in vector)
    assert repr(vector) == "<vector of 3 floats>"
    assert repr(check.embedding([0.1] * 256, "embedding", None)) == "<vector of 256 floats>"


def test_embedding_accepts_float_subclasses_and_rejects_other_number_types():
    """The fast path (plain floats and ints) and the element-by-element check agree: a float
    subclass such as numpy's float64 is a number, a bool or a numeric string is not."""
    class Float(float):
        pass

    assert check.embedding([Float(0.5), 1], "embedding", None) == [0.5, 1.0]
    for bad in ([0.5, True], [0.5, "1.0"], [0.5, 1 + 2j]):
        with pytest.raises(InvalidInputError, match="only numbers"):
            check.embedding(bad, "embedding", None)


# -- text_key keeps what tells names apart (issue 23.7) ----------------------------------

@pytest.mark.parametrize("names", [
    ["C", "C++", "C#"], ["F", "F#"], ["NET", ".NET"], ["Node.js", "Node js"], ["AT&T", "AT T"],
    ["R", "R#"], ["$5", "5"], ["Go", "Go!"[:2] + "#"],
])
def test_text_key_keeps_programming_languages_and_brands_apart(names):
    from graphmem._base.validate import text_key

    assert len({text_key(n) for n in names}) == len(names), [text_key(n) for n in names]


@pytest.mark.parametrize("names", [
    ["東京", "京都"], ["Москва", "Moskva"], ["हिन्दी", "हिन्द"], ["👍", "👎"], ["😀", "😃", "☕"],
    ["👨\u200d👩\u200d👧", "👨👩👧"], ["αβγ", "abc"],
])
def test_text_key_keeps_scripts_and_emoji_apart(names):
    from graphmem._base.validate import text_key

    keys = [text_key(n) for n in names]
    assert len(set(keys)) == len(names), keys
    assert all(keys), keys  # nothing folds to an empty key


@pytest.mark.parametrize("a, b", [
    ("Bob codes in C++.", "bob  codes in c++"),
    ("Bob codes in C#!", "bob codes in c#"),
    ("Hello,  World!", "hello world"),
    ("“Quoted”, she said — fine.", "quoted she said fine"),
    ("He uses .NET.", "he uses .net"),
    ("(.NET)", ".NET"),
    ("ＭＯＳＣＯＷ", "moscow"),  # full-width letters fold (NFKC)
    ("Straße", "STRASSE"),  # casefold, not lower
    ("...so it goes", "so it goes"),
])
def test_text_key_folds_case_spacing_and_sentence_punctuation(a, b):
    from graphmem._base.validate import text_key

    assert text_key(a) == text_key(b)


# -- vectors Neo4j could not compare (issue 23.1) -----------------------------------------

@pytest.mark.parametrize("element", [1e308, 1e200, 1e20, 1e-200, 1e-320, 5e-324])
def test_embedding_rejects_vectors_whose_norm_overflows_or_vanishes(element):
    with pytest.raises(InvalidInputError) as info:
        check.embedding([element] * 256, "items[2].embedding", 256)
    assert info.value.field == "items[2].embedding" and "norm" in info.value.message


@pytest.mark.parametrize("vector", [[1.0] + [0.0] * 255, [1e-3] * 256, [100.0] * 256, [1e-320] + [1.0] * 255])
def test_embedding_accepts_ordinary_norms(vector):
    assert len(check.embedding(vector, "embedding", 256)) == 256


# -- limits on every field (issue 23.5) -------------------------------------------------

def test_object_is_limited_and_plain():
    assert check.literal(None) is None and check.literal("Berlin") == "Berlin"
    for bad, words in [("x" * 1_000_000, "limit"), ("a\x00b", r"U\+0000"), ("\ud800", "surrogate"), (3, "string")]:
        with pytest.raises(InvalidInputError, match=words) as info:
            check.literal(bad, "items[0].object")
        assert info.value.field == "items[0].object"


def test_properties_are_limited_json():
    assert check.properties_json({"b": 1, "a": [1, "x"]}) == '{"a": [1, "x"], "b": 1}'
    assert check.properties_json(None) == "{}"
    for bad, words in [({"blob": "x" * 1_000_000}, "bytes"), ({"k": "\udc80"}, "surrogate"),
                       ({"k": float("nan")}, "JSON"), (["not", "a", "mapping"], "mapping")]:
        with pytest.raises(InvalidInputError, match=words) as info:
            check.properties_json(bad)
        # a bad text inside is named by its path, the rest by the argument
        assert info.value.field == ("properties.k" if words == "surrogate" else "properties")


def test_list_limits_follow_the_field_name():
    assert len(check.tags([f"t{i}" for i in range(64)], "items[3].tags")) == 64
    with pytest.raises(InvalidInputError, match="more than 64") as info:
        check.tags([f"t{i}" for i in range(65)], "items[3].tags")
    assert info.value.field == "items[3].tags"
    assert len(check.tags([f"e{i}" for i in range(500)], "derived_from")) == 500


def test_instant_without_a_utc_form_is_an_input_error():
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59)))
    with pytest.raises(InvalidInputError) as info:
        check.instant(early, "valid_from")
    assert info.value.field == "valid_from"
