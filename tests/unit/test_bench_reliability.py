"""The reliability table's rows (bench/reliability.py): every row names tests that exist,
and a row says 0 only when every test behind it passed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import reliability  # noqa: E402


def test_every_row_names_tests_that_exist():
    for row in reliability.ROWS:
        for prefix in row.tests:
            file, _, name = prefix.partition("::")
            source = (ROOT / "tests" / "reliability" / file).read_text()
            assert re.search(rf"^def {re.escape(name or 'test_')}", source, re.M), prefix


def test_a_row_is_zero_only_when_all_its_tests_passed():
    outcomes = {"test_races.py::test_a": "passed", "test_races.py::test_b": "passed",
                "test_isolation.py::test_reads": "failed"}
    cells = {row.area: reliability.row_cells(row, outcomes, {"test_races.py::test_a": 1.5}) for row in reliability.ROWS}
    assert cells["Races"][2:4] == ["2/2", 1.5] and cells["Races"][4].startswith("**0**")
    assert cells["Isolation"][2] == "0/1" and cells["Isolation"][4].startswith("**FAILED**: test_reads")
    assert cells["Bad input"][4] == "not run"


def test_the_fault_figures_are_written_out():
    text = reliability.fault_notes({"restart_s": [9.1, 8.0], "down_error_s": [4.2],
                                    "remember_many": {"batches_returned": 3, "batches_on_disk": 4,
                                                      "after_repeat": 4000, "expected": 4000},
                                    "ingest": {"conversations": 8, "killed_at": 3,
                                               "after_repeat": {"Entity": 16, "Episode": 16, "Fact": 8}}})
    assert "9.1 s, 8.0 s" in text and "4.2 s" in text and "4,000 of 4,000" in text
    assert "conversation 4 of 8" in text and "16 entities, 16 episodes, 8 facts" in text
