"""ingest() planning without a database: messages, entity folding, fact plans, mentions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from graphmem import InvalidInputError
from graphmem._base.dates import zone
from graphmem._learning.ingest import fact_plan, mentions, messages, name_index, unique_entities
from graphmem._learning.prompts import EntityDraft, Extraction, FactDraft

NOW = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)


def test_messages_of_every_shape_are_normalised_in_order():
    out = messages([
        HumanMessage("hi"), AIMessage(content=[{"type": "text", "text": "hello"}, "there"]), SystemMessage("be kind"),
        ToolMessage("42", tool_call_id="t1"), {"role": "user", "content": "later", "occurred_at": datetime(2025, 1, 1, tzinfo=timezone.utc)},
    ], None, NOW)
    assert [(m["role"], m["content"]) for m in out] == [
        ("user", "hi"), ("assistant", "hello there"), ("system", "be kind"), ("tool", "42"), ("user", "later")]
    assert out[0]["occurred_at"] < out[1]["occurred_at"] < out[3]["occurred_at"] and out[4]["occurred_at"].year == 2025


@pytest.mark.parametrize("items, field", [("hi", "messages"), ([42], "messages[0]"), ([{"content": "x"}], "messages[0].role")])
def test_bad_messages_are_named(items, field):
    with pytest.raises(InvalidInputError) as info:
        messages(items, None, NOW)
    assert info.value.field == field


def test_repeated_entities_fold_together_with_their_aliases():
    entities, skipped = unique_entities(Extraction(entities=[
        EntityDraft(name="Maria Silva", type="Person"), EntityDraft(name="maria  silva", type="person", aliases=["Mimi"]),
        EntityDraft(name="Mimi", type="person", aliases=["M."]), EntityDraft(name="Maria Silva", type="ship"),
        EntityDraft(name="", type="person"), EntityDraft(name="Bob", type="!!"),
    ], facts=[]))
    assert [(e.name, e.type, e.aliases) for e in entities] == [
        ("Maria Silva", "person", ["Mimi", "M."]), ("Maria Silva", "ship", [])]
    assert len(skipped) == 2


def plan(draft, **kw):
    entities = [EntityDraft(name="Ana", type="person"), EntityDraft(name="Porto", type="city")]
    episodes = [{"role": "user", "content": "Ana moved to Porto", "occurred_at": NOW}]
    return fact_plan(draft, names=name_index(entities), entity_ids=["e-ana", "e-porto"], episodes=episodes,
                     episode_ids=["ep1"], tz=zone("UTC"), single_valued=frozenset({"lives_in"}), **kw)


def test_fact_plans_resolve_entities_dates_and_predicates():
    item, notes, skip = plan(FactDraft(subject="ana", predicate="Lives In", object="PORTO", object_is_entity=True,
                                       text="Ana  lives in Porto", valid_from="last month", valid_to="whenever", messages=[1, 7]))
    assert skip is None and notes == ["'Ana lives in Porto': end time 'whenever' not understood; left open"]
    assert (item["subject"], item["predicate"], item["object"], item["single_valued"]) == ("e-ana", "lives_in", "e-porto", True)
    assert item["valid_from"] == datetime(2024, 4, 1, tzinfo=timezone.utc) and item["derived_from"] == ["ep1"]


@pytest.mark.parametrize("draft, reason", [
    (FactDraft(subject="Zed", predicate="likes", text="Zed likes tea"), "subject 'Zed' is not one of the extracted entities"),
    (FactDraft(subject="Ana", predicate="visits", object="Lisbon", object_is_entity=True, text="Ana visits Lisbon"),
     "object 'Lisbon' is not one of the extracted entities"),
    (FactDraft(subject="Ana", predicate="!!!", text="Ana ???"), "predicate '!!!' has no letters or digits"),
    (FactDraft(subject="Ana", predicate="likes", text="  "), "text must not be empty"),
])
def test_unusable_facts_are_skipped_with_a_reason(draft, reason):
    item, _, skip = plan(draft)
    assert item is None and skip.reason == reason


def test_mentions_come_from_names_and_from_facts():
    entities = [EntityDraft(name="Ana", type="person", aliases=["Annie"]), EntityDraft(name="Porto", type="city")]
    episodes = [{"content": "Annie says hi"}, {"content": "She moved."}, {"content": "Banana bread"}]
    facts = [{"subject": "e-ana", "object": "e-porto", "derived_from": ["ep2"]}]
    assert mentions(entities, ["e-ana", "e-porto"], episodes, ["ep1", "ep2", "ep3"], facts) == [
        {"episode": "ep1", "entity": "e-ana"}, {"episode": "ep2", "entity": "e-ana"}, {"episode": "ep2", "entity": "e-porto"}]
