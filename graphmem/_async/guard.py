"""The write guard: how a write and a re-embedding's switch keep out of each other's way.

Every write transaction begins with ``write_guard``: it takes one of ``WRITER_STRIPES`` lock
stripes (nodes of their own, so writers rarely wait for each other) and reads the slot the
store's vectors are in. A re-embedding's switch takes every stripe before it moves the slot,
so it waits for the writes under way, and each of them either read the old slot and commits
before the switch (the run embeds it again after the switch), or reads the new one. A write
planned for the old slot is rolled back (``SlotMoved``) and runs again in the new one, when
its memory object's embedder is the store's new one (docs/operations.md#while-a-run-is-under-way-what-is-guaranteed).
``graphmem/_sync/guard.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .._base.layout import GuardRow

if TYPE_CHECKING:
    from .executor import AsyncTx

WRITER_STRIPES = 16
"""The writers' lock stripes: a write takes one, a re-embedding's switch all of them."""


class SlotMoved(Exception):
    """Inside a write: the store's vectors are in ``slot``, not in the one the write was
    planned for (a re-embedding switched since this process read the store's node). Never
    leaves the executor: the write runs again in the new slot, or ends in a ``SchemaError``."""

    def __init__(self, slot: str) -> None:
        super().__init__(slot)
        self.slot = slot


async def guard(tx: AsyncTx) -> None:
    """``write_guard`` in ``tx``: one writers' lock stripe taken until it ends, and
    ``SlotMoved`` when the store's vectors are no longer in the slot ``tx`` writes to."""
    rows = await tx.run_as(GuardRow, "write_guard", stripe=random.randrange(WRITER_STRIPES))
    found = rows[0].slot if rows else None
    if found is not None and found != tx.slot:
        raise SlotMoved(found)
