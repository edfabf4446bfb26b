"""Contradiction rule 1 (single-valued supersession) and who it may touch."""

from __future__ import annotations

from .helpers import utc

SCOPE = "acme/bob"


def test_single_valued_builds_a_chain(memory):
    ids = []
    for year, company in [(2015, "Initech"), (2018, "Globex"), (2021, "Acme")]:
        ids.append(memory.remember(f"Bob works at {company}", scope=SCOPE, subject="bob", predicate="works_at",
                                   object=company, valid_from=utc(year)).id)
    chain = memory.history(subject="bob", predicate="works_at", scope=SCOPE)
    assert [f.id for f in chain] == ids
    assert [s.by for f in chain[:-1] for s in f.superseded_by] == ids[1:]
    assert [f.valid_to for f in chain] == [utc(2018), utc(2021), None]


def test_multi_valued_predicates_never_supersede(memory):
    for food in ["pizza", "sushi", "tacos"]:
        memory.remember(f"Bob likes {food}", scope=SCOPE, subject="bob", predicate="likes", object=food)
    for friend in ["carol", "dave"]:
        memory.remember(f"Bob knows {friend}", scope=SCOPE, subject="bob", predicate="knows", object=friend)
    current = memory.facts(scope=SCOPE, subject="bob")
    assert sorted(f.object for f in current) == ["carol", "dave", "pizza", "sushi", "tacos"]
    assert all(not f.superseded_by and f.valid_to is None for f in memory.history(subject="bob", scope=SCOPE))


def test_explicit_single_valued_flag_overrides_the_default(memory):
    memory.remember("Bob's favourite colour is red", scope=SCOPE, subject="bob", predicate="favourite_colour",
                    object="red", single_valued=True, valid_from=utc(2020))
    memory.remember("Bob's favourite colour is blue", scope=SCOPE, subject="bob", predicate="favourite_colour",
                    object="blue", single_valued=True, valid_from=utc(2022))
    assert [f.object for f in memory.facts(scope=SCOPE, predicate="favourite_colour")] == ["blue"]


def test_extraction_never_touches_user_manual_or_correction_records(memory):
    protected = {}
    for i, provenance in enumerate(["user", "manual", "human-correction"]):
        subject = f"p{i}"
        protected[provenance] = memory.remember(
            f"{subject} lives in Paris", scope=SCOPE, subject=subject, predicate="lives_in", object="Paris",
            provenance=provenance, valid_from=utc(2020))
        memory.remember(f"{subject} lives in Berlin", scope=SCOPE, subject=subject, predicate="lives_in",
                        object="Berlin", provenance="extraction", valid_from=utc(2022))
        memory.remember(f"{subject} lives in Rome", scope=SCOPE, subject=subject, predicate="lives_in",
                        object="Rome", provenance="extraction", valid_from=utc(2020))
    for provenance, fact in protected.items():
        stored = memory.get(fact.id)
        assert stored.valid_to is None, provenance
        assert stored.invalidated_at is None, provenance
        assert stored.superseded_by == (), provenance


def test_extraction_supersedes_extraction(memory):
    old = memory.remember("Eve lives in Oslo", scope=SCOPE, subject="eve", predicate="lives_in", object="Oslo",
                          provenance="extraction", valid_from=utc(2020))
    memory.remember("Eve lives in Bergen", scope=SCOPE, subject="eve", predicate="lives_in", object="Bergen",
                    provenance="extraction", valid_from=utc(2022))
    assert memory.get(old.id).valid_to == utc(2022)


def test_a_batch_reads_like_a_timeline(memory):
    facts = memory.remember_many([
        {"text": "Bob lives in Rome", "scope": SCOPE, "subject": "bob", "predicate": "lives_in", "object": "Rome", "valid_from": utc(2022)},
        {"text": "Bob lives in Oslo", "scope": SCOPE, "subject": "bob", "predicate": "lives_in", "object": "Oslo", "valid_from": utc(2016)},
        {"text": "Bob lives in Kyiv", "scope": SCOPE, "subject": "bob", "predicate": "lives_in", "object": "Kyiv", "valid_from": utc(2019)},
        {"text": "Bob likes tea", "scope": SCOPE, "subject": "bob", "predicate": "likes", "object": "tea"},
    ])
    assert [f.object for f in facts] == ["Rome", "Oslo", "Kyiv", "tea"]
    by_object = {f.object: f for f in memory.history(subject="bob", predicate="lives_in", scope=SCOPE)}
    assert by_object["Oslo"].valid_to == utc(2019)
    assert by_object["Kyiv"].valid_to == utc(2022)
    assert by_object["Rome"].valid_to is None
    assert [f.object for f in memory.facts(scope=SCOPE, predicate="lives_in")] == ["Rome"]


def test_supersession_stays_within_the_facts_own_scope(memory):
    """A write closes only facts of its own scope; a view of several scopes shows the value
    that outranks the others (docs/design-notes.md#scope-chain-facts)."""
    parent = memory.remember("Bob lives in Paris", scope="acme", subject="bob", predicate="lives_in",
                             object="Paris", valid_from=utc(2020))
    child = memory.remember("Bob lives in Berlin", scope="acme/bob", subject="bob", predicate="lives_in",
                            object="Berlin", valid_from=utc(2023))
    kept = memory.get(parent.id)  # the parent's fact is in acme/bob's chain, but not its scope
    assert kept.valid_to is None and kept.superseded_by == ()
    memory.remember("Bob lives in Lima", scope="acme/other", subject="bob", predicate="lives_in",
                    object="Lima", valid_from=utc(2024))
    untouched = memory.get(child.id)  # acme/bob is a sibling of acme/other, not in its chain
    assert untouched.valid_to is None and untouched.superseded_by == ()
    assert memory.get(parent.id).valid_to is None
    assert [f.object for f in memory.facts(scope="acme/bob")] == ["Berlin"]
    assert [f.object for f in memory.facts(scope="acme/other")] == ["Lima"]
    assert [f.object for f in memory.facts(scope="acme")] == ["Paris"]
    assert [f.object for f in memory.facts(scope="acme/bob", valid_at=utc(2021))] == ["Paris"]


def test_an_automatic_record_never_ends_a_persons_record(memory):
    memory.remember("Zoe lives in Berlin", scope=SCOPE, subject="zoe", predicate="lives_in", object="Berlin",
                    provenance="extraction", valid_from=utc(2023))
    said = memory.remember("Zoe lives in Paris", scope=SCOPE, subject="zoe", predicate="lives_in", object="Paris",
                           provenance="user", valid_from=utc(2019))
    assert memory.get(said.id).valid_to is None and memory.get(said.id).superseded_by == ()
