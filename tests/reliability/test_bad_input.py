"""Hostile or broken input is refused with InvalidInputError naming the field, and writes
nothing (issue 23.1, 23.4, 23.5); counted by direct Cypher."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from graphmem import ConfigurationError, HashingEmbedder, InvalidInputError, ModelError
from graphmem._base.embeddings import check_embedder

from .helpers import footprint

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

EARLY = datetime(1, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=23, minutes=59)))


def refused(memory, driver, field: str, call, *args, **kwargs) -> InvalidInputError:
    before = footprint(driver, memory.tenant)
    with pytest.raises(InvalidInputError) as info:
        call(*args, **kwargs)
    assert info.value.field == field, str(info.value)
    assert footprint(driver, memory.tenant) == before
    return info.value


@pytest.mark.parametrize("element", [1e308, 1e200, 1e-200, 1e-320])
def test_a_vector_neo4j_cannot_compare_is_refused_and_recall_keeps_working(memory, driver, element):
    memory.remember("a sane note", scope="p")
    refused(memory, driver, "embedding", memory.remember, "weird vector", scope="p", embedding=[element] * 256)
    refused(memory, driver, "items[1].embedding", memory.remember_many,
            [{"text": "ok", "scope": "p"}, {"text": "weird", "scope": "p/q", "embedding": [element] * 256}])
    for scope in ("p", "p/q", "p/other"):
        memory.recall("note", scope=scope)  # never 'Argument a is not a valid vector'


def test_a_date_without_a_utc_form_is_refused(memory, driver):
    error = refused(memory, driver, "valid_from", memory.remember, "ancient", scope="t", valid_from=EARLY)
    assert "UTC" in error.message
    refused(memory, driver, "valid_to", memory.remember, "late", scope="t",
            valid_to=datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-23))))


@pytest.mark.parametrize("bad", ["\ud800", "\x00", "\x1b[31m", "\x07", "\x9b"])
def test_lone_surrogates_and_control_characters_are_refused_in_every_text(memory, driver, bad):
    refused(memory, driver, "text", memory.remember, f"Ada {bad} Lovelace", scope="t")
    refused(memory, driver, "tags[1]", memory.remember, "fine", scope="t", tags=["ok", f"x{bad}"])
    refused(memory, driver, "name", memory.upsert_entity, f"Ada{bad}", type="person", scope="t")
    refused(memory, driver, "aliases[0]", memory.upsert_entity, "Ada", type="person", scope="t", aliases=[f"A{bad}"])
    refused(memory, driver, "user_id", memory.remember, "fine", scope="t", user_id=f"u{bad}")
    refused(memory, driver, "scope", memory.remember, "fine", scope=f"t/{bad}")
    refused(memory, driver, "query", memory.recall, f"who {bad}", scope="t")
    # an episode is what was said: kept, the character replaced (U+FFFD), never refused
    assert memory.add_episode(f"said {bad}", scope="t", role="user").text == "said \ufffd" + bad[1:]


def test_one_bad_item_among_5000_names_it_and_writes_nothing(memory, driver):
    items = [{"text": f"fact number {i}", "scope": "bulk"} for i in range(5000)]
    items[2500]["text"] = "broken \udc80 here"
    error = refused(memory, driver, "items[2500].text", memory.remember_many, items)
    assert "surrogate" in error.message


def test_tabs_and_newlines_stay_allowed(memory):
    fact = memory.remember("line one\n\tline two\r\n", scope="t")
    assert memory.get(fact.id).text == "line one\n\tline two\r\n"


def test_oversized_tags_are_refused(memory, driver):
    refused(memory, driver, "tags", memory.remember, "many tags", scope="t", tags=[f"t{i}" for i in range(100_000)])
    refused(memory, driver, "tags[0]", memory.remember, "big tag", scope="t", tags=["x" * 1_000_000])
    refused(memory, driver, "aliases", memory.upsert_entity, "Ada", type="person", scope="t",
            aliases=[f"a{i}" for i in range(1000)])


class Broken:
    """Not an Embeddings at all."""


class Failing(HashingEmbedder):
    def embed_documents(self, texts):
        raise RuntimeError("quota exceeded")

    def embed_query(self, text):
        raise RuntimeError("quota exceeded")


def test_an_embedder_that_is_not_an_embeddings_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="Embeddings"):
        check_embedder(Broken())


def test_an_embedder_that_raises_is_a_model_error_naming_it():
    checked = check_embedder(Failing(256))
    with pytest.raises(ModelError, match="Failing") as info:
        checked.embed_documents(["x"])
    assert isinstance(info.value.__cause__, RuntimeError) and "quota exceeded" in str(info.value)
    assert checked.dimensions == 256  # the wrapped embedder's attributes show through
