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


@pytest.mark.parametrize("bad", ["\ud800", "\udfff"])
def test_lone_surrogates_are_refused_in_every_text(memory, driver, bad):
    """A lone surrogate has no UTF-8 form: no Neo4j string can hold it, free text or name."""
    for error in (refused(memory, driver, "text", memory.remember, f"Ada {bad} Lovelace", scope="t"),
                  refused(memory, driver, "content", memory.add_episode, f"said {bad}", scope="t", role="user"),
                  refused(memory, driver, "query", memory.recall, f"who {bad}", scope="t"),
                  refused(memory, driver, "name", memory.upsert_entity, f"Ada{bad}", type="person", scope="t")):
        assert "surrogate" in error.message and "position" in error.message
    refused(memory, driver, "tags[1]", memory.remember, "fine", scope="t", tags=["ok", f"x{bad}"])


@pytest.mark.parametrize("bad", ["\x00", "\x1b[31m", "\x07", "\x9b"])
def test_control_characters_are_refused_in_names_and_kept_in_free_text(memory, driver, bad):
    """Issue 49.7: one rule. Names, labels and ids refuse a control character; free text (a
    memory's text, an episode's content, a question) keeps it as given (it used to be refused
    from remember and replaced by U+FFFD in an episode)."""
    refused(memory, driver, "tags[1]", memory.remember, "fine", scope="t", tags=["ok", f"x{bad}"])
    refused(memory, driver, "name", memory.upsert_entity, f"Ada{bad}", type="person", scope="t")
    refused(memory, driver, "aliases[0]", memory.upsert_entity, "Ada", type="person", scope="t", aliases=[f"A{bad}"])
    refused(memory, driver, "user_id", memory.remember, "fine", scope="t", user_id=f"u{bad}")
    refused(memory, driver, "scope", memory.remember, "fine", scope=f"t/{bad}")
    fact = memory.remember(f"Ada {bad} Lovelace", scope="t")
    episode = memory.add_episode(f"said {bad}", scope="t", role="user")
    assert (memory.get(fact.id).text, memory.get(episode.id).text) == (f"Ada {bad} Lovelace", f"said {bad}")
    assert fact.id in {r.record.id for r in memory.recall(f"Ada {bad} Lovelace", scope="t")}


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
