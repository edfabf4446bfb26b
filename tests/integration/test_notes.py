"""Core notes: short always-in-prompt entries per owner and label, under a hard character
cap; an edit supersedes the old version (reason 'edited'); every version is kept."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import AsyncMemory, InvalidInputError, Memory, Note, NoteEdit

from .helpers import Clock, utc

SCOPE = "acme/support"


@pytest.fixture
def clocked(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 6, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m, clock


def test_add_replace_remove_keep_every_version(clocked):
    memory, clock = clocked
    first = memory.note_add("Ann prefers short answers.", scope=SCOPE, owner="agent-1", label="user")
    assert isinstance(first, NoteEdit) and first.ok and first.error is None
    assert first.entries == ["Ann prefers short answers."] and first.usage == 26 and first.cap == 2000
    assert isinstance(first.note, Note) and first.note.label == "user" and first.note.owner == "agent-1"
    clock.tick(minutes=1)
    memory.note_add("Ann works on billing.", scope=SCOPE, owner="agent-1", label="user")
    clock.tick(minutes=1)
    edited = memory.note_replace("short answers", "answers with code samples", scope=SCOPE, owner="agent-1",
                                 label="user")
    assert edited.ok and edited.entries == ["Ann works on billing.", "Ann prefers answers with code samples."]
    assert edited.usage == sum(len(e) for e in edited.entries)
    old = memory.get(first.note.id)
    assert old.invalidation_reason == "edited" and old.invalidated_at == clock.now
    assert [(s.by, s.reason) for s in old.superseded_by] == [(edited.note.id, "edited")]
    clock.tick(minutes=1)
    removed = memory.note_remove("billing", scope=SCOPE, owner="agent-1", label="user")
    assert removed.ok and removed.note is None and removed.entries == ["Ann prefers answers with code samples."]
    assert [n.text for n in memory.notes(scope=SCOPE, owner="agent-1")] == removed.entries
    history = memory.note_history(scope=SCOPE, owner="agent-1", label="user")
    assert [(n.text, n.invalidation_reason) for n in history] == [
        ("Ann prefers short answers.", "edited"), ("Ann works on billing.", "removed"),
        ("Ann prefers answers with code samples.", None)]
    # what the notes read at an earlier moment
    assert [n.text for n in memory.notes(scope=SCOPE, owner="agent-1", as_of=utc(2025, 6, 1))] == [
        "Ann prefers short answers."]
    # other owners, labels and scopes are separate
    assert memory.notes(scope=SCOPE, owner="agent-2") == []
    assert memory.notes(scope=SCOPE, owner="agent-1", label="persona") == []
    assert memory.notes(scope=SCOPE + "/child", owner="agent-1") == []


def test_an_edit_over_the_cap_is_refused_with_usage_and_nothing_is_written(memory):
    assert memory.note_add("x" * 30, scope=SCOPE, owner="bot", label="persona", cap=50).ok
    refused = memory.note_add("y" * 21, scope=SCOPE, owner="bot", label="persona", cap=50)
    assert not refused.ok and "over the cap of 50" in refused.error
    assert (refused.usage, refused.cap, refused.entries, refused.note) == (30, 50, ["x" * 30], None)
    grown = memory.note_replace("x" * 30, "z" * 51, scope=SCOPE, owner="bot", label="persona", cap=50)
    assert not grown.ok and grown.usage == 30
    assert [n.text for n in memory.note_history(scope=SCOPE, owner="bot")] == ["x" * 30]  # nothing written
    # consolidating to make room works, and then the add fits
    assert memory.note_replace("x" * 30, "x" * 10, scope=SCOPE, owner="bot", label="persona", cap=50).ok
    fits = memory.note_add("y" * 21, scope=SCOPE, owner="bot", label="persona", cap=50)
    assert fits.ok and fits.usage == 31
    # the cap counts current versions only: three versions written, 31 characters current
    assert len(memory.note_history(scope=SCOPE, owner="bot")) == 3
    # another label has its own budget
    assert memory.note_add("w" * 50, scope=SCOPE, owner="bot", label="user", cap=50).ok


def test_unmatched_or_ambiguous_edits_are_refused(memory):
    memory.note_add("likes tea", scope=SCOPE, owner="bot")
    memory.note_add("likes coffee", scope=SCOPE, owner="bot")
    missing = memory.note_replace("likes juice", "likes water", scope=SCOPE, owner="bot")
    assert not missing.ok and "no current entry" in missing.error and missing.entries == ["likes tea", "likes coffee"]
    ambiguous = memory.note_remove("likes", scope=SCOPE, owner="bot")
    assert not ambiguous.ok and "2 entries" in ambiguous.error
    assert memory.note_remove("likes tea", scope=SCOPE, owner="bot").entries == ["likes coffee"]
    with pytest.raises(InvalidInputError) as info:
        memory.note_add("", scope=SCOPE, owner="bot")
    assert info.value.field == "text"
    with pytest.raises(InvalidInputError) as info:
        memory.note_add("ok", scope=SCOPE, owner="bot", cap=0)
    assert info.value.field == "cap"
    with pytest.raises(InvalidInputError) as info:
        memory.note_add("ok", scope=SCOPE, owner="bot", label="Bad Label")
    assert info.value.field == "label"
    with pytest.raises(InvalidInputError) as info:
        memory.note_add("ok", scope=SCOPE, owner="")
    assert info.value.field == "owner"


def test_concurrent_adds_never_exceed_the_cap(neo4j, schema, embedder, tenant):
    async def run() -> list[NoteEdit]:
        async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
            edits = await asyncio.gather(*[m.note_add(f"entry number {i:02d}", scope=SCOPE, owner="bot", cap=80)
                                           for i in range(10)])
            current = await m.notes(scope=SCOPE, owner="bot")
            return [*edits, current]

    *edits, current = asyncio.run(run())
    assert sum(e.ok for e in edits) == 5  # 15 characters each: five fit in 80, a sixth would not
    assert sum(len(n.text) for n in current) == 75 and len(current) == 5
    assert all("over the cap" in e.error for e in edits if not e.ok)


def test_notes_take_part_in_recall_as_their_own_kind(memory):
    memory.note_add("The customer Ann is allergic to peanuts.", scope=SCOPE, owner="bot", label="user")
    memory.remember("Ann ordered a cake.", scope=SCOPE)
    results = memory.recall("peanuts allergy", scope=SCOPE, kinds=["note"])
    assert [r.record.kind for r in results] == ["note"] and results[0].record.owner == "bot"
    assert "Core notes" in memory.context("peanuts allergy", scope=SCOPE, sections=["notes", "facts"])
