"""The operations commands' output without a database (graphmem/_cli/operations.py): what
``graphmem setup --check`` says of a SchemaPlan and ``graphmem reembed`` of a ReembedReport,
and their exit codes, over a stand-in memory object."""

from __future__ import annotations

import argparse
import json

import pytest

from graphmem import HashingEmbedder
from graphmem._base import layout
from graphmem._base.layout import SchemaPlan, SchemaStep
from graphmem._cli import operations
from graphmem._cli.console import Usage
from graphmem._cli.operations import _plan_lines, _report_lines
from graphmem._memory.reembed import ReembedProgress, ReembedReport


def plan(**changes) -> SchemaPlan:
    fields = dict(store_version=layout.VERSION, graphmem_version=layout.VERSION, steps=[], missing=[],
                  vector_slot="a", vector_index="memory_embedding", vector_dimensions=384,
                  embedder_dimensions=384, reembed=None)
    return SchemaPlan(**{**fields, **changes})


def steps(changes: int = 1234) -> list[SchemaStep]:
    return [SchemaStep(version=s.version, name=s.name, does=s.does, changes=changes) for s in layout.STEPS]


def report(**changes) -> ReembedReport:
    fields = dict(dry_run=False, embedder="all-MiniLM-L6-v2", dimensions=384, tenants=None, embedded=12_345,
                  resumed=0, remaining=0, switched=True, cleaned=12_345, index="memory_embedding_b",
                  seconds=200.0, rate=61.7)
    return ReembedReport(**{**fields, **changes})


# -- setup --check ------------------------------------------------------------------------------


def test_a_current_store_has_nothing_to_change():
    lines = _plan_lines(plan()).splitlines()
    assert lines == [f"store schema version: {layout.VERSION}; this graphmem writes {layout.VERSION}",
                     "vector index memory_embedding (slot a): 384 dimensions",
                     "nothing to change"]


def test_an_unversioned_store_lists_every_step_with_its_count():
    text = _plan_lines(plan(store_version=layout.UNVERSIONED, steps=steps()))
    lines = text.splitlines()
    assert lines[0] == (f"store schema version: 1 (written before versions were recorded); "
                        f"this graphmem writes {layout.VERSION}")
    for step in layout.STEPS:
        assert f"  step {step.version} ({step.name}): {step.does}; 1,234 records to change" in lines
    assert [line.split(" (")[0].strip() for line in lines[1:1 + len(layout.STEPS)]] == [
        f"step {s.version}" for s in layout.STEPS]  # in order
    assert lines[-1] == "setup would change the above"


def test_an_empty_database_says_nothing_is_written_yet():
    text = _plan_lines(plan(store_version=layout.EMPTY, missing=["memory_tenant_id"]))
    assert text.splitlines()[0] == f"store schema version: nothing written yet; this graphmem writes {layout.VERSION}"
    assert text.splitlines()[-1] == "setup would change the above"


def test_the_missing_objects_are_named():
    text = _plan_lines(plan(missing=["memory_text", "memory_embedding"], vector_dimensions=None))
    assert "  to create: memory_text, memory_embedding" in text.splitlines()
    assert "vector index memory_embedding (slot a): not made yet" in text.splitlines()
    assert text.endswith("setup would change the above")


def test_a_dimension_mismatch_points_to_reembed():
    text = _plan_lines(plan(vector_dimensions=384, embedder_dimensions=768))
    vector = next(line for line in text.splitlines() if line.startswith("vector index"))
    assert vector == ("vector index memory_embedding (slot a): 384 dimensions; the embedder gives 768: setup would "
                      "refuse it (graphmem reembed --to ... moves the store to another embedder)")
    assert text.endswith("setup would change the above")
    # no embedder, or an index not made yet: no mismatch
    assert "graphmem reembed" not in _plan_lines(plan(embedder_dimensions=None))
    assert "graphmem reembed" not in _plan_lines(plan(vector_dimensions=None, missing=["memory_embedding"]))


def test_slot_b_is_shown_with_its_index():
    text = _plan_lines(plan(vector_slot="b", vector_index="memory_embedding_b"))
    assert "vector index memory_embedding_b (slot b): 384 dimensions" in text.splitlines()


def test_a_re_embedding_under_way_is_shown_and_whether_it_switched():
    state = {"slot": "b", "embedder": "all-MiniLM-L6-v2", "dimensions": 384, "startedAt": "2024-05-01T10:00:00Z",
             "switchedAt": None}
    line = "re-embedding under way: all-MiniLM-L6-v2 (384 dimensions), started 2024-05-01T10:00:00Z"
    assert line in _plan_lines(plan(reembed=state)).splitlines()
    switched = _plan_lines(plan(reembed={**state, "switchedAt": "2024-05-01T11:00:00Z"})).splitlines()
    assert f"{line}, switched" in switched


def test_a_stray_index_a_wrong_slot_and_a_missing_node_are_said_with_what_setup_does():
    lines = _plan_lines(plan(vector_slot="b", vector_index="memory_embedding_b",
                             stray_indexes=["memory_embedding"])).splitlines()
    assert ("stray vector index memory_embedding (the inactive slot's, no re-embedding fills it): "
            "setup would drop it") in lines and lines[-1] == "setup would change the above"
    lines = _plan_lines(plan(slot_found="b")).splitlines()
    assert "the store's node says slot a, but every vector is in slot b: setup would record slot b" in lines
    lines = _plan_lines(plan(store_version=layout.UNVERSIONED, recorded=False, vector_slot="b")).splitlines()
    assert ("the store's node (:GraphMemStore {id: 'store'}) is missing (a store written before versions, or the "
            "node deleted): the vector indexes say slot b; setup would record it") in lines


def test_memories_without_a_vector_are_counted_with_the_command_that_embeds_them():
    lines = _plan_lines(plan(without_vector=12_345, stranded=2)).splitlines()
    assert lines[-2] == ("memories without a vector in slot a: 12,345 (2 stranded by a re-embedding); recall finds "
                         "them by text and through the graph only: graphmem reembed --to <the store's embedder> "
                         "embeds them")
    assert lines[-1] == "setup would change nothing; graphmem reembed would"
    assert "without a vector" not in _plan_lines(plan(without_vector=0))
    assert "memories without a vector in slot b: 1;" in _plan_lines(plan(without_vector=1, slot_found="b"))




def test_a_newer_store_is_reported_not_planned():
    text = _plan_lines(plan(store_version=layout.VERSION + 1, steps=[], missing=["memory_text"]))
    assert text == (f"this store follows schema version {layout.VERSION + 1}, newer than this graphmem's "
                    f"{layout.VERSION}: upgrade graphmem; setup would refuse it")


class FakeMemory:
    def __init__(self, found: SchemaPlan | None = None, done: ReembedReport | None = None) -> None:
        self.found, self.done, self.calls = found, done, []

    def schema_plan(self) -> SchemaPlan:
        assert self.found is not None
        return self.found

    def reembed(self, embedder, **kwargs) -> ReembedReport:
        self.calls.append((embedder, kwargs))
        progress = kwargs["progress"]
        if progress is not None:
            progress(ReembedProgress(phase="embed", done=10, total=20, seconds=1.0, rate=10.0))
        assert self.done is not None
        return self.done


def args(**changes) -> argparse.Namespace:
    fields = dict(json=False, check=True, to="hashing", tenants=None, batch_size=256, dry_run=False, restart=False)
    return argparse.Namespace(**{**fields, **changes})


@pytest.mark.parametrize("found, code", [(plan(), operations.OK), (plan(steps=steps()), operations.CHANGES),
                                         (plan(store_version=layout.VERSION + 1), operations.CHANGES)])
def test_setup_check_exits_1_when_anything_would_change(found, code, capsys):
    assert operations.setup(FakeMemory(found), args()) == code
    assert capsys.readouterr().out == _plan_lines(found) + "\n"


def test_setup_check_in_json_is_the_plan(capsys):
    found = plan(missing=["memory_text"])
    assert operations.setup(FakeMemory(found), args(json=True)) == operations.CHANGES
    out = json.loads(capsys.readouterr().out)
    assert out["missing"] == ["memory_text"] and out["store_version"] == layout.VERSION


# -- reembed -------------------------------------------------------------------------------------


def test_a_dry_run_gives_the_count_the_rate_and_the_estimate():
    text = _report_lines(report(dry_run=True, embedded=12_345, rate=812.4, estimate_seconds=15.2, switched=False,
                                cleaned=0), "minilm")
    assert text == ("reembed --dry-run: 12,345 memories to embed with all-MiniLM-L6-v2 (384 dimensions); "
                    "812 memories/s on a sample, about 16 s of embedding (the run adds the writes and the new index)")
    resumed = _report_lines(report(dry_run=True, resumed=40, estimate_seconds=4000.0, switched=False), "minilm")
    assert "(384 dimensions) (40 done by an earlier run);" in resumed and ", about 67 min of embedding" in resumed
    unknown = _report_lines(report(dry_run=True, rate=0.0, estimate_seconds=None, switched=False), "minilm")
    assert "0 memories/s on a sample of embedding" in unknown and "about" not in unknown


def test_a_switched_run_names_the_index_and_the_embedder_to_use_from_now_on():
    lines = _report_lines(report(resumed=10), "minilm").splitlines()
    assert lines == [
        "reembed: 12,345 memories embedded with all-MiniLM-L6-v2 (384 dimensions) in 4 min, 62/s; "
        "10 done by an earlier run",
        "switched: recall answers from memory_embedding_b; 12,345 old vectors removed; use --embedder minilm "
        "(and the same embedder in every application) from now on"]


def test_a_run_that_did_not_switch_says_what_it_waits_for():
    lines = _report_lines(report(switched=False, cleaned=0, remaining=3_210, index="memory_embedding",
                                 tenants=["acme"], seconds=30.0), "hashing").splitlines()
    assert lines[0].startswith("reembed: 12,345 memories embedded with all-MiniLM-L6-v2 (384 dimensions) in 30 s, ")
    assert "earlier run" not in lines[0]
    assert lines[1] == ("not switched yet: 3,210 memories of other tenants still need their new vector "
                        "(run graphmem reembed again without --tenants, or for them)")
    assert "switched:" not in "\n".join(lines) and "--embedder" not in lines[1]


def test_reembed_passes_the_options_and_prints_progress_and_the_report(capsys):
    memory = FakeMemory(done=report())
    assert operations.reembed(memory, args(tenants=" acme, beta ,,", batch_size=64, dry_run=True)) == operations.OK
    (embedder, kwargs), = memory.calls
    assert isinstance(embedder, HashingEmbedder)
    assert kwargs["tenants"] == ["acme", "beta"] and kwargs["batch_size"] == 64 and kwargs["dry_run"] is True
    assert kwargs["restart"] is False and callable(kwargs["progress"])
    out, err = capsys.readouterr()
    assert out == _report_lines(report(), "hashing") + "\n"
    assert "graphmem: reembed: embed: 10 / 20 (50%), 10/s, about 1 s left" in err


def test_reembed_in_json_has_no_progress_and_prints_the_report(capsys):
    memory = FakeMemory(done=report())
    assert operations.reembed(memory, args(json=True)) == operations.OK
    assert memory.calls[0][1]["progress"] is None and memory.calls[0][1]["tenants"] is None
    out, err = capsys.readouterr()
    assert json.loads(out)["index"] == "memory_embedding_b" and err == ""


def test_reembed_refuses_tenants_that_name_no_tenant():
    memory = FakeMemory(done=report())
    with pytest.raises(Usage, match="--tenants names no tenant"):
        operations.reembed(memory, args(tenants=" , ,"))
    assert memory.calls == []


def test_setup_check_exits_1_for_memories_without_a_vector_or_a_stray_index(capsys):
    assert operations.setup(FakeMemory(plan(without_vector=2)), args(json=True)) == operations.CHANGES
    assert json.loads(capsys.readouterr().out)["without_vector"] == 2
    assert operations.setup(FakeMemory(plan(without_vector=0)), args(json=True)) == operations.OK
    assert operations.setup(FakeMemory(plan(stray_indexes=["memory_embedding_b"])), args()) == operations.CHANGES
