"""Session summaries: the messages that fell out of the window become a summary citing
them; at most max_count per session, the two oldest folded into one (nothing lost)."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError, Memory, ModelError, Summary

from ..fakes import scripted, tool_answer
from .helpers import Clock, utc

SCOPE = "acme/chat/ann"


def said(n: int, start: int = 0) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}: about topic {i}"}
            for i in range(start, start + n)]


def summary_model(*texts: str, folded: str | None = None):
    return scripted(*[tool_answer("SummaryDraft", {"text": t, "folded": folded}) for t in texts])


@pytest.fixture
def clocked(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 4, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m, clock


def test_a_sixty_message_session_summarises_its_overflow_and_cites_it(clocked):
    memory, clock = clocked
    memory.ingest(said(60), scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    episodes = memory.messages("s1", scope=SCOPE, max_messages=100)
    assert len(episodes) == 60
    clock.tick(minutes=5)
    model = summary_model("Ann talked about topics 0 to 39; she wants a refund for order 17.")
    summary = memory.summarize("s1", scope=SCOPE, llm=model, window=20)
    assert isinstance(summary, Summary) and model.calls == 1
    assert set(summary.cites) == {e.id for e in episodes[:40]}  # exactly the 40 outside the window
    assert summary.session_id == "s1" and summary.user_id == "ann" and summary.provenance.value == "extraction"
    assert summary.covers_from == episodes[0].occurred_at and summary.covers_to == episodes[39].occurred_at
    assert memory.get(summary.id).cites == summary.cites
    # nothing new fell out of the window: no model call, no summary
    assert memory.summarize("s1", scope=SCOPE, llm=model, window=20) is None and model.calls == 1
    # ten more messages push messages 40..49 out of the window
    clock.tick(seconds=1)
    memory.ingest(said(10, start=60), scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    second = memory.summarize("s1", scope=SCOPE, llm=summary_model("Topics 40 to 49."), window=20)
    assert set(second.cites) == {e.id for e in memory.messages("s1", scope=SCOPE, max_messages=100)[40:50]}
    assert [s.id for s in memory.summaries("s1", scope=SCOPE)] == [summary.id, second.id]
    assert memory.summaries("s2", scope=SCOPE) == []
    # summaries take part in recall as their own kind, and have a context section
    found = memory.recall("refund for order 17", scope=SCOPE, kinds=["summary"])
    assert [r.record.id for r in found][:1] == [summary.id]
    assert "## Summaries" in memory.context("refund order 17", scope=SCOPE, sections=["summaries"])


def test_at_max_count_the_two_oldest_are_folded_not_lost(clocked):
    memory, clock = clocked
    memory.ingest(said(4), scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    first = memory.summarize("s1", scope=SCOPE, llm=summary_model("first part"), window=2, max_count=2)
    clock.tick(seconds=1)  # messages of a later batch happen later (ties would order by id)
    memory.ingest(said(2, start=4), scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    second = memory.summarize("s1", scope=SCOPE, llm=summary_model("second part"), window=2, max_count=2)
    clock.tick(seconds=1)
    memory.ingest(said(2, start=6), scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    clock.tick(minutes=1)
    # at the limit: the model must merge the two oldest; a reply without the merge is retried
    model = scripted(tool_answer("SummaryDraft", {"text": "third part"}),
                     tool_answer("SummaryDraft", {"text": "third part", "folded": "first and second parts"}))
    third = memory.summarize("s1", scope=SCOPE, llm=model, window=2, max_count=2)
    assert model.calls == 2
    current = memory.summaries("s1", scope=SCOPE)
    assert [s.text for s in current] == ["first and second parts", "third part"] and current[1].id == third.id
    assert set(current[0].cites) == set(first.cites) | set(second.cites)  # every episode still covered
    everything = memory.summaries("s1", scope=SCOPE, include_folded=True)
    folded = {s.id: s for s in everything if s.invalidated_at is not None}
    assert set(folded) == {first.id, second.id}
    assert all(s.invalidation_reason == "folded" and s.superseded_by[0].by == current[0].id
               for s in folded.values())
    episodes = memory.messages("s1", scope=SCOPE, max_messages=100)
    assert set(current[0].cites) | set(third.cites) == {e.id for e in episodes[:-2]}


def test_a_failing_model_writes_nothing_and_arguments_are_checked(memory):
    memory.ingest(said(5), scope=SCOPE, llm=None, session_id="s1")
    broken = scripted(*[tool_answer("SummaryDraft", {"text": "  "})] * 3)
    with pytest.raises(ModelError):
        memory.summarize("s1", scope=SCOPE, llm=broken, window=2)
    assert memory.summaries("s1", scope=SCOPE, include_folded=True) == []
    for kwargs, field in [({"window": 0}, "window"), ({"max_count": 1}, "max_count"), ({"llm": None}, "llm")]:
        args = {"scope": SCOPE, "llm": summary_model("x"), **kwargs}
        with pytest.raises(InvalidInputError) as info:
            memory.summarize("s1", **args)
        assert info.value.field == field
