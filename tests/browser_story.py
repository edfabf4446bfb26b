"""A small memory, written through graphmem's public API, that exercises every query of the
Browser kit (browser/queries): used by tests/integration/test_browser_queries.py and by the
real-browser test in tests/launcher/test_browser.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from graphmem import Memory

SCOPE = "acme/support/alice"


def day(year: int, month: int = 1) -> datetime:
    return datetime(year, month, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Story:
    alice: str
    facts: list[str]
    insight: str
    procedure: str


def write_story(memory: Memory) -> Story:
    """Alice moves Paris -> Berlin (supersession), Berlin is corrected to Munich; she works
    at Acme (a relation between entities); an insight cites two facts; a procedure is used once."""
    alice = memory.upsert_entity("Alice", type="person", scope=SCOPE)
    acme = memory.upsert_entity("Acme", type="organisation", scope=SCOPE)
    paris = memory.remember("Alice lives in Paris", scope=SCOPE, subject=alice.id, predicate="lives_in",
                            object="Paris", valid_from=day(2019))
    berlin = memory.remember("Alice moved to Berlin", scope=SCOPE, subject=alice.id, predicate="lives_in",
                             object="Berlin", valid_from=day(2023, 3))
    munich = memory.correct(berlin.id, "Alice moved to Munich", object="Munich")
    works = memory.relate(alice, "works_at", acme, scope=SCOPE, valid_from=day(2020), text="Alice works at Acme")
    insight = memory.add_insight("Alice moves often", cites=[paris, munich], scope=SCOPE)
    episode = memory.add_episode("I used the relocation checklist for Alice", scope=SCOPE, role="assistant")
    procedure = memory.add_procedure("Update the address after a move", scope=SCOPE, steps=["ask the new address", "update the CRM"])
    memory.record_outcome(procedure.id, True, episode_id=episode.id)
    return Story(alice=alice.id, facts=[paris.id, berlin.id, munich.id, works.id], insight=insight.id,
                 procedure=procedure.id)
