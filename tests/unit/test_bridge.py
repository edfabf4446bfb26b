"""One async body, two callables (graphmem/integrations/_bridge.py ``twins``), without a database."""

from __future__ import annotations

import asyncio
import threading

import pytest

from graphmem.integrations._bridge import twins


class Recorder:
    """A memory stand-in: records the thread each call ran on."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []

    def get(self, id: str) -> str:
        self.threads.append(threading.current_thread())
        if id == "missing":
            raise LookupError(id)
        return f"record {id}"


async def shout(memory, id: str) -> str:
    return (await memory("get", id)).upper()


def test_the_function_runs_the_body_in_this_thread_without_an_event_loop():
    memory = Recorder()
    function, _ = twins(memory, shout)
    assert function(id="a") == "RECORD A"
    assert memory.threads == [threading.current_thread()]
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()  # none was started for it


def test_the_coroutine_runs_the_same_body_with_the_memory_in_a_worker_thread():
    memory = Recorder()
    _, coroutine = twins(memory, shout)
    assert asyncio.run(coroutine(id="b")) == "RECORD B"
    assert len(memory.threads) == 1 and memory.threads[0] is not threading.current_thread()


def test_errors_reach_both_callers_as_themselves():
    function, coroutine = twins(Recorder(), shout)
    with pytest.raises(LookupError, match="missing"):
        function(id="missing")
    with pytest.raises(LookupError, match="missing"):
        asyncio.run(coroutine(id="missing"))


def test_a_body_that_awaits_anything_but_its_caller_is_refused_on_the_sync_side(recwarn):
    async def sleepy(memory, id: str) -> str:
        await asyncio.sleep(0)
        return await memory("get", id)

    memory = Recorder()
    function, coroutine = twins(memory, sleepy)
    with pytest.raises(RuntimeError, match="sleepy"):
        function(id="a")
    assert memory.threads == []  # stopped before it reached the memory
    assert asyncio.run(coroutine(id="a")) == "record a"
    assert not [w for w in recwarn if "never awaited" in str(w.message)]
