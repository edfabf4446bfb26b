"""``graphmem demo``: writes a short life story into Neo4j and reads it back."""

from __future__ import annotations

from datetime import datetime, timezone

from ._models import Fact
from ._sync.memory import Memory


def _show(title: str, facts: list[Fact]) -> None:
    print(f"\n{title}")
    for f in facts:
        until = f.valid_to.date().isoformat() if f.valid_to else "now"
        belief = "believed" if f.invalidated_at is None else f"invalidated ({f.invalidation_reason})"
        print(f"  - {f.text:<38} valid {f.valid_from.date() if f.valid_from else '?'} .. {until:<10} [{f.provenance.value}, {belief}]")


def run() -> None:
    tenant = "demo"  # kept after the run: Neo4j Browser shows it (the demo starts from a clean slate)
    def day(year: int, month: int = 1) -> datetime:
        return datetime(year, month, 1, tzinfo=timezone.utc)

    with Memory(tenant=tenant) as memory:
        info = memory.verify_connectivity()
        print(f"Connected to {info['name']} {info['version']} ({info['edition']}); tenant {tenant}")
        memory.setup()
        memory.erase(scope="acme")  # an earlier demo's memories
        scope = "acme/support/alice"
        memory.remember("Alice lives in Paris", scope=scope, subject="alice", predicate="lives_in",
                        object="Paris", valid_from=day(2019), provenance="user")
        memory.remember("Alice likes green tea", scope=scope, subject="alice", predicate="likes", object="green tea")
        memory.remember("Support hours are 9-17 CET", scope="acme/support")
        believed_before_move = datetime.now(timezone.utc)
        berlin = memory.remember("Alice moved to Berlin", scope=scope, subject="alice", predicate="lives_in",
                                 object="Berlin", valid_from=day(2023, 3), provenance="user")
        assert berlin is not None  # a person's statement is never dropped as a tombstone
        _show("What the memory believes now (scope acme/support/alice):", memory.facts(scope=scope))
        _show("What was true in 2021:", memory.facts(scope=scope, valid_at=day(2021)))
        _show("What the memory believed before it heard of the move:",
              memory.facts(scope=scope, as_of=believed_before_move))
        memory.correct(berlin.id, "Alice moved to Munich", object="Munich", reason="typo in the ticket")
        _show("History of alice/lives_in after a correction:",
              memory.history(subject="alice", predicate="lives_in", scope=scope))
        forgotten = memory.forget(scope=scope, subject="alice", predicate="likes")
        print(f"\nForgot {forgotten} fact(s) about what Alice likes; a sibling scope sees:")
        _show("  acme/support/bob:", memory.facts(scope="acme/support/bob"))
        print("\nThe demo's memories stay in tenant 'demo' (see them in Neo4j Browser: run the "
              "timeline query of docs/browser.md with :param tenant => 'demo', :param subject => 'alice').")
