"""The other processes of the re-embedding tests (test_reembed_writers.py), each run as
``python -m tests.integration.reembed_procs <role> <json arguments>`` with NEO4J_URI,
NEO4J_USER and NEO4J_PASSWORD in its environment:

- ``writer``: an application instance that was never restarted: it remembers a memory
  every ``pause`` seconds with its own (old) embedder until the file ``stop`` exists, and
  appends one line a call to ``out``: ``ok <text>``, ``refused <type> <message>`` (a graphmem error)
  or ``error <type> <message>`` (anything else: a raw error).
- ``recaller``: recalls with its embedder until ``stop`` exists, one line a call to ``out``
  as the writer does (``ok <results>``).
- ``reembed``: one re-embedding to ``HashingEmbedder(dimensions)``, begun once the file
  ``go`` exists (so that two start together); prints its report, or the error, as JSON.
- ``die_after_switch``: a re-embedding killed (``os._exit``, as kill -9: nothing released)
  right after its switch committed, before it dropped the old index."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from graphmem import GraphMemError, HashingEmbedder, Memory


def _memory(tenant: str, dimensions: int) -> Memory:
    return Memory(os.environ["NEO4J_URI"], (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"]), tenant=tenant,
                  embedder=HashingEmbedder(dimensions))


def writer(tenant: str, dimensions: int, pause: float, out: str, stop: str) -> None:
    memory = _memory(tenant, dimensions)
    with open(out, "a", buffering=1) as lines:
        n = 0
        while not Path(stop).exists():
            text = f"written meanwhile number {n}"
            try:
                memory.remember(text, scope="s")
                lines.write(f"ok {text}\n")
            except GraphMemError as exc:  # a refusal that says why
                lines.write(f"refused {type(exc).__name__} {str(exc).replace(chr(10), ' ')}\n")
            except Exception as exc:  # a raw error: what the test counts
                lines.write(f"error {type(exc).__name__} {str(exc).replace(chr(10), ' ')}\n")
            n += 1
            time.sleep(pause)
    memory.close()


def recaller(tenant: str, dimensions: int, out: str, stop: str) -> None:
    memory = _memory(tenant, dimensions)
    with open(out, "a", buffering=1) as lines:
        n = 0
        while not Path(stop).exists():
            try:
                lines.write(f"ok {len(memory.recall(f'item {n % 1000}', scope='s', k=5))}\n")
            except GraphMemError as exc:  # a refusal that says why (an embedder the index is not of)
                lines.write(f"refused {type(exc).__name__} {str(exc).replace(chr(10), ' ')}\n")
            except Exception as exc:  # a raw error
                lines.write(f"error {type(exc).__name__} {str(exc).replace(chr(10), ' ')}\n")
            n += 1
            time.sleep(0.02)
    memory.close()


def reembed(tenant: str, old: int, dimensions: int, go: str, batch: int) -> None:
    memory = _memory(tenant, old)
    new = HashingEmbedder(dimensions)
    new.embed_query("warm")
    while not Path(go).exists():
        time.sleep(0.01)
    try:
        report = memory.reembed(new, batch_size=batch)
        print(json.dumps({"switched": report.switched, "embedded": report.embedded, "index": report.index}))
    except GraphMemError as exc:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
    except Exception as exc:  # a raw error
        print(json.dumps({"raw": type(exc).__name__, "message": str(exc)}))
    memory.close()


def die_after_switch(tenant: str, old: int, dimensions: int) -> None:
    def killed(*_: Any) -> None:
        os._exit(9)

    memory = _memory(tenant, old)
    memory._store.forget_index = killed  # type: ignore[method-assign]  # called right after reembed_switch committed
    memory.reembed(HashingEmbedder(dimensions), batch_size=64)


if __name__ == "__main__":
    roles = {"writer": writer, "recaller": recaller, "reembed": reembed, "die_after_switch": die_after_switch}
    roles[sys.argv[1]](**json.loads(sys.argv[2]))
