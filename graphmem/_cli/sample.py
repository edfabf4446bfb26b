"""The sample conversation the demo, the tests and the notebook store without a model:
``conversation.json`` beside this file, two friends over four sessions in LoCoMo's format,
written for graphmem (not LoCoMo data)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._learning.ingest import IngestResult
from .._sync.memory import Memory

PATH = Path(__file__).with_name("conversation.json")


@lru_cache(maxsize=1)
def conversation() -> dict[str, Any]:
    """The sample, as LoCoMo's files hold a conversation."""
    data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return data


def sessions() -> list[tuple[str, datetime, list[dict[str, str]]]]:
    """(session id, when it happened, its turns) in order."""
    talk = conversation()["conversation"]
    numbers = sorted(int(key.split("_")[1]) for key in talk if key.startswith("session_") and key.count("_") == 1)
    return [(f"session-{n}", datetime.strptime(talk[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
             .replace(tzinfo=timezone.utc), talk[f"session_{n}"]) for n in numbers]


def store(memory: Memory, scope: str) -> list[IngestResult]:
    """Each session as one ``ingest(llm=None)``, every turn a user message named by its
    speaker, as an application stores a chat between two people."""
    return [memory.ingest([{"role": "user", "name": t["speaker"], "content": t["text"]} for t in turns],
                          scope=scope, llm=None, session_id=sid, occurred_at=when)
            for sid, when, turns in sessions()]
