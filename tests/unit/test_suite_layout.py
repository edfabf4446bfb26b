"""How the suite is laid out for pytest-xdist (tests/conftest.py): every module with a
module-wide fixture, or a server of its own, runs whole on one worker."""

from __future__ import annotations

import re
from pathlib import Path

from tests import conftest

ROOT = Path(__file__).resolve().parents[2]
OWN = re.compile("scope=" + '"module"' + "|neo4j" + r"_cli\(")  # (spelled apart: this file is no such module)


def test_every_module_with_a_module_fixture_or_its_own_server_runs_together():
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if OWN.search(path.read_text()):
            found.append(path.relative_to(ROOT).as_posix())
    assert found and set(found) <= set(conftest.TOGETHER), set(found) - set(conftest.TOGETHER)


def test_a_group_is_one_unit_of_work_and_every_other_test_its_own():
    assert conftest.unit_of("tests/launcher/test_browser.py::test_a") == "launcher"
    assert conftest.unit_of("tests/launcher/test_persistence.py::test_b") == "launcher"
    assert conftest.unit_of("tests/integration/test_recall_filtered.py::test_c[x-1]") == "big-tenant"
    assert conftest.unit_of("tests/integration/test_recall.py::test_c[x]") == "tests/integration/test_recall.py::test_c[x]"
