"""Memory.recall's retries, driven by scripted template answers (no database): what is
asked again, with which parameters, and never more than three round trips."""

from __future__ import annotations

from graphmem import Memory
from graphmem._base import layout
from graphmem._memory.known import DriverKnown
from graphmem._recall.candidates import Candidate, candidate


class ScriptedRun:
    """Stands in for the executor: answers each ``recall`` read with the next scripted row."""

    driver = None
    database = None

    def __init__(self, *firsts: dict) -> None:
        self.known = DriverKnown()  # this stand-in's own: nothing shared with another object
        self.firsts = list(firsts)
        self.calls: list[dict] = []

    def layout(self, fresh: bool = False) -> layout.Layout:  # a current store, its vectors in slot a
        return layout.Layout(version=layout.VERSION)

    def forget_layout(self) -> None:
        pass

    def read(self, name: str, **params):
        if name == "schema_vector_info":  # the query vector is checked against the index
            return []
        raise AssertionError(f"{name} is read as typed rows")

    def read_as(self, row_type, name: str, **params):
        if name == "schema_vector_info":
            return []
        assert name == "recall" and row_type is Candidate
        self.calls.append(params)
        return [candidate(**self.firsts.pop(0))]

    def close(self) -> None:
        pass


def first(exact=False, semantic=10, in_scope=5000, open_=False, saturated=False, foreign=0, lexical=20):
    return dict(exact=exact, semantic_count=semantic, in_scope=in_scope, lexical_open=open_,
                lexical_saturated=saturated, lexical_foreign=foreign, lexical_count=lexical)


def recall_with(*answers: dict) -> list[dict]:
    memory = Memory.from_driver(object(), tenant="t")
    memory._store.run = ScriptedRun(*answers)
    memory.recall("green tea", scope="s", k=10)
    return memory._store.run.calls


def test_a_complete_answer_is_one_round_trip():
    calls = recall_with(first())
    assert len(calls) == 1 and calls[0]["overFetch"] == 1.5 and calls[0]["strategy"] == "auto"


def test_a_short_index_search_is_deepened_then_scanned_and_the_narrowed_query_kept():
    calls = recall_with(first(semantic=0, open_=True, saturated=True, foreign=5, lexical=3),
                        first(semantic=4, lexical=12), first(exact=True, semantic=10))
    assert len(calls) == 3
    assert (calls[0]["overFetch"], calls[0]["scopedLexical"]) == (1.5, False)
    # 15 times deeper (none of 10 kept), narrowed; then the exact scan, still narrowed
    assert (calls[1]["strategy"], calls[1]["overFetch"], calls[1]["scopedLexical"]) == ("auto", 22.5, True)
    assert (calls[2]["strategy"], calls[2]["scopedLexical"]) == ("exact", True)
    assert all(isinstance(c["overFetch"], float) for c in calls)  # one plan signature


def test_never_more_than_three_round_trips():
    # even a (impossible) short exact answer is not asked again
    calls = recall_with(first(semantic=0), first(semantic=0), first(semantic=0), first(semantic=0))
    assert len(calls) == 3 and calls[2]["strategy"] == "exact"


def test_a_deeper_search_that_suffices_ends_the_retries():
    calls = recall_with(first(semantic=5), first(semantic=10))
    assert len(calls) == 2 and calls[1]["overFetch"] == 1.5 * 1.5 * 10 / 5


class FilteredRun(ScriptedRun):
    """A Neo4j 2026 index (it carries the tenant): recall runs its Cypher 25 version."""

    def read_as(self, row_type, name: str, **params):
        if name == "schema_vector_info":
            assert row_type is layout.VectorIndexRow
            return [layout.VectorIndexRow("memory_embedding", "ONLINE", 100.0, 8, ["embedding", "tenant"])]
        assert name == "recall:cypher25" and row_type is Candidate
        self.calls.append(params)
        return [candidate(**self.firsts.pop(0))]


def test_on_neo4j_2026_the_search_over_fetches_by_what_the_last_recall_of_the_scopes_found():
    """SEARCH's limit is sized in Python: the first recall of a scope asks for the fetch times
    the over-fetch; the rows say the scope held 5,000 of its tenant's 100,000 memories, so
    the next recall of the same scope asks 20 times as many, another scope starts at 1."""
    from graphmem import HashingEmbedder
    from graphmem._recall import plan

    memory = Memory.from_driver(object(), tenant="t", embedder=HashingEmbedder(8))
    memory._store.run = FilteredRun(*[dict(first(), pool=100_000)] * 2, dict(first(in_scope=300), pool=100_000))
    memory.recall("green tea", scope="s", k=10)
    memory.recall("green tea", scope="s", k=10)
    memory.recall("green tea", scope="other", k=10)
    limits = [c["vectorLimit"] for c in memory._store.run.calls]
    fetch = memory._store.run.calls[0]["semanticFetch"]
    least = plan.SEARCH_LEAST
    assert limits == [max(least, -(-fetch * 3 // 2)), max(least, fetch * 30), max(least, -(-fetch * 3 // 2))]
    assert limits[1] > limits[0]
    assert all("maxVectorFetch" not in c for c in memory._store.run.calls)


class NamesRun(ScriptedRun):
    """Counts the name_frequency reads; every name is common."""

    def __init__(self) -> None:
        super().__init__(*[first()] * 4)
        self.names: list[list[str]] = []

    def read_as(self, row_type, name: str, **params):
        if name == "name_frequency":
            self.names.append([p["word"] for p in params["names"]])
            return [row_type(word=p["word"], common=True) for p in params["names"]]
        return super().read_as(row_type, name, **params)


def test_a_name_is_counted_once_per_scopes_until_its_count_is_old():
    """Which names are common costs a round trip before recall: a memory object counts a name
    in some scopes once, and again only after COMMON_NAME_KEPT_SECONDS."""
    import time

    from graphmem import HashingEmbedder
    from graphmem._recall import fulltext

    class BagOfWords(HashingEmbedder):
        bag_of_words = True

    memory = Memory.from_driver(object(), tenant="t", embedder=BagOfWords(8))
    memory._store.run = NamesRun()
    memory.recall("did Caroline visit Kyoto?", scope="s")
    memory.recall("when did Caroline go to Kyoto?", scope="s")  # both counted: no read
    memory.recall("did Caroline visit Kyoto?", scope="other")  # other scopes: counted there
    assert all(until - time.monotonic() <= fulltext.COMMON_NAME_KEPT_SECONDS for _, until in memory._store.known.names.values())
    memory._store.known.names.update({key: (common, 0.0) for key, (common, _) in memory._store.known.names.items()})  # a minute on
    memory.recall("did Caroline visit Kyoto?", scope="s")
    assert memory._store.run.names == [["caroline", "kyoto"]] * 3
