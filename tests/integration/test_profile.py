"""A user's profile: typed fields held by single-valued facts, with history, time travel and
the trust rule (a person's value is never overwritten by extraction)."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError, Memory, Profile

from .helpers import Clock, utc

SCOPE = "acme/chat"


@pytest.fixture
def clocked(neo4j, schema, embedder, tenant):
    clock = Clock(utc(2025, 3, 1))
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder, clock=clock) as m:
        yield m, clock


def test_set_profile_reads_back_typed_fields_and_custom_ones(memory):
    profile = memory.set_profile("ann", scope=SCOPE, name="Ann Lee", role="data engineer",
                                 timezone="Europe/Paris", language="French", location="Lyon", team_size="4")
    assert isinstance(profile, Profile)
    assert (profile.name, profile.role, profile.timezone, profile.language, profile.location) == (
        "Ann Lee", "data engineer", "Europe/Paris", "French", "Lyon")
    assert profile.custom == {"team_size": "4"}
    assert memory.profile("ann", scope=SCOPE) == profile
    fact = memory.get(profile.facts["timezone"])
    assert (fact.subject, fact.predicate, fact.object) == ("user:ann", "profile_timezone", "Europe/Paris")
    assert fact.single_valued and fact.provenance.value == "user" and fact.user_id == "ann"
    # another user, and a sibling scope, see nothing of it
    assert memory.profile("bo", scope=SCOPE) == Profile(user_id="bo")
    assert memory.profile("ann", scope="acme/other").name is None
    assert memory.profile("ann", scope=SCOPE + "/deeper").name == "Ann Lee"


def test_a_field_changed_twice_has_its_history_and_time_travel(clocked):
    memory, clock = clocked
    memory.set_profile("ann", scope=SCOPE, location="Lyon", role="analyst")
    first = clock.now
    clock.tick(days=30)
    memory.set_profile("ann", scope=SCOPE, location="Berlin")
    second = clock.now
    clock.tick(days=30)
    memory.set_profile("ann", scope=SCOPE, location="Oslo", provenance="manual")
    history = memory.profile_history("ann", "location", scope=SCOPE)
    assert [f.object for f in history] == ["Lyon", "Berlin", "Oslo"]
    assert history[0].valid_to == second and history[1].valid_to == clock.now and history[2].valid_to is None
    assert [s.reason for s in history[0].superseded_by] == ["changed"]
    assert history[0].superseded_by[0].by == history[1].id
    assert memory.profile("ann", scope=SCOPE).location == "Oslo"
    # the world as it was, and what the memory believed at a past moment
    assert memory.profile("ann", scope=SCOPE, valid_at=first).location == "Lyon"
    assert memory.profile("ann", scope=SCOPE, valid_at=second).location == "Berlin"
    assert memory.profile("ann", scope=SCOPE, as_of=second, valid_at=second).location == "Berlin"
    assert memory.profile("ann", scope=SCOPE, as_of=first, valid_at=first).location == "Lyon"
    assert memory.profile("ann", scope=SCOPE).role == "analyst"  # untouched fields stay


def test_extraction_never_overwrites_a_persons_value(clocked):
    memory, clock = clocked
    memory.set_profile("ann", scope=SCOPE, name="Ann Lee")
    clock.tick(days=1)
    memory.set_profile("ann", scope=SCOPE, name="Anna", provenance="extraction", language="German")
    profile = memory.profile("ann", scope=SCOPE)
    assert profile.name == "Ann Lee"  # the person's value wins
    assert profile.language == "German"  # extraction may fill an empty field
    history = memory.profile_history("ann", "name", scope=SCOPE)
    person = next(f for f in history if f.object == "Ann Lee")
    assert person.valid_to is None and person.invalidated_at is None and person.superseded_by == ()
    # a person's later value does end the extracted one
    clock.tick(days=1)
    memory.set_profile("ann", scope=SCOPE, language="English")
    assert memory.profile("ann", scope=SCOPE).language == "English"
    german = next(f for f in memory.profile_history("ann", "language", scope=SCOPE) if f.object == "German")
    assert german.valid_to == clock.now


def test_one_bad_field_writes_nothing(memory):
    with pytest.raises(InvalidInputError) as info:
        memory.set_profile("ann", scope=SCOPE, name="Ann", role="")
    assert info.value.field == "role"
    with pytest.raises(InvalidInputError) as info:
        memory.set_profile("ann", scope=SCOPE, name="Ann", **{"Bad-Field": "x"})
    assert info.value.field == "field"
    with pytest.raises(InvalidInputError) as info:
        memory.set_profile("ann", scope=SCOPE)
    assert info.value.field == "fields"
    with pytest.raises(InvalidInputError):
        memory.set_profile("ann", scope=SCOPE, name="Ann", provenance="rumour")
    assert memory.profile("ann", scope=SCOPE) == Profile(user_id="ann")
    with pytest.raises(InvalidInputError) as info:
        memory.profile_history("ann", "Not A Field", scope=SCOPE)
    assert info.value.field == "field"


def test_learn_profile_fills_fields_from_a_conversation_but_never_replaces_a_persons(memory):
    from ..fakes import scripted, tool_answer

    memory.set_profile("ann", scope=SCOPE, name="Ann Lee")
    memory.ingest([{"role": "user", "content": "Hi, I'm Annie, I moved to Porto and I'm vegetarian."},
                   {"role": "assistant", "content": "Noted!"}], scope=SCOPE, llm=None, session_id="s1", user_id="ann")
    model = scripted(tool_answer("ProfileDraft", {"name": "Annie", "location": "Porto", "custom": {"diet": "vegetarian",
                                                                                                  "Bad Key": "x"}}))
    profile = memory.learn_profile("ann", scope=SCOPE, session_id="s1", llm=model)
    assert model.calls == 1
    assert (profile.name, profile.location, profile.custom) == ("Ann Lee", "Porto", {"diet": "vegetarian"})
    location = memory.get(profile.facts["location"])
    assert location.provenance.value == "extraction"
    assert [f.object for f in memory.profile_history("ann", "name", scope=SCOPE)] == ["Ann Lee"]  # not even written
    # the extracted value cites the messages it came from
    sources = {e.id for e in memory.messages("s1", scope=SCOPE)}
    trail = memory.evidence(location.id)
    derived = {b for _, b, data in trail.out_edges(location.id, data=True) if data["type"] == "DERIVED_FROM"}
    assert derived == sources and len(sources) == 2
    # a later extraction replaces an extracted value; a session without messages asks no model
    memory.ingest([{"role": "user", "content": "Actually I now live in Braga."}], scope=SCOPE, llm=None,
                  session_id="s1", user_id="ann")
    again = scripted(tool_answer("ProfileDraft", {"location": "Braga"}))
    assert memory.learn_profile("ann", scope=SCOPE, session_id="s1", llm=again).location == "Braga"
    assert [f.object for f in memory.profile_history("ann", "location", scope=SCOPE)] == ["Porto", "Braga"]
    idle = scripted()
    assert memory.learn_profile("ann", scope=SCOPE, session_id="empty", llm=idle).location == "Braga"
    assert idle.calls == 0
