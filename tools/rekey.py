"""Recompute the normalised keys (textKey, nameKey, aliasKeys) of every stored memory with
the current ``text_key`` rule. ``setup()`` does this once when it upgrades a store written
before the rule (schema version 2, docs/operations.md); this tool runs the same step again
on demand, for every tenant or one:

    NEO4J_URI=... NEO4J_USER=... NEO4J_PASSWORD=... python tools/rekey.py [tenant]

Idempotent: a record whose keys are already current is left alone, so it can be stopped
and run again. Each page of 1,000 records lands in one transaction. If an entity was upserted
under the new rule before the old keys were brought up to date (``C#`` beside an old one
stored under ``c``), the two would share a key: it stops with a ConflictError naming it.
"""

from __future__ import annotations

import sys

from graphmem import connect
from graphmem._sync.executor import Executor
from graphmem._sync.upgrade import rekey

__all__ = ["main", "rekey"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    driver = connect()
    try:
        changed = rekey(Executor(driver, database=None, tracer=None, owns_driver=False),
                        tenant=args[0] if args else None)
    finally:
        driver.close()
    print(f"rekey: {changed} records had stale keys and were updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
