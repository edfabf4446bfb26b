"""Pure logic of the profile, core notes, summaries and the turn context (no database)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from graphmem import InvalidInputError, estimate_tokens
from graphmem._base.models import Episode, Fact, Note
from graphmem._learning import profile
from graphmem._working import notes, summaries, turn

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def note(text: str, i: int = 0) -> Note:
    return Note(id=f"n{i}", tenant="t", scope="s", text=text, created_at=T0, owner="bot")


def fact(predicate: str, obj: str, provenance: str, at: int = 0, scope: str = "a") -> Fact:
    return Fact(id=f"{predicate}-{obj}", tenant="t", scope=scope, text=obj, created_at=T0 + timedelta(days=at),
                subject="user:ann", predicate=predicate, object=obj, provenance=provenance,
                valid_from=T0 + timedelta(days=at))


def test_the_cap_counts_current_entries_and_edits_name_one_entry():
    entries = [note("likes tea", 1), note("likes coffee", 2)]
    assert notes.plan_add(entries, "x" * 10, 31).text == "x" * 10
    assert "over the cap of 30" in notes.plan_add(entries, "x" * 10, 30).error
    assert "2 entries" in notes.plan_replace(entries, "likes", "loves", 100).error
    plan = notes.plan_replace(entries, "tea", "green tea", 100)
    assert (plan.target.id, plan.text) == ("n1", "likes green tea")
    assert notes.plan_replace(entries, "likes tea", "", 100).error.startswith("the edit would leave")
    assert notes.plan_remove(entries, "coffee").target.id == "n2"
    with pytest.raises(InvalidInputError):
        notes.label("Persona!")


def test_a_persons_profile_value_outranks_a_later_extracted_one():
    built = profile.build("ann", [fact("profile_name", "Ann", "user"), fact("profile_name", "Annie", "extraction", 5),
                                   fact("profile_diet", "vegan", "extraction"), fact("lives_in", "Oslo", "user")])
    assert (built.name, built.custom) == ("Ann", {"diet": "vegan"})
    draft = profile.ProfileDraft(name="Annie", location="Porto", custom={"diet": "vegan", "Bad": "x"})
    current = profile.chosen([fact("profile_name", "Ann", "user"), fact("profile_diet", "vegan", "extraction")])
    assert profile.learned(draft, current) == {"location": "Porto"}
    with pytest.raises(InvalidInputError):
        profile.items("ann", {"name": " "}, scope="a", provenance="user", valid_from=None)


def test_summaries_cover_what_left_the_window_and_is_not_yet_cited():
    episodes = [Episode(id=f"e{i}", tenant="t", scope="s", text=f"m{i}", created_at=T0) for i in range(10)]
    assert [e.id for e in summaries.uncovered(episodes, 4, set())] == [f"e{i}" for i in range(6)]
    assert [e.id for e in summaries.uncovered(episodes, 4, {"e0", "e1"})] == [f"e{i}" for i in range(2, 6)]
    assert summaries.uncovered(episodes, 10, set()) == []
    with pytest.raises(ValueError):
        summaries.check_draft(summaries.SummaryDraft(text="ok"), fold=True)


def test_turn_shares_never_exceed_the_budget():
    shares = turn.shares(1000, turn.priorities({"profile": 0}))
    assert "profile" not in shares and sum(shares.values()) <= 1000
    lines = [f"- line {i} " + "x" * 30 for i in range(20)]
    block = turn.section("messages", lines, 50, newest_last=True)
    assert estimate_tokens(block + "\n\n") <= 50 and block.endswith(lines[-1])
    with pytest.raises(InvalidInputError):
        turn.priorities({"notes": -1})
