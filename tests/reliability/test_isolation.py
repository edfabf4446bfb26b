"""Isolation at volume (issue 23): three tenants that share ids, scopes, subjects, texts and
entity names; at least 10,000 randomized reads through every read path return nothing of
another tenant (each record names its tenant; context text is checked for the others'
private markers)."""

from __future__ import annotations

import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem import Memory, NotFoundError, graph_to_json
from graphmem.integrations.langchain import GraphMemRetriever
from graphmem.integrations.langgraph import GraphMemStore

from ..fakes import scripted, tool_answer

pytestmark = [pytest.mark.integration, pytest.mark.reliability, pytest.mark.long]  # make test-reliability

READS = 10_000
SCOPES = ["org", "org/team", "org/team/alice", "org/other"]
TEXTS = ["Alice lives in Paris", "Bob codes in C++", "Alice prefers tea over coffee", "The launch is on Friday",
         "Bob manages the billing service", "Paris office opens at nine", "Alice reports to Bob"]
QUERIES = TEXTS + ["where does Alice live?", "who codes?", "billing", "vault code", "Paris", "Friday launch",
                   "book travel", "what does Alice drink?"]
SUBJECTS = ["alice", "bob", "paris"]
PATHS = ["recall", "recall", "context", "facts", "facts", "history", "history", "get", "get", "evidence", "suggest",
         "messages", "sessions", "profile", "notes", "summaries", "turn", "corrections", "decisions", "graph",
         "retriever", "store"]
# what each scope shows of the two sessions: s1 (5 turns) and s2 (2 turns), both in org/team
SESSIONS = {"org": {}, "org/other": {}, "org/team": {"s1": 5, "s2": 2}, "org/team/alice": {"s1": 5, "s2": 2}}


def populate(m: Memory, marker: str) -> None:
    alice = m.upsert_entity("Alice", type="person", scope="org/team", aliases=["Al"])
    paris = m.upsert_entity("Paris", type="city", scope="org")
    m.upsert_entity("Bob", type="person", scope="org/team")
    m.relate(alice, "lives_in", paris, scope="org/team", text="Alice lives in Paris")
    for i in range(21):
        m.remember(TEXTS[i % len(TEXTS)], scope=SCOPES[i % 3], id=f"f-{i}", subject=SUBJECTS[i % 3],
                   predicate=["likes", "works_on", "visits"][i % 3], object=f"thing {i}", user_id="u1", session_id="s1")
    for i in range(5):
        m.add_episode(f"{TEXTS[i]} (said in chat)", scope="org/team", id=f"e-{i}", role="user", session_id="s1")
    m.add_insight("Alice and Bob work closely together", cites=["f-0", "f-6"], scope="org/team", id="i-0")
    m.add_procedure("To book travel for Alice, ask Bob first", scope="org/team", id="p-0",
                    trigger="book travel", steps=["ask Bob", "book"])
    m.remember(f"The vault code is {marker}", scope="org/team", id="secret", user_id="u1")
    # the agent-facing stores, each holding the tenant's marker
    m.ingest([{"role": "user", "content": f"my locker is {marker}"}, {"role": "assistant", "content": "noted"}],
             scope="org/team", llm=None, session_id="s2", user_id="u1")
    m.set_profile("u1", scope="org/team", location=f"Paris {marker}")
    m.note_add(f"The locker is {marker}", scope="org/team", owner="bot", label="user")
    m.summarize("s2", scope="org/team", window=1,
                llm=scripted(tool_answer("SummaryDraft", {"text": f"They talked about locker {marker}."})))
    m.record_correction("bot", "Paris", f"Lyon {marker}", scope="org/team", reason="she moved", user_id="u1")
    m.log_decision("bot", f"Send the parcel to {marker}", reasoning="she asked", decision_type="routing",
                   scope="org/team", session_id="s2")
    GraphMemStore(m).put(("org", "team"), "locker", {"code": marker})


def test_ten_thousand_reads_across_three_look_alike_tenants_leak_nothing(neo4j, schema, embedder):
    run = uuid.uuid4().hex[:8]
    tenants = {f"iso-{run}-{n}": f"MARKER{n}{run}" for n in "abc"}
    memories = {t: Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=t, embedder=embedder) for t in tenants}
    try:
        for tenant, m in memories.items():
            populate(m, tenants[tenant])

        def leaks(tenant: str, seed: int) -> list[str]:
            m, rnd, found = memories[tenant], random.Random(seed), []
            others = [mk for t, mk in tenants.items() if t != tenant]

            def own(records, path):
                found.extend(f"{path}: {r.tenant} {r.id}" for r in records if r.tenant != tenant)

            scope, query = rnd.choice(SCOPES), rnd.choice(QUERIES)
            path = rnd.choice(PATHS)
            began = time.monotonic()
            try:
                return read(m, rnd, path, scope, query, others, own, found)
            finally:
                spent[path] = spent.get(path, 0.0) + time.monotonic() - began

        def read(m, rnd, path, scope, query, others, own, found):
            if path == "recall":
                hits = m.recall(query, scope=scope, k=rnd.choice([1, 5, 20]))
                own([h.record for h in hits] + [c for h in hits for c in h.citations], path)
            elif path == "context":
                text = m.context(query, scope=scope, max_tokens=rnd.choice([200, 2000]))
                found.extend(f"context: {mk}" for mk in others if mk in text)
            elif path == "facts":
                own(m.facts(scope=scope, subject=rnd.choice([None, *SUBJECTS]), include_invalidated=rnd.random() < 0.3), path)
            elif path == "history":
                own(m.history(subject=rnd.choice(SUBJECTS), scope=scope), path)
            elif path == "get":
                record = m.get(rnd.choice(["secret", "i-0", "p-0", "e-1", f"f-{rnd.randrange(21)}", "nope"]))
                own([record] if record is not None else [], path)
            elif path == "evidence":
                try:
                    graph = m.evidence(rnd.choice(["i-0", "secret", "f-3", "e-0"]))
                except NotFoundError:
                    return found
                own([graph.nodes[n]["record"] for n in graph.nodes], path)
            elif path == "suggest":
                own([s.procedure for s in m.suggest_procedures(query, scope=scope, purpose="inform")], path)
            else:
                return agent_read(m, rnd, path, scope, query, others, own, found)
            return found

        def text_leaks(path, text, others, found):
            found.extend(f"{path}: {mk}" for mk in others if mk in text)

        def agent_read(m, rnd, path, scope, query, others, own, found):
            """The agent-facing stores and the integrations."""
            if path == "messages":
                own(m.messages(rnd.choice(["s1", "s2"]), scope=scope), path)
            elif path == "sessions":
                seen = {row["session_id"]: row["count"] for row in m.sessions(scope=scope)}
                if seen != SESSIONS[scope]:
                    found.append(f"sessions: {scope} shows {seen}")
            elif path == "profile":
                text_leaks(path, repr(m.profile("u1", scope=scope)), others, found)
            elif path == "notes":
                own(m.notes(scope=scope, owner="bot"), path)
            elif path == "summaries":
                own(m.summaries("s2", scope=scope, include_folded=True), path)
            elif path == "turn":
                text_leaks(path, m.context_for_turn(query, scope=scope, session_id="s2", user_id="u1", agent_id="bot",
                                                    max_tokens=rnd.choice([300, 3000])), others, found)
            elif path == "corrections":
                own(m.corrections(query, scope=scope), path)
            elif path == "decisions":
                own(m.decisions(scope=scope) + m.search_decisions(query, scope=scope), path)
            elif path == "graph":
                text_leaks(path, graph_to_json(m.graph(scope=scope)), others, found)
            elif path == "retriever":
                docs = GraphMemRetriever(memory=m, scope=scope, k=5).invoke(query)
                text_leaks(path, repr(docs), others, found)
            else:
                items = GraphMemStore(m).search(tuple(scope.split("/")), query=query, limit=10)
                text_leaks(path, repr(items), others, found)
            return found

        spent: dict[str, float] = {}
        started = time.monotonic()
        jobs = [(list(tenants)[i % 3], i) for i in range(READS)]
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda job: leaks(*job), jobs))
        elapsed = time.monotonic() - started
        leaked = [leak for result in results for leak in result]
        assert leaked == [], leaked[:5]
        # the harness sees each tenant's own private record: a read path that returned nothing
        # at all would pass the leak check vacuously
        for tenant, m in memories.items():
            assert tenants[tenant] in m.get("secret").text
            assert any(tenants[tenant] in h.record.text for h in m.recall("vault code", scope="org/team", k=5))
            mine = tenants[tenant]
            assert mine in m.context_for_turn("locker", scope="org/team", session_id="s2", user_id="u1", agent_id="bot")
            assert mine in m.profile("u1", scope="org/team").location and mine in m.notes(scope="org/team", owner="bot")[0].text
            assert mine in m.summaries("s2", scope="org/team")[0].text and mine in graph_to_json(m.graph(scope="org/team"))
            assert mine in repr(GraphMemStore(m).search(("org", "team")))
        print(f"{READS} reads in {elapsed:.1f} s; seconds per path:", {p: round(t, 1) for p, t in spent.items()})
    finally:
        for m in memories.values():
            m.close()
