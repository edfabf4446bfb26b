"""Small memories ranked as a reader expects (issue 31), with the default embedder on the
real Neo4j: the relevance floor follows the embedder's scale and the question's, a fact
brings its source turn, and what answers nothing is left out."""

from __future__ import annotations

import pytest

from graphmem import Memory, RecallSettings, WordLlamaEmbedder
from graphmem._recall import relevance


@pytest.fixture(scope="module")
def wordllama():
    return WordLlamaEmbedder()


@pytest.fixture
def mem(neo4j, schema, wordllama, tenant):
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=wordllama) as m:
        yield m


def texts(results):
    return [r.record.text for r in results]


def test_a_question_about_her_job_finds_the_nurse(mem):
    for text in ("Alice works as a nurse", "Alice has two cats", "The weather was nice yesterday"):
        mem.remember(text, scope="u")
    found = mem.recall("what is her job?", scope="u")
    # no word of the question is in any text: only meaning finds it, and the floor keeps it
    assert texts(found)[:1] == ["Alice works as a nurse"]
    assert "The weather was nice yesterday" not in texts(found)
    assert found[0].parts.relevance > 0.99


def test_a_question_nothing_answers_gets_nothing(mem):
    for text in ("Alice works as a nurse", "Alice has two cats", "The weather was nice yesterday"):
        mem.remember(text, scope="u")
    assert mem.recall("what is the capital of Peru?", scope="u") == []
    # a plain cosine floor still overrides the calibrated one
    assert len(mem.recall("what is the capital of Peru?", scope="u", min_relevance=-1.0)) == 3


def test_the_order_number_is_found_by_its_words(mem):
    mem.ingest([{"role": "user", "content": "Hi, I'm Priya"},
                {"role": "assistant", "content": "Welcome Priya! How can I help with your order?"},
                {"role": "user", "content": "My order number is 4411"}], scope="u", llm=None, session_id="s1")
    assert texts(mem.recall("which order number did Priya give?", scope="u"))[0] == "My order number is 4411"


_PRIYA = [{"role": "user", "content": "Hi, I'm Priya"},
          {"role": "assistant", "content": "Welcome Priya! How can I help with your order?"},
          {"role": "user", "content": "I just moved from Leeds to Glasgow"},
          {"role": "assistant", "content": "Congratulations on the move! What can I do for you today?"},
          {"role": "user", "content": "My order number is 4411"}]


def test_the_move_ranks_above_the_greetings_that_share_only_the_name(mem):
    """Priya is named on two of five turns, so the embedded question leaves her out; she
    introduces herself, so the user's turns are hers (SPOKE from her entity) and the graph
    side brings them past the relevance floor (WordLlama alone cannot tell "live" from
    unrelated text); there the move is ranked by meaning above the greetings."""
    mem.ingest(_PRIYA, scope="u", llm=None, session_id="s1")
    ranked = texts(mem.recall("where does Priya live?", scope="u"))
    assert ranked[0] == "I just moved from Leeds to Glasgow"
    # below the move, wherever the store's term statistics put them among the other turns, or
    # left out: the greeting only addresses her (Priya speaks: her introduction names the user)
    greetings = ("Hi, I'm Priya", "Welcome Priya! How can I help with your order?")
    assert all(ranked.index(g) > 0 for g in greetings if g in ranked)
    assert texts(mem.recall("which city did Priya move to?", scope="u"))[0] == "I just moved from Leeds to Glasgow"
    # a name-only lead opens her conversation, not the rest of the memory
    assert mem.recall("what is the capital of Peru?", scope="u") == []


def test_a_name_only_lead_opens_only_that_person_s_conversations(mem):
    mem.ingest(_PRIYA, scope="u", llm=None, session_id="s1")
    mem.ingest([{"role": "user", "content": "Hi, I'm Tom"}, {"role": "user", "content": "I just moved to Bristol"}],
               scope="u", llm=None, session_id="s2")
    ranked = texts(mem.recall("where does Priya live?", scope="u"))
    assert ranked[0] == "I just moved from Leeds to Glasgow"
    assert "I just moved to Bristol" not in ranked and "Hi, I'm Tom" not in ranked


def test_a_fact_brings_its_source_turn(mem):
    said = mem.ingest([{"role": "user", "content": "I finally adopted a greyhound called Biscuit"}], scope="u",
                      llm=None, session_id="s1")
    fact = mem.remember("The user owns a dog named Biscuit", scope="u", derived_from=said.episode_ids)
    found = mem.recall("what is the name of the dog?", scope="u", kinds=["fact"])
    assert [r.record.id for r in found] == [fact.id]
    assert [c.id for c in found[0].citations] == list(said.episode_ids)
    # the context line of a fact stays the fact's (its sources are for callers, not the prompt)
    assert "cites" not in mem.context("what is the name of the dog?", scope="u")


def test_the_floor_is_measured_on_the_embedder_s_own_scale(mem):
    mem.remember("Alice works as a nurse", scope="u")
    plain_job = mem.recall("what is her job?", scope="u", min_relevance=-1.0)[0].parts.relevance
    plain_rain = mem.recall("will it rain tomorrow?", scope="u", min_relevance=-1.0)[0].parts.relevance
    # on WordLlama's scale both cosines are small (a plain floor of 0.3 would drop the answer) ...
    assert plain_job < 0.3 and plain_rain < plain_job
    # ... but only the answer stands out from unrelated text
    assert mem.recall("what is her job?", scope="u")[0].parts.relevance > 0.99
    assert mem.recall("will it rain tomorrow?", scope="u") == []


class _Recording(WordLlamaEmbedder):
    """WordLlama that keeps the questions it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.questions.append(text)
        return super().embed_query(text)


def test_only_names_common_in_the_memory_leave_the_embedded_question(neo4j, schema, tenant):
    """A speaker's name on most lines says whom a question is about, not what: a bag-of-words
    embedder gets the question without it. A place named on one line is what the question is
    about and stays. Which names are common is counted among this tenant's visible records
    only: another tenant that names Kyoto on every line changes nothing here."""
    lines = [f"Caroline: {text}" for text in ("I started pottery classes", "My sister visits in May",
                                              "The garden needs rain", "We adopted a beagle", "I ran 10 km today")]
    lines += ["Mel: I loved the temples in Kyoto", "Mel: Work was busy this week"]
    embedder = _Recording()
    other = f"{tenant}-other"
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=other, embedder=embedder) as m:
        m.remember_many([{"text": f"Kyoto line {i}", "scope": "u"} for i in range(8)])
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as m:
        m.remember_many([{"text": line, "scope": "u"} for line in lines])
        m.recall("When did Caroline visit Kyoto?", scope="u")
        m.recall("When did Caroline visit Kyoto?", scope="elsewhere")  # nothing visible there: no name is common
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=other, embedder=embedder) as m:
        m.recall("When did Caroline visit Kyoto?", scope="u")
        m.erase(scope="u")
    assert embedder.questions[-3:] == ["visit Kyoto", "Caroline visit Kyoto", "Caroline visit"]


def test_a_question_sharing_only_common_words_follows_the_meaning(neo4j, schema, wordllama, tenant):
    """Eight records share "tips" with the question and nothing else; the answer shares no
    word with it. Below the lexical gate the full-text side sits out and the answer, found by
    meaning, comes first; with the gate off, a record holding "tips" outranks it."""
    texts_ = ["Some tips for better posture at my desk would help", "Thanks for the tips on sleeping well",
              "Any tips for learning the guitar chords faster?", "Your tips for baking sourdough worked",
              "I need tips for planning a trip to Lisbon", "Tips for keeping my tomato plants healthy, please",
              "More tips for saving money on groceries?", "Great tips for running in the rain"]
    answer = "My new power bank drains my smartphone quickly and the charge never lasts a day"
    first = {}
    # WordLlama is a bag-of-words embedder: the gate is on by default (RecallSettings() leaves it to the embedder)
    for gate in (None, 0.0):
        with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=wordllama,
                    recall_settings=RecallSettings(lexical_gate=gate)) as m:
            if not first:
                m.remember_many([{"text": t, "scope": "u"} for t in [*texts_, answer]])
            first[gate] = texts(m.recall("any tips for my phone battery?", scope="u", k=3))[0]
    assert first[None] == answer
    assert "tips" in first[0.0].lower()


def test_a_question_naming_one_of_many_people_finds_that_person(mem):
    """Forty people, four moves each, every record as long and as alike as the next: the name
    is the only word that tells them apart. Its full-text match is what the question is
    about, so the lexical gate stays off; with it on, the name's match (about half a rare
    word's IDF in records of average length) was ignored and the answer was anyone's."""
    cities = ["Berlin", "Rome", "Oslo", "Dublin", "Vienna", "Lyon", "Riga", "Sofia"]
    mem.remember_many([{"text": f"Person{i:03d} lives in {cities[(i + j) % 8]}", "scope": "u"}
                       for i in range(40) for j in range(4)])
    found = mem.recall("Where does Person007 live?", scope="u", k=4)
    assert [r.record.text.split()[0] for r in found] == ["Person007"] * 4


class _Counting(WordLlamaEmbedder):
    """WordLlama that counts the relevance floor's background sentences it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.documents = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += sum(text in relevance.SENTENCES for text in texts)
        return super().embed_documents(texts)


def test_memory_objects_sharing_an_embedder_embed_the_floor_s_background_once(neo4j, schema, tenant):
    """An application with one memory object per tenant: the relevance floor's everyday
    sentences are embedded once per embedder, not once per memory object (issue 30)."""
    embedder = _Counting()
    found = []
    for i in range(3):
        with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=f"{tenant}-{i}", embedder=embedder) as m:
            m.remember("Alice works as a nurse", scope="u")
            before = embedder.documents
            found.append(texts(m.recall("what is her job?", scope="u")))
            embedded = embedder.documents - before
            assert embedded == (0 if i else len(relevance.SENTENCES))
    assert found == [["Alice works as a nurse"]] * 3
