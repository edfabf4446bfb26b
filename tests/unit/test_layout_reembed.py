"""The store's layout and the re-embedding without a database: schema versions and vector
slots (graphmem/_base/layout.py), what each memory is embedded as (_memory/embedded.py), a
re-embedding's pure half (_memory/reembed.py) and the upgrade steps' (_memory/upgrade.py)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import InvalidInputError, SchemaError
from graphmem._base import dates, layout, templates
from graphmem._base.errors import TemplateError
from graphmem._base.layout import SchemaPlan, SchemaStep
from graphmem._base.validate import text_key
from graphmem._memory import embedded, episodes, reembed, upgrade
from graphmem._memory.reembed import PageRow, ReembedProgress

AT = datetime(2024, 5, 15, 12, tzinfo=timezone.utc)  # a Wednesday


def store_row(version=None, slot=None, *, recorded=None, active=None, reembed=None, claimed=False, used=True):
    """A ``store_layout`` row (``recorded``: by default whether it holds a version, as a node has)."""
    return layout.StoreLayoutRow(version=version, slot=slot, recorded=version is not None if recorded is None else recorded,
                                 active=active, reembed=reembed, claimed=claimed, used=used)


# -- layout -------------------------------------------------------------------------------


def test_the_two_slots_name_their_property_and_index():
    assert layout.SLOTS == ("a", "b")
    assert layout.PROPERTIES == {"a": "embedding", "b": "embeddingB"}
    assert layout.INDEXES == {"a": "memory_embedding", "b": "memory_embedding_b"}
    assert layout.other("a") == "b" and layout.other("b") == "a"


def test_the_steps_run_in_version_order_up_to_the_current_version():
    versions = [step.version for step in layout.STEPS]
    assert versions == sorted(versions) == list(range(2, layout.VERSION + 1))
    assert [step.name for step in layout.STEPS] == ["keys", "time anchors", "vector slots"]
    assert layout.EMPTY < layout.UNVERSIONED < layout.STEPS[0].version


def test_no_row_or_an_unused_database_without_a_version_is_empty():
    assert layout.from_row(None).version == layout.EMPTY == 0
    empty = layout.from_row(store_row(used=False))
    assert empty.version == layout.EMPTY and empty.slot == "a" and empty.reembed is None and not empty.recorded


def test_memories_without_a_store_node_are_version_1_in_slot_a():
    found = layout.from_row(store_row())
    assert found.version == layout.UNVERSIONED == 1
    assert (found.slot, found.vector_property, found.index, found.staging) == ("a", "embedding", "memory_embedding", "b")


def test_a_versioned_row_gives_its_version_slot_and_re_embedding():
    state = {"slot": "a", "dimensions": 384, "embedder": "m", "startedAt": "2024-05-01T00:00:00Z"}
    found = layout.from_row(store_row(4, "b", reembed=state))
    assert found.version == 4 and found.slot == "b"
    assert (found.vector_property, found.index, found.staging) == ("embeddingB", "memory_embedding_b", "a")
    assert found.reembed == state and found.reembed is not state  # a copy
    # a store node with a version and no memories yet keeps its version
    assert layout.from_row(store_row(4, "a", used=False)).version == 4


def test_a_node_changed_by_hand_is_refused_clearly_and_one_without_a_slot_is_in_slot_a():
    # issue 49: a slot or a version that is not graphmem's was read as slot a / a ValueError
    with pytest.raises(SchemaError, match="vectorSlot 'c'"):
        layout.from_row(store_row(4, "c"))
    for version in ("4", "four", 4.0, True):
        with pytest.raises(SchemaError, match=r"schemaVersion .*not a version number.*setup\(\)"):
            layout.from_row(store_row(version, "a", recorded=True))
    assert layout.from_row(store_row(3)).slot == "a"  # written before the slots


def test_without_the_store_s_node_the_vector_index_says_the_slot():
    row = store_row(recorded=False)
    assert layout.from_row(row, ["memory_embedding_b"]).slot == "b"
    assert layout.from_row(row, ["memory_embedding"]).slot == "a"
    assert layout.from_row(row, ["memory_embedding", "memory_embedding_b"]).slot == "a"
    assert layout.from_row(row, []).slot == "a" and layout.from_row(row).version == layout.UNVERSIONED


def test_a_claimed_or_recorded_re_embedding_is_under_way():
    row = store_row(4, "a")
    assert not layout.from_row(row).under_way and not layout.from_row(row).claimed
    assert layout.from_row(store_row(4, "a", claimed=True)).under_way  # claimed before it records its start
    assert layout.from_row(store_row(4, "a", reembed={"slot": "b", "startedAt": "2024-05-01T00:00:00Z"})).under_way


def test_a_layout_is_fresh_for_a_minute():
    found = layout.Layout(version=4, read_at=100.0)
    assert found.fresh(100.0 + layout.KEPT_SECONDS - 1)
    assert not found.fresh(100.0 + layout.KEPT_SECONDS)


def test_pending_steps():
    assert layout.pending(layout.EMPTY) == []
    assert layout.pending(layout.UNVERSIONED) == list(layout.STEPS)
    assert [step.version for step in layout.pending(2)] == [3, 4]
    assert layout.pending(layout.VERSION) == []
    assert layout.pending(layout.VERSION + 1) == []


@pytest.mark.parametrize("name", templates.schema_names())
def test_every_schema_statement_names_its_object(name):
    assert templates.get(name).creates is not None


def test_the_schema_objects_have_distinct_names():
    names = list(templates.schema_objects())
    assert len(set(names)) == len(names)
    assert "memory_text" in names  # the full-text index: CREATE FULLTEXT INDEX


@pytest.mark.parametrize("slot", layout.SLOTS)
def test_the_vector_index_statement_names_the_slots_index(slot):
    for name in ("schema_vector", "schema_vector:cypher25"):
        chosen = templates.in_slot(name, slot)
        assert templates.get(chosen).creates == layout.INDEXES[slot]


def test_a_creates_line_must_name_what_the_statement_creates():
    head = "// name: t\n// creates: x_y\n// doc\n"
    assert templates.parse("t", head + "CREATE RANGE INDEX x_y IF NOT EXISTS FOR (n:X) ON (n.y)").creates == "x_y"
    assert templates.parse("t", "// name: t\n// doc\nMATCH (n) RETURN n").creates is None
    with pytest.raises(TemplateError, match="creates 'x_y'"):
        templates.parse("t", head + "DROP INDEX memory_embedding IF EXISTS")


def plan(**changes) -> SchemaPlan:
    fields = dict(store_version=layout.VERSION, graphmem_version=layout.VERSION, steps=[], missing=[],
                  vector_slot="a", vector_index="memory_embedding", vector_dimensions=384,
                  embedder_dimensions=384, reembed=None)
    return SchemaPlan(**{**fields, **changes})


def step(version=2, changes=10) -> SchemaStep:
    found = next(s for s in layout.STEPS if s.version == version)
    return SchemaStep(version=version, name=found.name, does=found.does, changes=changes)


def test_a_plan_with_nothing_to_do_is_current():
    assert plan().current and not plan().newer
    assert plan(embedder_dimensions=None).current  # no embedder: nothing to compare
    assert plan(vector_dimensions=None, embedder_dimensions=None).current


@pytest.mark.parametrize("changes", [
    {"steps": [step(2)]},
    {"missing": ["memory_embedding"]},
    {"store_version": layout.UNVERSIONED},
    {"store_version": layout.EMPTY},
    {"vector_dimensions": 768},  # the embedder gives 384
    {"store_version": layout.VERSION + 1},
])
def test_a_plan_with_anything_to_do_is_not_current(changes):
    assert not plan(**changes).current


@pytest.mark.parametrize("changes", [
    {"stray_indexes": ["memory_embedding_b"]},
    {"slot_found": "b"},
    {"recorded": False},
])
def test_a_layout_setup_would_repair_is_not_current(changes):
    assert not plan(**changes).current and not plan(**changes).sound


def test_memories_without_a_vector_leave_a_current_plan_unsound():
    # setup() cannot give them a vector (graphmem reembed does): current, but not sound
    assert plan(without_vector=3, stranded=1).current and not plan(without_vector=3).sound
    assert plan(without_vector=0).sound and plan(without_vector=None).sound and plan().sound
    assert not plan(missing=["memory_text"], without_vector=0).sound


def test_a_store_from_a_newer_graphmem_is_newer():
    assert plan(store_version=layout.VERSION + 1).newer
    assert not plan(store_version=layout.VERSION).newer and not plan(store_version=layout.UNVERSIONED).newer


# -- what is embedded -----------------------------------------------------------------------


def old_windows(text: str) -> list[str]:
    """What episodes.chunks() cut before embedded.windows existed."""
    if len(text) <= 1500:
        return []
    return [text[start:start + 1500] for start in range(0, len(text) - 200, 1300)]


def test_a_4000_character_text_has_windows_at_0_1300_and_2600():
    text = "".join(chr(ord("a") + i % 26) for i in range(4000))
    found = embedded.windows(text)
    assert found == [text[0:1500], text[1300:2800], text[2600:4000]]
    assert [len(w) for w in found] == [1500, 1500, 1400]
    assert [embedded.window(text, n) for n in range(3)] == found


@pytest.mark.parametrize("length", [0, 1, 1499, 1500, 1501, 1700, 1701, 2800, 2801, 3000, 4000, 10_000, 12_345])
def test_windows_are_the_ones_the_old_chunk_logic_cut(length):
    text = "".join(chr(0x41 + (i * 7) % 50) for i in range(length))
    assert embedded.windows(text) == old_windows(text)


def test_a_text_that_fits_in_one_embedding_has_no_windows():
    assert embedded.windows("x" * embedded.CHUNK_SIZE) == []
    assert len(embedded.windows("x" * (embedded.CHUNK_SIZE + 1))) == 2  # 0..1500 and 1300..1501


def test_an_episodes_chunks_are_its_windows():
    text = "".join(chr(ord("a") + i % 26) for i in range(4000))
    props = {"id": "ep-1", "text": text, "scope": "/s", "provenance": "user", "status": "active",
             "sensitivity": "internal"}
    rows = episodes.chunks([{"props": props}, {"props": {**props, "id": "ep-2", "text": "short"}}])
    assert [row["embedText"] for row in rows] == embedded.windows(text)
    assert [row["props"]["id"] for row in rows] == ["ep-1#0", "ep-1#1", "ep-1#2"]
    assert [row["props"]["position"] for row in rows] == [0, 1, 2]
    assert {row["episodeId"] for row in rows} == {"ep-1"}
    # what a re-embedding gives a window is what it was written with
    assert [embedded.text_of("chunk", row["props"], text) for row in rows] == [row["embedText"] for row in rows]


def test_a_fact_is_embedded_with_its_predicate_in_words_but_a_store_items_is_not():
    assert embedded.fact_text("Carol moved to Denver", "lives_in") == "Carol moved to Denver (lives in)"
    assert embedded.fact_text("Carol moved to Denver", None) == "Carol moved to Denver"
    assert embedded.fact_text('{"a": 1}', embedded.STORE_ITEM) == '{"a": 1}'
    assert embedded.text_of("fact", {"text": "Carol moved to Denver", "predicate": "lives_in"}) == (
        "Carol moved to Denver (lives in)")
    assert embedded.text_of("fact", {"text": "Carol moved to Denver", "predicate": None}) == "Carol moved to Denver"
    assert embedded.text_of("fact", {"text": '{"k": "v"}', "predicate": "langgraph_item"}) == '{"k": "v"}'


def test_a_procedure_is_embedded_with_its_trigger_and_condition():
    props = {"text": "Restart the worker", "trigger": "the queue stalls", "condition": "after 5 pm"}
    assert embedded.text_of("procedure", props) == "Restart the worker\nthe queue stalls\nafter 5 pm"
    assert embedded.text_of("procedure", {**props, "condition": None}) == "Restart the worker\nthe queue stalls"
    assert embedded.text_of("procedure", {"text": "Restart the worker"}) == "Restart the worker"
    assert embedded.kind_text("procedure", props) == embedded.text_of("procedure", props)


def test_a_decision_is_embedded_with_its_reasoning():
    props = {"text": "Use Postgres", "reasoning": "the team knows it"}
    assert embedded.text_of("decision", props) == "Use Postgres\nthe team knows it" == embedded.kind_text("decision", props)
    assert embedded.text_of("decision", {"text": "Use Postgres", "reasoning": None}) == "Use Postgres"


@pytest.mark.parametrize("kind", ["episode", "entity", "insight", "note", "summary", "correction"])
def test_every_other_kind_is_embedded_as_its_text(kind):
    assert embedded.text_of(kind, {"text": "Tea at five", "predicate": "x_y", "reasoning": "r"}) == "Tea at five"
    assert embedded.text_of(kind, {"text": None}) is None


def test_a_window_needs_its_episodes_text_and_its_position():
    text = "w" * 3000
    assert embedded.text_of("chunk", {"position": 1}, None) is None
    assert embedded.text_of("chunk", {"position": None}, text) is None
    assert embedded.text_of("chunk", {"position": 1}, text) == text[1300:2800]
    assert embedded.text_of("chunk", {"position": 1.0}, text) == text[1300:2800]  # a stored number


# -- re-embedding -----------------------------------------------------------------------------


def test_texts_keeps_the_rows_with_something_to_embed():
    rows = [
        PageRow("t", "f1", "fact", {"text": "Ana lives in Porto", "predicate": "lives_in"}, None),
        PageRow("t", "c1", "chunk", {"position": 0}, None),
        PageRow("t", "c2", "chunk", {"position": 1}, "e" * 3000),
        PageRow("t", "n1", "note", {"text": None}, None),
    ]
    kept, given = reembed.texts(rows)
    assert [row.id for row in kept] == ["f1", "c2"]
    assert given == ["Ana lives in Porto (lives in)", "e" * 1500]
    assert reembed.texts([]) == ([], [])


def rows(n=2):
    return [PageRow("t", f"m{i}", "note", {"text": "x"}, None) for i in range(n)]


def test_vectors_pairs_each_row_with_its_checked_vector():
    out = reembed.vectors(rows(), [[1, 0, 0], (0.0, 2.0, 0.0)], 3)
    assert out == [{"tenant": "t", "id": "m0", "vector": [1.0, 0.0, 0.0]},
                   {"tenant": "t", "id": "m1", "vector": [0.0, 2.0, 0.0]}]
    assert all(type(x) is float for row in out for x in row["vector"])


@pytest.mark.parametrize("got, said", [([[1.0, 0.0]], "returned 1 vectors for 2 texts"),
                                       ([[1.0, 0.0]] * 3, "returned 3 vectors for 2 texts"),
                                       (None, "returned NoneType vectors for 2 texts"),
                                       ("xy", "returned str vectors for 2 texts")])
def test_vectors_refuses_a_wrong_count(got, said):
    with pytest.raises(InvalidInputError) as info:
        reembed.vectors(rows(), got, 2)
    assert info.value.field == "embedder" and info.value.message == said


def test_vectors_refuses_a_wrong_dimension_or_a_bad_vector():
    with pytest.raises(InvalidInputError) as info:
        reembed.vectors(rows(), [[1.0, 0.0], [1.0, 0.0, 0.0]], 2)
    assert info.value.field == "embedder output" and "has 3 dimensions; the vector index has 2" in info.value.message
    with pytest.raises(InvalidInputError) as info:
        reembed.vectors(rows(), [[1.0, 0.0], [0.0, 0.0]], 2)
    assert info.value.field == "embedder output" and "all zeros" in info.value.message


def test_a_claim_is_refused_while_its_holder_is_alive():
    def holder(run="r1", host="h", pid=42, stale=False):
        return reembed.ClaimRow(run=run, host=host, pid=pid, beat_at="2024-05-01T00:00:00Z", stale=stale, slot="a",
                                recorded=True)

    alive, dead = (lambda pid: True), (lambda pid: False)
    assert reembed.claim_refused(None, "h", alive) is None
    assert reembed.claim_refused(holder(run=None), "h", alive) is None  # nobody holds it
    assert reembed.claim_refused(holder(stale=True), "h", alive) is None  # no progress for LEASE_SECONDS
    assert reembed.claim_refused(holder(), "h", dead) is None  # its process on this host is gone
    why = reembed.claim_refused(holder(), "other", dead)  # another host's process: not known to be gone
    assert why is not None and "run r1, process 42 on h, last progress 2024-05-01T00:00:00Z" in why


def test_the_same_embedder_gives_the_same_direction():
    probe = [0.1, -0.4, 0.3, 0.9]
    assert reembed.same_embedder(probe, probe)
    assert reembed.same_embedder(probe, [2.5 * x for x in probe])  # scaled: one direction
    assert reembed.same_embedder(probe, [x + 1e-6 for x in probe])  # arithmetic noise
    assert not reembed.same_embedder(probe, [0.9, 0.3, -0.4, 0.1])
    assert not reembed.same_embedder(probe, [-x for x in probe])
    assert not reembed.same_embedder(None, probe)
    assert not reembed.same_embedder(probe, [*probe, 0.0])  # another length
    assert not reembed.same_embedder([0.0] * 4, [0.0] * 4)  # no direction


def test_same_embedder_draws_the_line_at_its_threshold():
    angle = math.acos(reembed.SAME_EMBEDDER)
    assert reembed.same_embedder([1.0, 0.0], [math.cos(angle * 0.9), math.sin(angle * 0.9)])
    assert not reembed.same_embedder([1.0, 0.0], [math.cos(angle * 1.1), math.sin(angle * 1.1)])


def test_tenants_none_is_every_tenant_and_a_list_is_checked_sorted_and_deduplicated():
    assert reembed.tenants(None) is None
    assert reembed.tenants(["b", "a", "b"]) == ["a", "b"]
    assert reembed.tenants(("t",)) == ["t"] and reembed.tenants({"x", "y"}) == ["x", "y"]


@pytest.mark.parametrize("value, said", [("acme", "must be a list of tenant ids"),
                                         ({"acme": 1}, "must be a list of tenant ids"),
                                         (3, "must be a list of tenant ids"),
                                         ([], "must name at least one tenant"),
                                         (set(), "must name at least one tenant"),
                                         (["ok", ""], "must be a non-empty string"),
                                         (["ok", " padded"], "starts or ends with a space"),
                                         ([None], "must be a non-empty string")])
def test_tenants_refuses_what_names_no_tenant(value, said):
    with pytest.raises(InvalidInputError) as info:
        reembed.tenants(value)
    assert info.value.field == "tenants" and said in info.value.message


def test_progress_reads_as_one_line():
    at = ReembedProgress(phase="embed", done=12_000, total=40_000, seconds=15.0, rate=820.0)
    assert at.left_seconds == pytest.approx(28_000 / 820)
    assert at.line() == "embed: 12,000 / 40,000 (30%), 820/s, about 35 s left"
    slow = ReembedProgress(phase="embed", done=100, total=100_000, seconds=10.0, rate=10.0)
    assert slow.line().endswith(", 10/s, about 2.8 h left")
    minutes = ReembedProgress(phase="embed", done=0, total=6_000, seconds=1.0, rate=50.0)
    assert minutes.line() == "embed: 0 / 6,000 (0%), 50/s, about 2 min left"


def test_progress_without_a_rate_or_outside_embedding_says_no_time_left():
    starting = ReembedProgress(phase="embed", done=0, total=500, seconds=0.0, rate=0.0)
    assert starting.left_seconds is None and starting.line() == "embed: 0 / 500 (0%), 0/s"
    switch = ReembedProgress(phase="switch", done=1, total=1, seconds=3.0, rate=0.0)
    assert switch.line() == "switch: 1 / 1 (100%), 0/s"
    clean = ReembedProgress(phase="clean", done=5, total=10, seconds=3.0, rate=2.0)
    assert clean.left_seconds == 2.5 and clean.line() == "clean: 5 / 10 (50%), 2/s"
    nothing = ReembedProgress(phase="embed", done=0, total=0, seconds=0.0, rate=0.0)
    assert nothing.line() == "embed: 0 / 0, 0/s"  # no share of nothing
    past = ReembedProgress(phase="embed", done=12, total=10, seconds=1.0, rate=12.0)
    assert past.left_seconds == 0


# -- upgrade steps ------------------------------------------------------------------------------


def key_row(**changes):
    row = {"tenant": "t", "id": "m1", "text": "Bob codes in C++.", "text_key": text_key("Bob codes in C++."),
           "name": None, "name_key": None, "aliases": None, "alias_keys": None}
    return upgrade.KeyPageRow(**{**row, **changes})


def test_current_keys_need_no_change():
    assert text_key("Bob codes in C++.") == "bob codes in c++"
    assert upgrade.fresh_keys(key_row()) is None
    entity = key_row(name="C#", name_key=text_key("C#"), aliases=["F#", "C Sharp"],
                     alias_keys=sorted({text_key("F#"), text_key("C Sharp")}))
    assert upgrade.fresh_keys(entity) is None


def test_a_stale_key_is_recomputed_with_the_others():
    fresh = upgrade.fresh_keys(key_row(text_key="bob codes in c"))  # the old rule dropped the symbols
    assert fresh == {"tenant": "t", "id": "m1", "textKey": "bob codes in c++", "nameKey": None, "aliasKeys": None}
    entity = key_row(name="C#", name_key="c", aliases=["F#", "C Sharp", "c sharp"], alias_keys=["c sharp", "f"])
    fresh = upgrade.fresh_keys(entity)
    assert fresh is not None
    assert fresh["nameKey"] == text_key("C#") == "c#"
    assert fresh["aliasKeys"] == sorted({text_key("F#"), text_key("C Sharp")}) == ["c sharp", "f#"]
    assert fresh["textKey"] == "bob codes in c++"


def test_a_record_without_text_keeps_its_text_key():
    assert upgrade.fresh_keys(key_row(text=None, text_key="kept")) is None


def anchor_row(text, at=AT):
    return upgrade.AnchorPageRow("t", "ep-1", text, at)


def test_an_episode_naming_last_week_gets_its_anchor():
    found = upgrade.time_anchors(anchor_row("We shipped it last week"))
    assert found is not None and found["tenant"] == "t" and found["id"] == "ep-1"
    moments = found["refersTo"]
    assert moments == [moment for _, _, moment in dates.mentions("We shipped it last week", AT, timezone.utc)]
    assert len(moments) == 1 and AT - timedelta(days=14) <= moments[0] < AT
    assert moments[0].utcoffset() == timedelta(0)


def test_anchors_are_read_in_utc():
    # 01:00 at UTC+5 is 20:00 the day before in UTC: "yesterday" is two days before the local date
    local = datetime(2024, 5, 15, 1, tzinfo=timezone(timedelta(hours=5)))
    found = upgrade.time_anchors(anchor_row("I called yesterday", local))
    assert found is not None and found["refersTo"] == [datetime(2024, 5, 13, tzinfo=timezone.utc)]


@pytest.mark.parametrize("text, at", [("Tea with Ana at the usual place", AT), ("We shipped it last week", None),
                                      ("We shipped it last week", "2024-05-15T12:00:00Z"), (None, AT)])
def test_an_episode_without_a_time_expression_or_a_time_gets_none(text, at):
    assert upgrade.time_anchors(anchor_row(text, at)) is None
