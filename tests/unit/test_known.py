"""What graphmem knows of the server, and when each piece expires (``_memory/known.py``):
no database, the rules alone."""

from __future__ import annotations

import gc

from graphmem._base import layout
from graphmem._memory.known import DriverKnown, Index, Known, Shared, put_bounded


class Driver:
    """Any object a memory object is made from (weakly referable)."""


def test_what_one_object_read_of_the_index_holds_for_that_slot_only():
    known = Known()
    known.index(layout.SLOT_A, Index(384, True))
    known.slot_seen(layout.SLOT_A)
    assert (known.dimension, known.filtered_index, known.vector_slot) == (384, True, layout.SLOT_A)
    known.slot_seen(layout.SLOT_B)  # a re-embedding moved the vectors
    assert (known.dimension, known.filtered_index, known.vector_slot) == (None, None, None)


def test_another_embedder_drops_what_came_from_the_old_one_and_keeps_counted_names():
    known = Known()
    known.index(layout.SLOT_A, Index(64, False))
    known.probe, known.yardstick = [1.0], object()
    known.names[(("s",), "alice")] = (True, 1e12)
    known.use_embedder([0.5])
    assert known.dimension is None and known.yardstick is None and known.probe == [0.5]
    assert known.names  # counts of names do not depend on the embedder


def test_objects_of_one_driver_share_one_record_per_database():
    shared, driver = Shared(), Driver()
    one, two = shared.driver(driver, None), shared.driver(driver, None)
    assert one is two and shared.driver(driver, "other") is not one
    assert shared.driver(Driver(), None) is not one


def test_a_driver_that_cannot_be_weakly_referenced_gets_its_own_each_time():
    shared = Shared()
    assert shared.driver(object(), None) is not shared.driver(object(), None)


def test_nothing_outlives_its_driver_or_embedder():
    shared, driver, embedder = Shared(), Driver(), Driver()
    shared.driver(driver, None).keep_index(layout.SLOT_A, Index(8, True))
    shared.keep_yardstick(embedder, "matrix")
    assert shared.yardstick(embedder) == "matrix"
    del driver, embedder
    gc.collect()
    assert not shared._drivers and not shared._yardsticks


def test_an_unhashable_embedder_has_no_shared_yardstick():
    shared = Shared()

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

    shared.keep_yardstick(Unhashable(), "matrix")
    assert shared.yardstick(Unhashable()) is None


def test_a_missing_index_is_said_again_only_after_it_was_found():
    known = DriverKnown()
    known.told_missing.add(layout.SLOT_A)
    known.keep_index(layout.SLOT_A, None)
    assert layout.SLOT_A in known.told_missing and layout.SLOT_A not in known.indexes
    known.keep_index(layout.SLOT_A, Index(8, True))
    assert layout.SLOT_A not in known.told_missing


def test_the_store_s_node_expires_and_forgetting_the_index_reads_both_again():
    known = DriverKnown()
    known.layout = layout.Layout(version=layout.VERSION)
    assert known.fresh_layout() is known.layout
    known.layout = layout.Layout(version=layout.VERSION, read_at=0.0)  # read long ago
    assert known.fresh_layout() is None
    known.layout = layout.Layout(version=layout.VERSION)
    known.keep_index(layout.SLOT_A, Index(8, True))
    known.forget_index()
    assert known.layout is None and known.indexes == {}


def test_bounded_caches_start_over_when_full():
    cache = {i: i for i in range(3)}
    put_bounded(cache, 1, "again", most=3)
    assert len(cache) == 3 and cache[1] == "again"
    put_bounded(cache, 9, "new", most=3)
    assert cache == {9: "new"}
