"""No hand-written module of the package is over 400 lines (issue 33): past that, a module
holds more than one thing and is split (the generated graphmem/_sync is left out)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
LIMIT = 400


def test_no_hand_written_module_is_over_the_limit():
    modules = [p for p in PACKAGE.rglob("*.py") if "_sync" not in p.relative_to(PACKAGE).parts]
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in modules}
    assert len(sizes) > 50 and "_async/memory.py" in sizes
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
