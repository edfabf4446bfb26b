"""How a record reads in a prompt (_recall/lines.py) and the exchange context() adds around a
turn (_recall/context.with_exchange), without a database."""

from __future__ import annotations

from datetime import datetime, timezone

from graphmem._base.models import Episode, Fact
from graphmem._recall import context, lines
from graphmem._recall.fusion import ScoredMemory, ScoreParts

DAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def episode(i: int, text: str, speaker: str | None = None, role: str = "user", session: str = "s") -> Episode:
    return Episode(id=f"e{i}", tenant="t", scope="s", text=text, created_at=DAY, occurred_at=DAY.replace(minute=i),
                   speaker=speaker, role=role, session_id=session)


def scored(record, score: float) -> ScoredMemory:
    return ScoredMemory(record=record, score=score, parts=ScoreParts())


def test_an_episode_reads_as_a_transcript_line():
    assert lines.said(episode(1, "I went to a yoga\nretreat in Bali.", "Deborah")) == \
        "2023-05-08 Deborah: I went to a yoga retreat in Bali."
    assert lines.said(episode(1, "Deborah: I went to Bali.", "Deborah")) == "2023-05-08 Deborah: I went to Bali."
    assert lines.said(episode(1, "Noted.", None, "assistant")) == "2023-05-08 assistant: Noted."
    assert lines.said(episode(1, "x" * 50, "Ann"), limit=10) == "2023-05-08 Ann: xxxxxxx..."
    assert context.line(scored(episode(1, "Hi", "Ann"), 1.0)) == "- 2023-05-08 Ann: Hi"


def test_a_fact_names_its_entities_and_says_when_it_holds():
    fact = Fact(id="f", tenant="t", scope="s", text="ent_7 lives in ent_9", subject="ent_7", subject_name="Ann Lee",
                predicate="lives_in", object="ent_9", object_name="Porto", created_at=DAY, valid_from=DAY)
    assert lines.statement(fact) == "Ann Lee lives in Porto"
    assert lines.triple(fact) == "Ann Lee lives_in Porto"
    assert lines.body(fact) == "Ann Lee lives in Porto (since 2023-05-08)"
    noted = fact.model_copy(update={"valid_from_stated": False, "text": "Ann lives in Porto"})
    assert lines.body(noted) == "Ann lives in Porto (noted 2023-05-08)"
    assert lines.triple(fact.model_copy(update={"predicate": None})) is None
    assert context.line(scored(fact, 1.0)) == "- [manual] Ann Lee lives in Porto (since 2023-05-08)"


TALK = [episode(0, "My cousin visited.", "Nora"), episode(1, "I went to a poetry reading.", "Theo"),
        episode(2, "What was it about?", "Nora"), episode(3, "Lighthouse keepers.", "Theo")]


def node(e: Episode) -> dict:
    """An episode as the template's record fragment returns it."""
    return {"kind": "episode", "id": e.id, "tenant": e.tenant, "scope": e.scope, "text": e.text,
            "createdAt": e.created_at.isoformat(), "occurredAt": e.occurred_at.isoformat(), "speaker": e.speaker,
            "role": e.role, "sessionId": e.session_id}


def rows(hit: str, near: dict[int, Episode]) -> list[context.ExchangeRow]:
    return [context.ExchangeRow(hit=hit, offset=o, node=node(e)) for o, e in near.items()]


def test_the_exchange_around_a_hit_counts_as_a_share_of_its_score():
    hit = scored(TALK[1], 1.0)
    other = scored(episode(9, "Unrelated.", "Nora", session="t"), 0.5)
    out = context.with_exchange([hit, other], rows("e1", {-1: TALK[0], 1: TALK[2], 2: TALK[3]}), 0.8)
    # a tie goes to the reply, then the turn after it, then the turn before (never to the ids)
    assert [(r.record.id, round(r.score, 2)) for r in out] == [("e1", 1.0), ("e2", 0.8), ("e3", 0.8), ("e0", 0.8),
                                                               ("e9", 0.5)]
    assert all(r.via_graph for r in out[1:4])
    # ... and before that to the turn recall itself ranked higher
    before = scored(TALK[0], 0.2)
    out = context.with_exchange([hit, other, before], rows("e1", {-1: TALK[0], 1: TALK[2]}), 0.8)
    assert [r.record.id for r in out] == ["e1", "e0", "e2", "e9"]
    assert context.with_exchange([hit, other], rows("e1", {1: TALK[2]}), 0.0) == [hit, other]


def test_a_turn_already_found_keeps_the_higher_score():
    hit, reply = scored(TALK[1], 1.0), scored(TALK[2], 0.9)
    out = context.with_exchange([hit, reply], rows("e1", {1: TALK[2]}), 0.8)
    assert [(r.record.id, r.score) for r in out] == [("e1", 1.0), ("e2", 0.9)]
    low = scored(TALK[2], 0.3)
    out = context.with_exchange([hit, low], rows("e1", {1: TALK[2]}), 0.8)
    assert [(r.record.id, round(r.score, 2)) for r in out] == [("e1", 1.0), ("e2", 0.8)]
    assert out[1].parts == low.parts  # raised, not replaced


def test_one_speaker_in_a_row_makes_no_exchange():
    notes = [episode(i, f"note {i}", None) for i in range(4)]
    out = context.with_exchange([scored(notes[1], 1.0)], rows("e1", {-1: notes[0], 1: notes[2], 2: notes[3]}), 0.8)
    assert [r.record.id for r in out] == ["e1"]
    # the turn two on counts when the reply between is someone else's
    mixed = [notes[0], notes[1], episode(2, "reply", None, "assistant"), notes[3]]
    out = context.with_exchange([scored(mixed[1], 1.0)], rows("e1", {-1: mixed[0], 1: mixed[2], 2: mixed[3]}), 0.8)
    assert [r.record.id for r in out] == ["e1", "e2", "e3"]


def test_the_block_keeps_to_its_estimate_and_shows_turns_in_the_order_said():
    results = [scored(TALK[3], 1.0), scored(TALK[1], 0.9), scored(TALK[0], 0.5)]
    block = context.render(results, max_tokens=1000, order=["episodes"])
    assert block.splitlines()[1:] == ["- 2023-05-08 Nora: My cousin visited.",
                                      "- 2023-05-08 Theo: I went to a poetry reading.",
                                      "- 2023-05-08 Theo: Lighthouse keepers."]
    for budget in range(1, 40):
        text = context.render(results, max_tokens=budget, order=["episodes"])
        assert context.estimate_tokens(text) <= budget if text else True
    # the best lines are the ones kept
    assert context.render(results, max_tokens=13, order=["episodes"]) == "## Episodes\n- 2023-05-08 Theo: Lighthouse keepers."
