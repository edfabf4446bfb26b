"""Every notebook in notebooks/ runs top to bottom against the test Neo4j without an error,
through ``make notebooks`` (``jupyter nbconvert --execute``, a real Jupyter kernel, into a
fresh folder), and shows what it says it shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
VENV = Path(sys.prefix)  # the environment running the suite: make uses it, and does not reinstall it
EXPECTED = {
    "insight_evidence.ipynb": ["dropped: Ann is a frequent complainer", "CORROBORATES", "SUPERSEDES",
                               "insight -> fact -> episode"],
    "fact_timeline.ipynb": ["SUPERSEDES Initech -> Globex (corrected)", "SUPERSEDES Lisbon -> Paris (changed)",
                            "as believed on 2024-02-15: ['lives_in=Paris', 'works_at=Globex']",
                            "overlapping labels: 0\n"],
    "entity_graph.ipynb": ["16 entities, 32 relations written", "communities:", "Ivan, Jo",
                           "GraphML round trip: 16 nodes, 32 edges"],
    "memory_health.ipynb": ["'pruned': 1", "'contradicted'", "quarantine backlog now: 3 of 6"],
    "conversation_graph.ipynb": ["Samira (person, also Sam): said 14", "Nora (person): said 15",
                                 "spans: ['Tariq'] in", "'SPOKE': 29", "entity=0.6 Samira: Bouldering"],
}
# notebooks that tell their story with plots: they draw them when run, and the committed
# file carries them (PNG outputs), so the story reads on a code host without running it
PLOTS = {"fact_timeline.ipynb": 2, "entity_graph.ipynb": 2, "memory_health.ipynb": 4, "conversation_graph.ipynb": 2}


def _images(notebook) -> int:
    return sum("image/png" in out.get("data", {}) for cell in notebook.cells if cell.cell_type == "code"
               for out in cell.outputs)


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_committed_notebook_carries_its_plots(name):
    assert _images(nbformat.read(NOTEBOOKS[0].parent / name, as_version=4)) == PLOTS[name]


def test_every_notebook_is_checked():
    assert {p.name for p in NOTEBOOKS} == set(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_through_make_notebooks(path, neo4j, schema, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS")}
    env.update(NEO4J_URI=neo4j.uri, NEO4J_USER=neo4j.user, NEO4J_PASSWORD=neo4j.password)
    out = tmp_path / "executed"
    out.mkdir()
    (out / "stale.ipynb").write_text("{}")  # the folder is emptied first
    done = subprocess.run(["make", "--no-print-directory", "-o", f"{VENV}/.installed", "notebooks", f"VENV={VENV}",
                           f"NOTEBOOKS={path.relative_to(ROOT)}", f"NOTEBOOKS_OUT={out}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert f"executed 1 notebook(s) into {out}/" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == [path.name]
    notebook = nbformat.read(out / path.name, as_version=4)
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs)
    for wanted in EXPECTED[path.name]:
        assert wanted in printed
    if path.name == "fact_timeline.ipynb":  # both plots place every city's label apart from the others
        assert printed.count("overlapping labels: 0\n") == 2
    assert _images(notebook) == PLOTS.get(path.name, 0)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
