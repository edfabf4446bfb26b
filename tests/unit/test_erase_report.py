"""EraseReport: counts by kind, a total that stands in for the integer erase returned before."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphmem import EraseReport
from graphmem._memory.erase import DeletedRow, batch_report


def test_total_counts_memories_and_leaves_windows_and_scopes_apart():
    report = EraseReport(fact=2, insight=1, chunk=30, scope=2)
    assert report.total == int(report) == 3
    assert report.by_kind == {"fact": 2, "insight": 1, "chunk": 30, "scope": 2}
    assert str(report) == "3 memories erased (fact: 2, insight: 1, chunk: 30, scope: 2)"
    assert f"{EraseReport(fact=12_000):,}" == "12,000" and f"{report}" == str(report)


def test_reports_add_up_and_are_true_when_anything_went():
    a, b = EraseReport(fact=2, scope=1), EraseReport(episode=1, chunk=3)
    assert sum([a, b]) == a + b == EraseReport(fact=2, episode=1, chunk=3, scope=1)
    assert not EraseReport() and EraseReport(scope=1)
    with pytest.raises(TypeError):
        a + 1
    with pytest.raises(ValidationError):
        a.fact = 3  # frozen


def test_a_batch_row_maps_unknown_kinds_to_other():
    row = DeletedRow(windows=4, kinds=[{"kind": "fact", "n": 3}, {"kind": "hologram", "n": 1}])
    assert batch_report(row) == EraseReport(fact=3, other=1, chunk=4)
    assert batch_report(None) == EraseReport()
