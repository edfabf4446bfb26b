"""Recall's final scoring without a database: query-adaptive fusion of semantic and lexical
evidence (each side in standard deviations from its own hits, with a noise floor)."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from graphmem import InvalidInputError, RecallSettings
from graphmem._recall import fusion
from graphmem._recall.candidates import candidate

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FUSION_ONLY = RecallSettings(min_relevance=-1.0)  # fusion on its own: no relevance floor


def typed(rows: list[dict]) -> list:
    """Rows written as the statement returns them (camelCase columns), typed as the executor
    types them (``Candidate``), each field the test does not give left empty."""
    snake = {"semanticRank": "semantic_rank", "lexicalRank": "lexical_rank", "inScope": "in_scope"}
    return [candidate(**{snake.get(key, key): value for key, value in r.items()}) for r in rows]


def score(rows, **kwargs):
    return fusion.score(typed(rows), **kwargs)


def fused_evidence(rows, settings, **kwargs):
    return fusion.fused_evidence(typed(rows), settings, **kwargs)


def lexical_gate(rows, settings):
    return fusion.lexical_gate(typed(rows), settings)


def named_sessions(rows, question):
    return fusion.named_sessions(typed(rows), question)


def row(rid: str, semantic: float | None, lexical: float | None, semantic_rank: int | None,
        lexical_rank: int | None) -> dict:
    node = {"kind": "fact", "id": rid, "tenant": "t", "scope": "s", "text": rid, "createdAt": NOW,
            "provenance": "manual", "status": "active", "sensitivity": "internal", "importance": 0.5}
    return {"node": node, "semantic": semantic, "lexical": lexical, "semanticRank": semantic_rank,
            "lexicalRank": lexical_rank, "graph": 0.0, "cites": []}


def ids(rows, k=5, settings=None, question=None):
    return [r.record.id for r in score(rows, now=NOW, settings=settings or FUSION_ONLY, k=k, question=question)]


def test_a_clear_lexical_winner_is_not_outvoted_by_weak_matches_on_both_lists():
    """Twenty records match the query's common word weakly and sit high on the semantic
    list; the one that matches its rare word strongly was not in the semantic shortlist."""
    rows = [row(f"weak{i}", 0.80 - i * 0.001, 3.0 - i * 0.01, i + 1, i + 2) for i in range(20)]
    rows.append(row("named", 0.75, 10.0, None, 1))
    ranked = score(rows, now=NOW, settings=FUSION_ONLY, k=5)
    assert ranked[0].record.id == "named"
    assert ranked[0].parts.fused == 1.0
    assert all(r.parts.fused < 0.8 for r in ranked[1:])


def test_a_flat_semantic_side_cannot_amplify_noise_over_an_exact_name():
    """Every fact says "PersonNNN lives in X": cosines differ in the third decimal, so the
    semantic order is noise; the one fact naming the person asked about must come first
    even though it has the lowest cosine of all (the Graphiti-comparison failure of plain
    z-score fusion)."""
    rows = [row(f"other{i}", 0.745 - i * 0.002, 6.1, i + 1, i + 2) for i in range(6)]
    rows.append(row("named", 0.705, 13.3, None, 1))
    assert ids(rows)[0] == "named"


def test_a_standout_among_few_hits_is_measured_against_the_others():
    """Seven facts are valid at the asked date; six share only "lives" with the question and
    score alike, one names the person. Measured against a mean and spread it inflates
    itself, a standout among seven can never be more than sqrt(6) deviations out, which a
    slightly higher cosine on the other facts would outweigh; against the other hits it
    stands far out."""
    rows = [row(f"other{i}", 0.75, 6.1, i + 1, i + 2) for i in range(6)]
    rows.append(row("named", 0.66, 13.3, 7, 1))
    ranked = score(rows, now=NOW, settings=FUSION_ONLY, k=7)
    assert ranked[0].record.id == "named"
    assert ranked[0].parts.fused == 1.0 and all(r.parts.fused < 0.1 for r in ranked[1:])


def test_a_clear_semantic_winner_beats_lexical_hits_that_all_score_alike():
    """A request ("suggest accessories for my camera") whose answer shares no rare word with
    it: the lexical side matches common words evenly, the semantic side has a standout."""
    rows = [row(f"chatter{i}", 0.64 + (i % 3) * 0.005, 9.5 - i * 0.1, i + 2, i + 1) for i in range(15)]
    rows.append(row("answer", 0.80, None, 1, None))
    assert ids(rows)[0] == "answer"


def test_agreement_of_both_sides_wins_over_either_alone():
    rows = [row("both", 0.80, 5.0, 1, 1), row("semantic_only", 0.80, None, 2, None),
            row("lexical_only", 0.5, 5.0, None, 2), row("neither", 0.6, 1.0, 3, 3)]
    assert ids(rows, k=4)[0] == "both"


def test_one_side_without_hits_leaves_the_other_to_decide():
    no_lexical = [row("a", 0.70, None, 2, None), row("b", 0.90, None, 1, None), row("c", 0.60, None, 3, None)]
    assert ids(no_lexical) == ["b", "a", "c"]
    no_vector = [row("a", None, 2.0, None, 2), row("b", None, 7.0, None, 1), row("c", None, 1.0, None, 3)]
    assert ids(no_vector) == ["b", "a", "c"]
    evidence = fused_evidence(no_vector, RecallSettings())
    assert evidence[1] == 1.0 and evidence[2] == 0.0 and 0.0 < evidence[0] < 0.5


def test_the_share_moves_the_decision_between_the_sides():
    rows = [row("sem", 0.90, 2.0, 1, 3), row("lex", 0.70, 9.0, 3, 1), row("mid", 0.80, 5.0, 2, 2)]
    assert ids(rows, settings=RecallSettings(semantic_share=1.0))[0] == "sem"
    assert ids(rows, settings=RecallSettings(semantic_share=0.0))[0] == "lex"


@pytest.mark.parametrize("field, value", [("semantic_share", 1.5), ("semantic_share", -0.1),
                                          ("semantic_spread", 0.0), ("lexical_spread", -1.0),
                                          ("over_fetch", 0), ("over_fetch", float("inf")), ("over_fetch", "2"),
                                          ("over_fetch", True), ("max_vector_fetch", 0), ("max_vector_fetch", 5.0),
                                          ("exact_scan_limit", -1), ("exact_scan_limit", 256.0), ("rrf_k", None),
                                          ("expand_from", -1), ("expand_limit", "20"),
                                          ("half_life", 30), ("half_life", __import__("datetime").timedelta(days=-1)),
                                          ("weights", {"fused": 1.0}), ("lexical_gate", -0.1),
                                          ("lexical_gate", float("nan")), ("lexical_gate", "0.5")])
def test_recall_settings_are_checked(field, value):
    with pytest.raises(InvalidInputError, match=field):
        RecallSettings(**{field: value})


def test_a_lexical_outlier_cannot_outweigh_clear_semantic_evidence_without_bound():
    """LongMemEval's "which book did I finish a week ago?": a turn about a trip "booked a
    few weeks ago" shares three stemmed words with it and stands 6.7 deviations out on
    BM25 while 1.5 below on the embedding; the turn about the finished book leads the
    embedding side by 1.2 deviations with an ordinary BM25 score. Uncapped, the 0.3
    lexical share of 6.7 deviations wins; a standout counts for at most five."""
    settings = RecallSettings(semantic_share=0.7, min_relevance=-1.0)  # the setting of the case as it was seen
    rows = [row(f"other{i}", 0.70 + (i % 3 - 1) * 0.01, 5.0 + (i % 3 - 1) * 0.1, i + 1, i + 2) for i in range(18)]
    rows.append(row("meant", 0.70 + 1.2 * 0.05, 4.8, 19, 20))
    rows.append(row("wordy", 0.70 - 1.5 * 0.05, 5.0 + 6.7 * 0.5, None, 1))
    assert ids(rows, settings=settings)[0] == "meant"
    fused = dict(zip([r["node"]["id"] for r in rows], fused_evidence(rows, settings)))
    assert fused["meant"] == 1.0 and fused["wordy"] < 0.9
    # the cap: a further-out standout does not count for more
    from graphmem._recall.fusion import _HIGHEST, _Side

    side = _Side([5.0, 5.1, 4.9, 5.0], 0.5)
    assert side.standing(5.0 + 6.7 * 0.5, True) == side.standing(5.0 + 20 * 0.5, True) == _HIGHEST


def _first(exact=True, semantic=10, in_scope=500, open_=False, saturated=False, foreign=0, lexical=10):
    return candidate(exact=exact, semantic_count=semantic, in_scope=in_scope, lexical_open=open_,
                     lexical_saturated=saturated, lexical_foreign=foreign, lexical_count=lexical)


@pytest.mark.parametrize("first, wanted", [
    # the index path kept fewer than k semantic hits of a scope that has more: search deeper,
    # 1.5 x the shortfall (10 wanted, 4 kept)
    (_first(exact=False, semantic=4), {"over_fetch_boost": 1.5 * 10 / 4}),
    # ... none kept: 15 times deeper
    (_first(exact=False, semantic=0), {"over_fetch_boost": 15.0}),
    # ... but a scope of 4 memories has nothing more to give
    (_first(exact=False, semantic=4, in_scope=4, lexical=4), {}),
    # the open full-text query came back full, dropped others' documents, kept fewer than k
    (_first(open_=True, saturated=True, foreign=3, lexical=2), {"scoped_lexical": True}),
    # ... not full: it saw every match, a narrowed query could not find more
    (_first(open_=True, saturated=False, foreign=3, lexical=2), {}),
    # ... none of its hits were others': nothing was crowded out
    (_first(open_=True, saturated=True, foreign=0, lexical=2), {}),
    # ... k hits kept: enough
    (_first(open_=True, saturated=True, foreign=30, lexical=10), {}),
    # the narrowed query is what a retry would send anyway
    (_first(saturated=True, lexical=2), {}),
    (_first(exact=False, semantic=1, open_=True, saturated=True, foreign=9, lexical=0),
     {"over_fetch_boost": 15.0, "scoped_lexical": True}),
])
def test_underfilled_names_what_to_ask_again(first, wanted):
    from graphmem._recall import plan

    assert plan.underfilled([first], 10) == wanted
    assert plan.underfilled([], 10) == {}


def test_underfilled_scans_exactly_after_a_deeper_search_and_caps_the_depth():
    from graphmem._recall import plan as plan

    short = _first(exact=False, semantic=2)
    assert plan.underfilled([short], 10, deepened=True) == {"strategy": "exact"}
    assert plan.underfilled([short], 1000) == {"over_fetch_boost": 64.0}  # 750x is capped
    # the exact scan that a retry asked for is complete: nothing more to ask
    assert plan.underfilled([_first(exact=True, semantic=2)], 10, deepened=True) == {}


def test_lexical_open_share_must_be_positive():
    from graphmem import InvalidInputError, RecallSettings

    with pytest.raises(InvalidInputError) as info:
        RecallSettings(lexical_open_share=0)
    assert info.value.field == "lexical_open_share"


def _turn(rid: str, session: str, semantic: float, rank: int) -> dict:
    r = row(rid, semantic, None, rank, None)
    r["node"].update(kind="episode", sessionId=session, occurredAt=NOW, role="user")
    return r


def test_results_spread_over_sessions():
    """The turns of one conversation score a little above the one turn of another that
    also answers: the second and later turns of a session give way to it."""
    rows = [_turn(f"a{i}", "chat-a", 0.80 - i * 0.01, i + 1) for i in range(5)]
    rows.append(_turn("b0", "chat-b", 0.789, 6))  # just below a1
    spread = ids(rows, k=3, settings=RecallSettings(session_penalty=0.05, min_relevance=-1.0))
    assert spread[:2] == ["a0", "b0"]
    assert ids(rows, k=3, settings=RecallSettings(session_penalty=0)) == ["a0", "a1", "b0"]
    ranked = score(rows, now=NOW, settings=RecallSettings(session_penalty=0.05, min_relevance=-1.0), k=6)
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
    plain = {r.record.id: r.score for r in score(rows, now=NOW, settings=RecallSettings(session_penalty=0), k=6)}
    assert ranked[0].score == plain["a0"] and ranked[1].score == plain["b0"]
    assert ranked[2].score == pytest.approx(plain["a1"] - 0.05)  # one of its session taken before it


def test_an_insight_takes_no_part_in_the_spread():
    """An insight from the same session as the fact it cites must not push that fact down
    (and then be placed below it anyway)."""
    fact = _turn("fact", "chat-a", 0.78, 2)
    fact["node"].update(kind="fact")
    insight = _turn("insight", "chat-a", 0.80, 1)
    insight["node"].update(kind="insight")
    insight["cites"] = [dict(fact["node"])]
    other = _turn("other", "chat-b", 0.775, 3)
    ranked = score([insight, fact, other], now=NOW, settings=RecallSettings(), k=3)
    plain = {r.record.id: r.score for r in score([insight, fact, other], now=NOW,
                                                 settings=RecallSettings(session_penalty=0), k=3)}
    assert [r.record.id for r in ranked][:2] == ["fact", "insight"]
    assert ranked[0].score == plain["fact"]


def test_records_without_a_session_are_not_spread():
    rows = [row(f"f{i}", 0.80 - i * 0.002, None, i + 1, None) for i in range(4)]
    assert ids(rows, k=4) == ids(rows, k=4, settings=RecallSettings(session_penalty=0)) == ["f0", "f1", "f2", "f3"]


def test_time_expressions_are_not_searched_as_words():
    """'a week ago' names a time, not a topic: as words it matched every text saying
    'booked a few weeks ago'."""
    from graphmem._recall.fulltext import lucene_query

    assert lucene_query("Which book did I finish a week ago?", None, ["s"]) == "text:(book finish)"
    assert lucene_query("What did I cook last Friday and in March 2023?", None, ["s"]) == "text:(cook and)"
    assert lucene_query("three weeks ago", None, ["s"]) is None
    assert lucene_query("this may help", None, ["s"]) == "text:(this help)"  # "may" is no date here
    assert lucene_query("Was June's team in June's office last may?", None, ["s"]) == \
        "text:(june team in june office last)"  # names, not months


def test_function_words_are_not_searched_unless_nothing_else_is_left():
    """A question's function words ("what", "did", "I") match every turn; searched for, they
    let a turn that shares three of them outscore the one about the topic (step A of
    docs/recall-generalisation.md)."""
    from graphmem._recall.fulltext import content_words, lucene_query

    assert lucene_query("What did Caroline research?", None, ["s"]) == "text:(caroline research)"
    assert lucene_query("Who did what?", None, ["s"]) == "text:(who did what)"  # nothing else: kept
    assert content_words("What did Caroline research about adoption?") == "Caroline research adoption"
    assert content_words("what is it?") == "what is it?"


def test_names_are_told_apart_and_only_the_common_ones_leave_the_embedded_question():
    from graphmem._recall.fulltext import embedded_question, name_queries, names, without_names

    question = "When did Caroline meet Mel at Kyoto's station? And LGBTQ groups?"
    # acronyms and a sentence's first word are no names
    assert names(question) == ["caroline", "mel", "kyoto"]
    assert without_names(question) == "When did meet at station? And LGBTQ groups?"
    assert without_names(question, {"caroline"}) == "When did meet Mel at Kyoto's station? And LGBTQ groups?"
    assert embedded_question(question, bag_of_words=True, common={"caroline", "mel"}) == "meet Kyoto station LGBTQ groups"
    assert embedded_question(question, bag_of_words=True, common=set()) == "Caroline meet Mel Kyoto station LGBTQ groups"
    assert embedded_question(question, bag_of_words=False, common={"caroline"}) == question
    assert embedded_question("Where does Priya live?", bag_of_words=True, common={"priya"}) == "live"
    probes = name_queries(question, "t", ["a", "a/b"])
    assert [p["word"] for p in probes] == ["caroline", "mel", "kyoto"]
    assert probes[0]["lucene"].startswith("text:(caroline) AND (lexKey:(") and probes[0]["lucene"].endswith(")^0")


GATED = RecallSettings(min_relevance=-1.0, lexical_gate=0.5)  # as recall decides it for a bag-of-words embedder


def _gated(best_lexical: float, total: int | None, settings: RecallSettings = GATED) -> list[str]:
    """Eight records share a common word with the question (lexical hits of at most
    ``best_lexical``), the answer shares none but is the semantic side's best."""
    rows = [row(f"common{i}", 0.60 - i * 0.005, best_lexical - i * 0.1, i + 2, i + 1) for i in range(8)]
    rows.append(row("answer", 0.66, None, 1, None))
    for r in rows:
        r["total"] = total
    return ids(rows, k=3, settings=settings)


def test_the_full_text_side_sits_out_when_its_best_hit_matched_only_common_words():
    """In a database of 1,000 memories a word one memory holds has an IDF of 6.5: the gate
    is half of it (3.25). Hits of at most 2.0 matched only common words: the semantic
    side decides. A hit of 6.0 holds a distinctive word: the full-text side counts."""

    assert lexical_gate([{"total": 1000}], RecallSettings(lexical_gate=0.5)) == pytest.approx(0.5 * math.log(1 + 999.5 / 1.5))
    assert lexical_gate([{"total": 1000}], RecallSettings(lexical_gate=0)) == 0.0
    # left to recall: on with any embedder, off without one (the full-text side is then all there is)
    from graphmem._recall.plan import LEXICAL_GATE, decided_gate
    assert RecallSettings().lexical_gate is None and lexical_gate([{"total": 1000}], RecallSettings()) == 0.0
    assert decided_gate(RecallSettings(), semantic=True).lexical_gate == LEXICAL_GATE == 0.5
    assert decided_gate(RecallSettings(), semantic=False).lexical_gate == 0.0
    assert decided_gate(RecallSettings(lexical_gate=0.3), semantic=False).lexical_gate == 0.3
    # a question that names someone or something keeps its full-text side (the name may be only there)
    assert decided_gate(RecallSettings(), semantic=True, named=True).lexical_gate == 0.0
    assert lexical_gate([{}], RecallSettings()) == 0.0  # no statistics: no gate
    assert _gated(2.0, 1000)[0] == "answer"
    assert _gated(6.0, 1000)[0] == "common0"
    assert _gated(2.0, 1000, RecallSettings(min_relevance=-1.0, lexical_gate=0.0))[0] == "common0"
    assert _gated(2.0, None)[0] == "common0"


def test_the_scope_narrowing_does_not_score():
    """The lexKey clause filters with zero weight: a rarer key (a smaller scope) must not
    lift a text above its twin in a bigger scope."""
    from graphmem._recall.fulltext import lucene_query

    query = lucene_query("green tea", "t", ["a", "a/b"])
    assert query.startswith("text:(green tea) AND (lexKey:(") and query.endswith("))^0")


def test_an_exact_name_wins_in_a_young_database_where_bm25_scores_are_small():
    """Nine facts in the whole database: BM25's IDF is small, the fact naming the person
    scores 0.5 and the others 0.01. A fixed noise floor of 0.5 BM25 points took that for
    noise and let a higher cosine win; the floor scales down with the scores."""
    rows = [row("named", 0.6986, 0.4997, 2, 1), row("other0", 0.7302, 0.0121, 1, 3), row("other2", 0.6821, 0.0121, 3, 2)]
    assert ids(rows, k=3)[0] == "named"
    scaled = [row(r["node"]["id"], r["semantic"], r["lexical"] * 20, r["semanticRank"], r["lexicalRank"]) for r in rows]
    assert ids(scaled, k=3)[0] == "named"  # the same query in a big database: the same winner


def test_low_lexical_scores_that_all_score_alike_stay_noise():
    """Twenty hits share only common words (BM25 0.9-1.3 in a big database); the semantic
    side has a clear standout. The lexical floor shrinks only for small *best* scores, not
    so far that the low scores' own differences decide."""
    rows = [row(f"common{i}", 0.70 + (i % 4) * 0.001, 0.9 + (i * 7 % 20) * 0.02, i + 2, i + 1) for i in range(20)]
    rows.append(row("answer", 0.72, 1.0, 1, 12))
    assert ids(rows, settings=RecallSettings(semantic_share=0.7, min_relevance=-1.0))[0] == "answer"


def test_lexical_scores_of_zero_do_not_divide_by_zero():
    rows = [row("a", 0.8, 0.0, 1, 1), row("b", 0.7, 0.0, 2, 2)]
    assert ids(rows, k=2) == ["a", "b"]


def test_unrelated_candidates_fall_below_the_relevance_floor():
    """Scores are rescaled per query, so the best of unrelated candidates still scores high;
    the floor compares each candidate's plain cosine (or a full-text match) instead."""
    unrelated = [row("alice-paris", 0.48, None, 1, None), row("alice-tea", 0.52, None, 2, None)]
    assert ids(unrelated, settings=RecallSettings()) == []
    assert ids(unrelated, settings=RecallSettings(min_relevance=-0.1)) == ["alice-tea", "alice-paris"]
    related = [row("puppy", 0.66, None, 1, None), row("tea", 0.52, None, 2, None)]
    assert ids(related, settings=RecallSettings()) == ["puppy"]
    word_match = [row("mongolia", 0.45, 2.0, 1, 1)]  # low cosine, but it shares a word of the question
    assert ids(word_match, settings=RecallSettings()) == ["mongolia"]


def test_graph_neighbours_stay_with_the_relevant_hits_they_came_from():
    hit = row("hit", 0.7, None, 1, None)
    neighbour = row("entity", 0.45, None, None, None)
    neighbour["graph"] = 0.02
    assert set(ids([hit, neighbour], settings=RecallSettings())) == {"hit", "entity"}
    far = row("far", 0.45, None, 1, None)
    assert ids([far, neighbour], settings=RecallSettings()) == []


def test_relevance_is_reported_and_checked():
    [result] = score([row("x", 0.8, None, 1, None)], now=NOW, settings=RecallSettings(), k=1)
    assert result.parts.relevance == pytest.approx(0.6)
    with pytest.raises(InvalidInputError) as info:
        RecallSettings(min_relevance=2)
    assert info.value.field == "min_relevance"


def _said(rid: str, text: str, semantic: float, lexical: float | None, session: str | None = "s1") -> dict:
    r = row(rid, semantic, lexical, 1, 1 if lexical is not None else None)
    r["node"].update(kind="episode", text=text, sessionId=session)
    return r


def test_a_question_found_only_by_a_name_keeps_that_person_s_conversation():
    """Every full-text hit shares only "Priya" with the question: the name says whom it is
    about, and the answer is what was said in her conversation, in other words (issue 31)."""
    rows = [_said("greeting", "Welcome Priya! How can I help?", 0.50, 2.0),
            _said("move", "I just moved from Leeds to Glasgow", 0.53, None),
            _said("elsewhere", "I just moved my desk", 0.53, None, session="s2")]
    # the name-only match says whom, not what: the semantic side orders her turns (the
    # greeting's exact name match would otherwise stand out on the full-text side)
    assert ids(rows, settings=RecallSettings(), question="where does Priya live?") == ["move", "greeting"]
    # without the question (or with a question whose other words found something) the floor holds
    assert ids(rows, settings=RecallSettings()) == ["greeting"]
    rows[0]["node"]["text"] = "Welcome Priya! Where do you live now?"
    assert ids(rows, settings=RecallSettings(), question="where does Priya live?") == ["greeting"]


def test_a_name_only_lead_needs_a_name_and_ignores_stop_words():
    greeting = _said("greeting", "Welcome to the shop, Priya", 0.5, 2.0)
    assert named_sessions([greeting], "what did Priya say to the shop?") == frozenset()  # "shop" matched too
    assert named_sessions([greeting], "what is the colour of Priya's car?") == frozenset({"s1"})
    assert named_sessions([greeting], "what is the colour of the car?") == frozenset()  # no name
    assert named_sessions([_said("x", "Priya here", 0.5, 2.0, session=None)], "where does Priya live?") == frozenset()


@pytest.mark.parametrize("a, b, same", [("live", "lives", True), ("move", "moved", True), ("city", "cities", True),
                                        ("live", "like", False), ("cat", "car", False), ("order", "other", False),
                                        ("camped", "camping", True), ("lived", "lives", True)])
def test_words_are_the_same_up_to_an_ending(a, b, same):
    from graphmem._recall.fulltext import same_word
    assert same_word(a, b) is same and same_word(b, a) is same


def test_a_question_of_names_only_opens_nothing():
    hit = _said("paris", "Jon flew to Paris", 0.5, 2.0)
    assert named_sessions([hit], "When was Jon in Paris?") == frozenset()
