"""Every notebook in notebooks/ runs top to bottom against the test Neo4j (nbclient, a
real Jupyter kernel) without an error, and shows what it says it shows."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
EXPECTED = {
    "insight_evidence.ipynb": ["dropped: Ann is a frequent complainer", "CORROBORATES", "SUPERSEDES",
                               "insight -> fact -> episode"],
    "fact_timeline.ipynb": ["SUPERSEDES Initech -> Globex (corrected)", "SUPERSEDES Lisbon -> Paris (changed)",
                            "as believed on 2024-02-15: ['lives_in=Paris', 'works_at=Globex']"],
    "entity_graph.ipynb": ["16 entities, 32 relations written", "communities:", "Ivan, Jo",
                           "GraphML round trip: 16 nodes, 32 edges"],
    "memory_health.ipynb": ["'pruned': 1", "'contradicted'", "quarantine backlog now: 3 of 6"],
}
# notebooks that tell their story with plots: they draw them when run, and the committed
# file carries them (PNG outputs), so the story reads on a code host without running it
PLOTS = {"fact_timeline.ipynb": 2, "entity_graph.ipynb": 2, "memory_health.ipynb": 4}


def _images(notebook) -> int:
    return sum("image/png" in out.get("data", {}) for cell in notebook.cells if cell.cell_type == "code"
               for out in cell.outputs)


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_committed_notebook_carries_its_plots(name):
    assert _images(nbformat.read(NOTEBOOKS[0].parent / name, as_version=4)) == PLOTS[name]


def test_every_notebook_is_checked():
    assert {p.name for p in NOTEBOOKS} == set(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, neo4j, schema, monkeypatch):
    for key, value in (("NEO4J_URI", neo4j.uri), ("NEO4J_USER", neo4j.user), ("NEO4J_PASSWORD", neo4j.password)):
        monkeypatch.setenv(key, value)
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs)
    for wanted in EXPECTED[path.name]:
        assert wanted in printed
    assert _images(notebook) == PLOTS.get(path.name, 0)
