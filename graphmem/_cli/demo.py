"""``graphmem demo``: writes a short life story into Neo4j and reads it back.

The story is a small graph Neo4j Browser can show (``make demo`` leaves it in tenant
``demo``): entities for Alice, Acme and three cities, the facts ``ABOUT`` them with their
``RELATES`` projections between the entities, a move that supersedes the old address, a
correction of a wrong record, and a forgotten preference; then a conversation between two
friends stored without a model (``ingest(llm=None)``), whose speakers and the people, places
and things it names become entities (``SPOKE``, ``MENTIONS``)."""

from __future__ import annotations

from datetime import datetime, timezone

from .._base.models import Episode, Fact
from .._sync.memory import Memory
from . import sample

TENANT = "demo"  # kept after the run: Neo4j Browser shows it (each run starts from a clean slate)
SCOPE = "acme/support/alice"
FRIENDS = "friends"  # the sample conversation's scope


def _show(title: str, facts: list[Fact]) -> None:
    print(f"\n{title}")
    for f in facts:
        until = f.valid_to.date().isoformat() if f.valid_to else "now"
        belief = "believed" if f.invalidated_at is None else f"invalidated ({f.invalidation_reason})"
        print(f"  - {f.text:<38} valid {f.valid_from.date() if f.valid_from else '?'} .. {until:<10} [{f.provenance.value}, {belief}]")


def _day(year: int, month: int = 1) -> datetime:
    return datetime(year, month, 1, tzinfo=timezone.utc)


def run() -> None:
    with Memory(tenant=TENANT) as memory:
        info = memory.verify_connectivity()
        print(f"Connected to {info['name']} {info['version']} ({info['edition']}); tenant {TENANT}")
        memory.setup()
        memory.erase(scope="acme")  # an earlier demo's memories
        alice = memory.upsert_entity("Alice", type="person", scope=SCOPE)
        acme = memory.upsert_entity("Acme", type="organisation", scope="acme")
        paris, berlin, munich = (memory.upsert_entity(city, type="place", scope="acme")
                                 for city in ("Paris", "Berlin", "Munich"))
        memory.relate(alice, "lives_in", paris, scope=SCOPE, valid_from=_day(2019), provenance="user",
                      text="Alice lives in Paris")
        memory.relate(alice, "works_at", acme, scope=SCOPE, valid_from=_day(2020), text="Alice works at Acme")
        memory.remember("Alice likes green tea", scope=SCOPE, subject=alice.id, predicate="likes", object="green tea")
        memory.remember("Support hours are 9-17 CET", scope="acme/support")
        believed_before_move = datetime.now(timezone.utc)
        moved = memory.relate(alice, "lives_in", berlin, scope=SCOPE, valid_from=_day(2023, 3), provenance="user",
                              text="Alice moved to Berlin")
        _show(f"What the memory believes now (scope {SCOPE}):", memory.facts(scope=SCOPE))
        _show("What was true in 2021:", memory.facts(scope=SCOPE, valid_at=_day(2021)))
        _show("What the memory believed before it heard of the move:",
              memory.facts(scope=SCOPE, as_of=believed_before_move))
        memory.correct(moved.id, "Alice moved to Munich", object=munich.id, reason="typo in the ticket")
        _show("History of Alice's lives_in after a correction:",
              memory.history(subject="Alice", predicate="lives_in", scope=SCOPE))
        forgotten = memory.forget(scope=SCOPE, subject="Alice", predicate="likes")
        print(f"\nForgot {forgotten} fact(s) about what Alice likes; a sibling scope sees:")
        _show("  acme/support/bob:", memory.facts(scope="acme/support/bob"))
        _conversation(memory)
        print(f"\nThe demo's memories stay in tenant '{TENANT}': 5 entities (Alice, Acme, Paris, Berlin, Munich), "
              "the facts ABOUT them and their RELATES edges, and the friends' conversation with who said what "
              "and what it names. In Neo4j Browser, run the queries of docs/browser.md after "
              f":param tenant => '{TENANT}': the timeline (:param subject => 'Alice') and the conversation "
              f"(:param scope => '{FRIENDS}').")


def _conversation(memory: Memory) -> None:
    """A chat between two friends stored without a model: its speakers and the people, places
    and things it names become entities, and a question about one of them finds her turns."""
    memory.erase(scope=FRIENDS)
    results = sample.store(memory, FRIENDS)
    graph = memory.graph(scope=FRIENDS, kinds=["entity", "episode"])
    said: dict[str, dict[str, int]] = {}
    for a, b, kind in graph.edges(keys=True):
        if kind in ("SPOKE", "MENTIONS"):
            entity = a if kind == "SPOKE" else b
            said.setdefault(graph.nodes[entity]["name"], {"SPOKE": 0, "MENTIONS": 0})[kind] += 1
    turns = sum(len(r.episodes) for r in results)
    print(f"\nA conversation stored with no model (ingest(llm=None), {turns} turns in {len(results)} sessions); "
          f"the entities it gave ({extractor(memory)}):")
    for name, count in sorted(said.items(), key=lambda item: (-item[1]["SPOKE"], -item[1]["MENTIONS"], item[0])):
        node = next(a for _, a in graph.nodes(data=True) if a.get("name") == name)
        also = f", also {', '.join(node['aliases'])}" if node.get("aliases") else ""
        print(f"  - {name} ({node['type']}{also}): said {count['SPOKE']} turns, named in {count['MENTIONS']}")
    question = "Where does Tariq live?"
    print(f"\n{question}")
    for hit in memory.recall(question, scope=FRIENDS, k=2, kinds=["episode"]):
        turn = hit.record
        print(f"  - {turn.speaker if isinstance(turn, Episode) else turn.kind}: {turn.text}")


def extractor(memory: Memory) -> str:
    """What found the names: the memory's entity extractor, or why there is none."""
    found = memory._store.core.extractor
    return repr(found) if found is not None else "no entity extractor: speakers only; pip install 'graphmem[ner]'"
