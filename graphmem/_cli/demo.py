"""``graphmem demo``: writes a short life story into Neo4j and reads it back.

The story is a small graph Neo4j Browser can show (``make demo`` leaves it in tenant
``demo``): entities for Alice, Acme and three cities, the facts ``ABOUT`` them with their
``RELATES`` projections between the entities, a move that supersedes the old address, a
correction of a wrong record, and a forgotten preference."""

from __future__ import annotations

from datetime import datetime, timezone

from .._base.models import Fact
from .._sync.memory import Memory

TENANT = "demo"  # kept after the run: Neo4j Browser shows it (each run starts from a clean slate)
SCOPE = "acme/support/alice"


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
        print(f"\nThe demo's memories stay in tenant '{TENANT}': 5 entities (Alice, Acme, Paris, Berlin, Munich), "
              "the facts ABOUT them and their RELATES edges. In Neo4j Browser, run the timeline query of "
              "docs/browser.md after :param tenant => 'demo' and :param subject => 'Alice'.")
