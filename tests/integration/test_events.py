"""on_event: every write and recall is published (remembered, recalled, ingested, corrected,
forgotten, erased), and so are invalidations, supersessions, prunes, demotions and
summaries, once, after they are committed, with no text; a hook that raises never breaks
the memory."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import LearningSettings, Memory, MemoryEvent

from ..fakes import scripted, tool_answer

SCOPE = "acme"
NEWS = {"remembered", "recalled", "ingested", "corrected", "forgotten", "erased"}


@pytest.fixture
def watched(neo4j, schema, embedder, tenant):
    """A memory and the lifecycle events it publishes (those of every write and recall,
    ``NEWS``, are left out: the tests below them have their own)."""
    events: list[MemoryEvent] = []

    def lifecycle(event: MemoryEvent) -> None:
        if event.kind not in NEWS:
            events.append(event)

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=lifecycle, learning=LearningSettings(min_outcomes=2, max_failure_rate=0.4)) as memory:
        yield memory, events


def kinds(events):
    return [(e.kind, e.reason) for e in events]


def test_supersession_and_correction_and_forget_are_published(watched):
    memory, events = watched
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    porto = memory.remember("Ann lives in Porto.", scope=SCOPE, subject="Ann", predicate="lives_in", object="Porto",
                            single_valued=True, valid_from=start)
    assert events == []  # nothing ended yet
    lisbon = memory.remember("Ann lives in Lisbon.", scope=SCOPE, subject="Ann", predicate="lives_in",
                             object="Lisbon", single_valued=True, valid_from=start + timedelta(days=30))
    assert kinds(events) == [("superseded", "changed")] and events[0].ids == (porto.id,)
    fixed = memory.correct(lisbon.id, "Ann lives in Lisboa.", reason="spelling")
    assert ("invalidated", "corrected") in kinds(events)
    assert next(e for e in events if e.reason == "corrected").ids == (lisbon.id,)
    events.clear()
    assert memory.forget(scope=SCOPE, id=fixed.id) == 1
    assert kinds(events) == [("invalidated", "forgotten")] and events[0].ids == (fixed.id,)
    assert events[0].scope == SCOPE and events[0].tenant == memory.tenant


def test_a_write_that_changes_nothing_publishes_nothing(watched):
    memory, events = watched
    memory.remember("Bob likes tea.", scope=SCOPE)
    memory.remember("Bob likes tea.", scope=SCOPE)  # a duplicate: returned, not written
    assert memory.forget(scope=SCOPE, text="nothing like this was said") == 0
    assert events == []


def test_prune_demotion_and_summaries_are_published(watched):
    memory, events = watched
    old = memory.remember("The build uses Maven.", scope=SCOPE, provenance="extraction")
    assert memory.prune(scope=SCOPE, older_than=datetime.now(timezone.utc) + timedelta(days=1))["pruned"] == 1
    assert kinds(events) == [("pruned", "pruned")] and events[0].ids == (old.id,)
    events.clear()

    procedure = memory.add_procedure("Deploy", scope=SCOPE, steps=["build", "ship"])
    memory.validate(procedure.id)
    memory.record_outcome(procedure.id, False)
    assert events == []
    memory.record_outcome(procedure.id, False)
    assert [e.kind for e in events] == ["demoted"] and events[0].ids == (procedure.id,)
    events.clear()

    chat = [{"role": "user", "content": f"turn {i} about the trip"} for i in range(6)]
    memory.ingest(chat, scope=SCOPE, llm=None, session_id="trip")
    model = scripted(tool_answer("SummaryDraft", {"text": "They talked about the trip."}))
    summary = memory.summarize("trip", scope=SCOPE, llm=model, window=2)
    assert [e.kind for e in events] == ["summary_created"] and events[0].ids == (summary.id,)
    assert events[0].detail == {"session_id": "trip", "covers": 4}


def test_a_hook_that_raises_is_logged_and_the_write_stands(neo4j, schema, embedder, tenant, caplog):
    def broken(event):
        raise RuntimeError("my exporter is down")

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=broken) as memory:
        fact = memory.remember("Cleo uses vim.", scope=SCOPE)
        with caplog.at_level(logging.ERROR, logger="graphmem"):
            assert memory.forget(scope=SCOPE, id=fact.id) == 1
        assert memory.get(fact.id).invalidation_reason == "forgotten"
    assert "on_event hook raised" in caplog.text and "my exporter is down" in caplog.text


def test_an_extraction_failure_in_ingest_is_published(watched):
    memory, events = watched
    result = memory.ingest([{"role": "user", "content": "I'm Ann."}], scope=SCOPE, llm=scripted(*["no"] * 5))
    assert result.error is not None
    assert [e.kind for e in events] == ["extraction_failed"] and events[0].ids == result.episode_ids
    assert events[0].detail["purpose"] == "ingest"


def test_on_event_must_be_callable(neo4j, tenant):
    from graphmem import InvalidInputError

    with pytest.raises(InvalidInputError) as info:
        Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=None, on_event="print")
    assert info.value.field == "on_event"


def test_clearing_a_session_and_deleting_a_store_item_are_published(watched):
    from graphmem.integrations.langgraph import GraphMemStore

    memory, events = watched
    said = memory.add_episode("Hello there.", scope=SCOPE, session_id="s1")
    assert memory.clear_session("s1", scope=SCOPE) == 1
    assert kinds(events) == [("invalidated", "forgotten")] and events[0].ids == (said.id,)
    assert events[0].scope == SCOPE
    events.clear()
    store = GraphMemStore(memory)
    store.put(("acme", "prefs"), "theme", {"color": "green"})
    assert events == []
    store.delete(("acme", "prefs"), "theme")
    assert kinds(events) == [("invalidated", "forgotten")] and len(events[0].ids) == 1


def test_every_write_and_recall_is_published_without_text(neo4j, schema, embedder, tenant):
    seen: list[MemoryEvent] = []
    everything: list[MemoryEvent] = []

    def hook(event: MemoryEvent) -> None:
        seen.append(event)
        everything.append(event)

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, on_event=hook) as memory:
        fact = memory.remember("Ann lives in Porto.", scope=SCOPE, user_id="ann")
        assert [(e.kind, e.ids, e.detail) for e in seen] == [("remembered", (fact.id,), {"kinds": {"fact": 1}})]
        seen.clear()

        found = memory.recall("Where does Ann live?", scope=SCOPE)
        [asked] = seen
        assert asked.kind == "recalled" and asked.ids == tuple(r.record.id for r in found) and fact.id in asked.ids
        assert asked.detail["k"] == 10 and asked.detail["returned"] == len(found) and asked.scope == SCOPE
        assert set(asked.detail["candidates"]) == {"semantic", "lexical", "graph", "entity", "seeds"}
        assert asked.seconds is not None and asked.seconds > 0
        seen.clear()

        result = memory.ingest([{"role": "user", "name": "Ann", "content": "I moved to Lisbon."}], scope=SCOPE,
                               llm=None, session_id="s1", user_id="ann")
        assert [e.kind for e in seen] == ["remembered", "ingested"]
        assert seen[0].detail["kinds"]["episode"] == 1 and seen[0].detail["kinds"]["entity"] >= 1
        assert seen[1].ids == result.episode_ids and seen[1].detail["messages"] == 1
        assert seen[1].detail["entities"] == len(result.entities_created) and seen[1].seconds > 0
        seen.clear()

        fixed = memory.correct(fact.id, "Ann lives in Braga.")
        corrected = next(e for e in seen if e.kind == "corrected")
        assert corrected.ids == (fixed.id, fact.id) and corrected.detail["invalidated"] >= 1
        assert ("remembered", (fixed.id,)) in [(e.kind, e.ids) for e in seen]
        seen.clear()

        assert memory.forget(scope=SCOPE, id=fixed.id) == 1
        assert [(e.kind, e.ids) for e in seen] == [("invalidated", (fixed.id,)), ("forgotten", (fixed.id,))]
        seen.clear()

        report = memory.erase(user_id="ann")
        [erased] = [e for e in seen if e.kind == "erased"]
        assert erased.ids == () and erased.detail["total"] == report.total >= 2 and erased.detail["fact"] == report.fact
    told = " ".join(e.model_dump_json() for e in everything)
    assert [w for w in ("Porto", "Lisbon", "Braga", "Where does", "ann") if w in told] == []


def test_a_hook_that_raises_on_every_event_leaves_each_write_whole(neo4j, schema, embedder, tenant, caplog):
    def broken(event):
        raise RuntimeError("my subscriber is down")

    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                on_event=broken) as memory, caplog.at_level(logging.ERROR, logger="graphmem"):
        fact = memory.remember("Cleo uses vim.", scope=SCOPE)
        result = memory.ingest([{"role": "user", "name": "Cleo", "content": "I moved to Oslo."},
                                {"role": "assistant", "content": "Noted."}], scope=SCOPE, llm=None, session_id="s")
        assert fact.id in [r.record.id for r in memory.recall("What does Cleo use?", scope=SCOPE)]
        assert memory.get(fact.id).text == "Cleo uses vim."
        assert [m.text for m in memory.messages("s", scope=SCOPE)] == ["I moved to Oslo.", "Noted."]
        assert len(result.episodes) == 2
    assert caplog.text.count("on_event hook raised") >= 4  # remembered, remembered, ingested, recalled
