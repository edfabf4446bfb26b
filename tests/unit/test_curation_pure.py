"""The pure parts of corrections, decisions and curation (no database)."""

from __future__ import annotations

import pytest

from graphmem import InvalidInputError
from graphmem._learning import curation, decisions


def test_clusters_join_neighbours_once_and_cap_their_size():
    rows = [
        curation.NearRow(id="a", near=["b", "c"]),
        curation.NearRow(id="b", near=["a"]),  # already taken with a
        curation.NearRow(id="d", near=[]),
        curation.NearRow(id="e", near=[f"x{i}" for i in range(20)]),
    ]
    taken: set[str] = set()
    groups = curation.clusters(rows, taken)
    assert groups[0] == ["a", "b", "c"]
    assert len(groups) == 2 and len(groups[1]) == curation.MAX_CLUSTER and groups[1][0] == "e"
    assert curation.clusters(rows, taken) == []


def test_prune_refuses_a_persons_provenance():
    assert sorted(curation.provenances(None)) == ["extraction", "induction", "reflection"]
    assert curation.provenances("reflection") == ["reflection"]
    for bad in ("user", ["extraction", "human-correction"], "gossip", []):
        with pytest.raises(InvalidInputError) as info:
            curation.provenances(bad)
        assert info.value.field == "provenance"


def test_stats_and_quality_summaries():
    stats = curation.stats([
        curation.CurationStatsRow(kind="fact", provenance="user", believed=True, reason=None, n=2),
        curation.CurationStatsRow(kind="fact", provenance="extraction", believed=False, reason="duplicate", n=3),
        curation.CurationStatsRow(kind="insight", provenance="reflection", believed=True, reason=None, n=1),
    ])
    assert (stats.total, stats.believed, stats.invalidated) == (6, 3, 3)
    assert stats.by_kind == {"fact": 5, "insight": 1} and stats.by_reason == {"duplicate": 3}
    quality = decisions.summary([decisions.QualityRow(key="refund", decisions=4, good=1, bad=2, neutral=1),
                                  decisions.QualityRow(key="ship", decisions=1, good=0, bad=0, neutral=0)])
    assert quality[0].bad_share == 0.5 and quality[1].bad_share is None


def test_tool_calls_become_decision_text():
    assert decisions.tool_call("search", {"q": "kettle", "n": 2}, ["a"]) == ('search({"n": 2, "q": "kettle"})', '["a"]')
    assert decisions.tool_call("ping", None, None) == ("ping({})", None)
    with pytest.raises(InvalidInputError) as info:
        decisions.tool_call("", {}, None)
    assert info.value.field == "tool"
