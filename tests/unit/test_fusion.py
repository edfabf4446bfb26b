"""Recall's final scoring without a database: score-weighted rank fusion."""

from __future__ import annotations

from datetime import datetime, timezone

from graphmem import RecallSettings
from graphmem._recall import score

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def row(rid: str, semantic: float, lexical: float, semantic_rank: int | None, lexical_rank: int | None) -> dict:
    node = {"kind": "fact", "id": rid, "tenant": "t", "scope": "s", "text": rid, "createdAt": NOW,
            "provenance": "manual", "status": "active", "sensitivity": "internal", "importance": 0.5}
    return {"node": node, "semantic": semantic, "lexical": lexical, "semanticRank": semantic_rank,
            "lexicalRank": lexical_rank, "graph": 0.0, "cites": []}


def test_a_clear_lexical_winner_is_not_outvoted_by_weak_matches_on_both_lists():
    """Twenty records match the query's common word weakly and sit high on the semantic
    list; the one that matches its rare word strongly was not in the semantic shortlist."""
    rows = [row(f"weak{i}", 0.80 - i * 0.001, 3.0 - i * 0.01, i + 1, i + 2) for i in range(20)]
    rows.append(row("named", 0.75, 10.0, None, 1))
    ranked = score(rows, now=NOW, settings=RecallSettings(), k=5)
    assert ranked[0].record.id == "named"
    assert abs(ranked[0].parts.fused - 0.5) < 1e-9  # first on one side only: half of a double first
    assert all(r.parts.fused < 0.7 for r in ranked[1:])  # weak lexical matches earn little from their ranks


def test_equal_strength_on_both_sides_still_favours_agreement():
    rows = [row("both", 0.80, 5.0, 1, 1), row("semantic_only", 0.80, 0.0, 2, None), row("lexical_only", 0.5, 5.0, None, 2)]
    ranked = [r.record.id for r in score(rows, now=NOW, settings=RecallSettings(), k=3)]
    assert ranked[0] == "both"
