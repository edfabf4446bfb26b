"""Pauses between retries, one for each I/O flavour (``tools/unasync.py`` maps
``async_pause`` to ``pause`` when it generates the blocking modules)."""

from __future__ import annotations

import asyncio
import time


async def async_pause(seconds: float) -> None:
    await asyncio.sleep(seconds)


def pause(seconds: float) -> None:
    time.sleep(seconds)
