"""The full-text side of recall: sent open (not narrowed to the visible scopes inside
Lucene) when those scopes hold most of the database, narrowed otherwise, and asked again
narrowed when other tenants' documents took the open query's places."""

from __future__ import annotations

import uuid

import pytest

from graphmem import Memory, RecallSettings

# the lexical gate off: these tests are about the full-text query's two forms, and whether
# the words here count as common depends on what else the server holds (a fresh one: yes)
ALWAYS_OPEN = RecallSettings(lexical_open_share=1e-9, lexical_gate=0.0)
ALWAYS_NARROWED = RecallSettings(lexical_open_share=2.0, lexical_gate=0.0)


def _memory(neo4j, embedder, tenant, settings, seen=None):
    tracer = None if seen is None else (lambda name, params, seconds: seen.append(params) if name.split(":")[0] == "recall" else None)
    return Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder,
                  recall_settings=settings, tracer=tracer)


def test_open_and_narrowed_full_text_queries_give_the_same_recall(neo4j, schema, embedder, tenant, driver):
    """Another tenant and a sibling scope share the query's words; neither may leak in,
    and the open query must rank exactly what the narrowed one does."""
    texts = [f"Alice ordered green tea number {i} on a rainy day" for i in range(30)]
    texts += [f"Bob reviewed the hiking boots {i}" for i in range(30)]
    with _memory(neo4j, embedder, tenant, ALWAYS_OPEN) as m:
        m.remember_many([{"text": t, "scope": "shop/eu"} for t in texts])
        # the same texts in the parent scope (visible too): its scope key is another, rarer
        # one, which must not lift them in the narrowed query
        m.remember_many([{"text": t, "scope": "shop"} for t in texts[:5]])
        m.remember_many([{"text": f"Alice ordered green tea in the sibling scope {i}", "scope": "shop/us"}
                         for i in range(10)])
    other = f"other-{uuid.uuid4().hex[:8]}"
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.remember_many([{"text": "Alice ordered green tea green tea green tea", "scope": "shop/eu"}] * 3)

    results, seen = {}, []
    for name, settings in (("open", ALWAYS_OPEN), ("narrowed", ALWAYS_NARROWED)):
        with _memory(neo4j, embedder, tenant, settings, seen) as m:
            results[name] = [(r.record.id, r.record.tenant, r.record.scope, r.score, round(r.parts.lexical, 6))
                             for r in m.recall("Alice ordered green tea", scope="shop/eu", k=10)]
    # the same records in the same order with the same lexical parts; the scores only up to
    # recency, which moves with the clock between the two recalls (about 3e-8 a second)
    assert [(i, t, s, lex) for i, t, s, _, lex in results["open"]] == \
        [(i, t, s, lex) for i, t, s, _, lex in results["narrowed"]]
    assert [o[3] for o in results["open"]] == pytest.approx([n[3] for n in results["narrowed"]], abs=1e-5)
    assert len(results["open"]) == 10
    # only this tenant's visible scopes (which of the 35 texts that score alike lead is
    # decided by ties, so the parent scope need not be among the first 10 here)
    assert {(t, scope) for _, t, scope, _, _ in results["open"]} <= {(tenant, "shop/eu"), (tenant, "shop")}
    assert all(lexical > 0 for *_, lexical in results["open"])
    assert [p["scopedLexical"] for p in seen] == [False, False]  # one round trip each, no retry
    with _memory(neo4j, embedder, tenant, ALWAYS_OPEN) as m:  # the parent scope's twin is visible
        twins = m.recall(texts[2], scope="shop/eu", k=10)
    assert {r.record.scope for r in twins[:2]} == {"shop", "shop/eu"}
    assert {r.record.text for r in twins[:2]} == {texts[2]}
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.erase(scope="shop/eu")


def test_open_query_crowded_out_by_another_tenant_is_asked_again_narrowed(neo4j, schema, embedder, tenant, driver):
    """Another tenant's documents match the words far better and take every place the open
    query returns (its over-fetch is sized for an even spread): recall must notice and ask
    once more, narrowed, so this tenant's own matches are not lost."""
    mine = 400
    total = driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n").records[0]["n"]
    # the open query fetches ceil(textFetch * all memories / visible ones); the other
    # tenant gets more documents than that, each matching better than ours
    text_fetch = 40
    crowd = int(text_fetch * (total + mine) / mine * 1.2) + 60
    other = f"crowd-{uuid.uuid4().hex[:8]}"
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.remember_many([{"text": f"kiwi kiwi kiwi {i}", "scope": "s"} for i in range(crowd)])
    with _memory(neo4j, embedder, tenant, ALWAYS_OPEN) as m:
        m.remember_many([{"text": f"weather report {i} nothing else", "scope": "s"} for i in range(mine - 3)])
        wanted = {m.remember(f"I bought one kiwi at the market on day {i} of a long and busy week", scope="s").id
                  for i in range(3)}

    seen = []
    with _memory(neo4j, embedder, tenant, ALWAYS_OPEN, seen) as m:
        hits = m.recall("kiwi", scope="s", k=10)
    lexical = {r.record.id for r in hits if r.parts.lexical > 0}
    assert wanted <= lexical
    assert all(r.record.tenant == tenant for r in hits)
    # open, then narrowed (the semantic side may be asked again too: the crowd's texts are
    # close to the query on the vector index, so a deeper search and an exact scan may follow)
    assert [p["scopedLexical"] for p in seen][:2] == [False, True] and all(p["scopedLexical"] for p in seen[1:])
    assert len(seen) <= 3

    seen.clear()
    with _memory(neo4j, embedder, tenant, ALWAYS_NARROWED, seen) as m:
        assert {r.record.id for r in m.recall("kiwi", scope="s", k=10) if r.parts.lexical > 0} == lexical
    # narrowed from the start: never asked again for the lexical side (the semantic side may
    # be, deeper or exactly: the crowd's texts are close to the query on the vector index too)
    assert not any(p["scopedLexical"] for p in seen)
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.erase(scope="s")


def test_an_open_query_that_saw_every_match_is_not_asked_again(neo4j, schema, embedder, tenant):
    """Five of ours and one of another tenant's texts match: the open query returned fewer
    than it asked for, so it saw every match and a narrowed one could not find more."""
    other = f"few-{uuid.uuid4().hex[:8]}"
    word = f"quokka{uuid.uuid4().hex[:6]}"
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.remember(f"{word} {word} {word}", scope="s")
    seen = []
    with _memory(neo4j, embedder, tenant, ALWAYS_OPEN, seen) as m:
        mine = {m.remember(f"a {word} at the zoo number {i}", scope="s").id for i in range(5)}
        hits = m.recall(word, scope="s", k=10)
    assert {r.record.id for r in hits if r.parts.lexical > 0} == mine
    assert [p["scopedLexical"] for p in seen] == [False]
    with _memory(neo4j, embedder, other, ALWAYS_OPEN) as m:
        m.erase(scope="s")


def test_recall_spreads_over_conversations(neo4j, schema, embedder, tenant):
    """Six turns of one chat match the query exactly and one turn of another chat nearly:
    the other chat's turn is not pushed out of the top four by six near-copies (it has to
    be among the 2k candidates that reach the final scoring). The six are not next to each
    other (turns next to each other lift each other: see the neighbour test below). The
    penalty is off by default (docs/design-notes/recall-session-spread.md); this is the
    caller who turns it on."""
    with _memory(neo4j, embedder, tenant, RecallSettings(session_penalty=0.08)) as m:
        for i in range(6):
            m.add_episode(f"green tea oolong tea {i}", scope="s", session_id="chat-a")
            m.add_episode(f"the weather was grey on day {i}", scope="s", session_id="chat-a")
        m.add_episode("my aunt drinks coffee", scope="s", session_id="chat-c")
        other = m.add_episode("green tea oolong tea at the market", scope="s", session_id="chat-b").id
        spread = [r.record for r in m.recall("green tea oolong tea", scope="s", k=4)]
    with _memory(neo4j, embedder, tenant, RecallSettings()) as m:
        plain = [r.record for r in m.recall("green tea oolong tea", scope="s", k=4)]
    assert other in {r.id for r in spread}
    assert {r.session_id for r in spread} == {"chat-a", "chat-b"}
    assert other not in {r.id for r in plain}  # by default (no penalty) chat-a fills the top four


def test_a_turn_next_to_the_question_it_answers_is_lifted(neo4j, schema, embedder, tenant):
    """Conversation turns are linked (NEXT) in the order they happened; the answer to a
    question shares few words with a later question about it, but sits next to the turn
    that asked (docs/recall-generalisation.md, step E)."""
    with _memory(neo4j, embedder, tenant, RecallSettings(min_relevance=-1.0)) as m:
        m.ingest([{"role": "user", "content": "which camera lens should I buy for portraits?"},
                  {"role": "assistant", "content": "an 85 mm prime at f/1.8 is the classic choice"},
                  {"role": "user", "content": "thanks, and my cat likes the sofa"}], scope="s", llm=None,
                 session_id="chat-1")
        m.ingest([{"role": "user", "content": "an old prime number puzzle"}], scope="s", llm=None, session_id="chat-2")
        results = {r.record.text: r for r in m.recall("camera lens for portraits", scope="s", k=4)}
    answer = results["an 85 mm prime at f/1.8 is the classic choice"]
    assert answer.parts.neighbour > 0.5  # the question next to it scored high
    assert results["an old prime number puzzle"].parts.neighbour == 0.0
    assert answer.score > results["an old prime number puzzle"].score
