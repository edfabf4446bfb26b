"""Recompute the normalised keys (textKey, nameKey, aliasKeys) of every stored memory with
the current ``text_key`` rule, after an upgrade changed it (docs/limits.md).

    NEO4J_URI=... NEO4J_USER=... NEO4J_PASSWORD=... python tools/rekey.py

Idempotent: a record whose keys are already current is left alone, so it can be stopped
and run again. Each page of 1,000 records lands in one transaction. Run it right after
upgrading: an entity upserted in between (``C#`` when the old one is stored under ``c``)
has the key the old one is about to get, and the tool stops with a ConflictError naming it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from graphmem import ConflictError, connect
from graphmem._base.validate import text_key
from graphmem._sync.executor import Executor, Tx


def fresh_keys(row: dict[str, Any]) -> dict[str, Any] | None:
    """The row's keys by the current rule, or None when they are already current."""
    keys = {
        "textKey": text_key(row["text"]) if row["text"] is not None else row["textKey"],
        "nameKey": text_key(row["name"]) if row["name"] is not None else row["nameKey"],
        "aliasKeys": (sorted({text_key(a) for a in row["aliases"]}) if row["aliases"] is not None
                      else row["aliasKeys"]),
    }
    if all(keys[k] == row[k] for k in keys):
        return None
    return {"tenant": row["tenant"], "id": row["id"], **keys}


def rekey(run: Executor, *, tenant: str | None = None, page: int = 1_000,
          progress: Callable[[str], None] = print) -> int:
    """Recompute every stale key (of one ``tenant``, or of all); return how many records changed."""
    after, changed = ("", ""), 0
    while True:
        rows = run.read("memory_key_page", tenant=tenant, afterTenant=after[0], afterId=after[1], limit=page)
        if not rows:
            return changed
        stale = [keys for row in rows if (keys := fresh_keys(row)) is not None]
        if stale:
            def work(tx: Tx, stale: list[dict[str, Any]] = stale) -> int:
                return tx.run("memory_key_update", rows=stale)[0]["updated"]

            try:
                changed += run.write(work)
            except ConflictError as exc:
                raise ConflictError(
                    f"{exc} -- two entities now share a key (one was created after the upgrade, before "
                    "this tool ran): erase or merge one of them, then run the tool again") from exc
        after = (rows[-1]["tenant"], rows[-1]["id"])
        progress(f"rekey: {changed} updated, up to tenant {after[0]!r}")


def main() -> int:
    driver = connect()
    try:
        changed = rekey(Executor(driver, database=None, tracer=None, owns_driver=False), progress=lambda m: None)
    finally:
        driver.close()
    print(f"rekey: {changed} records had stale keys and were updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
