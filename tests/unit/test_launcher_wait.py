"""How long ``graphmem neo4j start`` waits (graphmem/_server/wait.py, issue 28.6): as long as
Neo4j makes progress, not a fixed 180 s. The policy is fed made-up samples; ``wait_for_bolt``
runs against small Python processes that write a log the way the launcher and Neo4j do.
No Java, no Neo4j."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from graphmem import LauncherError
from graphmem._server.wait import REPORT_EVERY, LogFollower, Sample, StartWatch, wait_for_bolt

RECOVERY = "2026-12-01 20:10:45.700+0000 INFO  [o.n.k.d.Database] [neo4j/9953b780] Recovery required from position LogPosition{logVersion=0, byteOffset=3238}"
PERCENT = "2026-12-01 20:10:48.707+0000 INFO  [o.n.k.r.Recovery] [neo4j/9953b780]  {}% completed"
RECOVERED = ("2026-12-01 20:10:56.399+0000 INFO  [o.n.k.d.Database] [neo4j/9953b780] Recovery in 'full' mode completed. "
             "Observed transactions range [first:4, last:26]: 23 transactions applied")
READY = "GRAPHMEM_BOLT_READY port=7687 version=5.26.19"


def run(watch: StartWatch, samples):
    """Feed samples until the watch decides; (outcome, time, lines said)."""
    said = []
    for sample in samples:
        step = watch.observe(sample)
        if step.say:
            said.append(step.say)
        if step.outcome != "waiting":
            return step, sample.at, said
    return step, sample.at, said


def test_a_long_recovery_that_keeps_logging_is_waited_for_past_the_old_180_s():
    watch = StartWatch(0.0, stall=180)

    def samples():
        log = 0
        for t in range(0, 600):  # ten minutes of recovery, a log line every 20 s, otherwise idle
            lines = ()
            if t == 3:
                lines = (RECOVERY,)
            elif t % 20 == 0 and t:
                lines = (PERCENT.format(min(99, t // 6)),)
            log += sum(len(x) + 1 for x in lines)
            yield Sample(float(t), True, log, cpu_seconds=t * 0.01, io_bytes=t * 2000, lines=lines)
        yield Sample(600.0, True, log + 100, cpu_seconds=6.0, io_bytes=1_200_000, lines=(RECOVERED, READY))

    step, at, said = run(watch, samples())
    assert (step.outcome, step.version, at) == ("ready", "5.26.19", 600.0)
    assert said[0] == "graphmem: Neo4j is recovering its transaction log (3 s; database neo4j)..."  # at once
    assert "graphmem: Neo4j is recovering its transaction log (588 s; database neo4j, 96% done)..." in said
    assert len(said) == 1 + len(range(3 + int(REPORT_EVERY), 600, int(REPORT_EVERY)))  # then every 15 s


def test_a_silent_phase_that_keeps_the_cpu_busy_is_progress_until_it_goes_idle():
    """The issue's restart: debug.log stopped at "Starting transaction log" for minutes."""
    watch = StartWatch(0.0, stall=180)
    busy = [Sample(float(t), True, 500, cpu_seconds=t * 0.6, io_bytes=0) for t in range(0, 400)]
    idle = [Sample(float(t), True, 500, cpu_seconds=240 + (t - 400) * 0.01, io_bytes=0) for t in range(400, 1000)]
    step, at, said = run(watch, busy + idle)
    assert step.outcome == "stalled"
    assert 580 <= at <= 590  # 180 s after the last busy window, not 180 s after the start
    assert "no progress for 180 s" in step.say and "while starting" in step.say
    assert said[0] == "graphmem: waiting for Neo4j to start (10 s)..."


def test_file_reads_without_cpu_count_as_progress():
    watch = StartWatch(0.0, stall=60)
    reading = [Sample(float(t), True, 0, cpu_seconds=0.0, io_bytes=t * 5_000_000) for t in range(0, 300)]
    step, _, _ = run(watch, reading)
    assert step.outcome == "waiting"


def test_an_idle_jvm_is_not_progress():
    """About 1% of a core and a few KiB a second of reads, as an idle JVM measured here."""
    watch = StartWatch(0.0, stall=60)
    idle = [Sample(t / 5, True, 100, cpu_seconds=t / 5 * 0.012, io_bytes=t * 400) for t in range(0, 5 * 300)]
    step, at, _ = run(watch, idle)
    assert step.outcome == "stalled" and 60 < at <= 61


def test_a_dead_process_ends_the_wait_at_once():
    watch = StartWatch(0.0, stall=180)
    step, at, _ = run(watch, [Sample(0.0, True, 0, 0.0, 0), Sample(1.0, True, 10, 0.5, 0, (RECOVERY,)),
                              Sample(2.0, False, 10, 0.5, 0)])
    assert (step.outcome, at) == ("died", 2.0)
    assert watch.doing() == "recovering its transaction log (database neo4j)"


def test_recovery_done_goes_back_to_starting():
    watch = StartWatch(0.0, stall=180)
    watch.observe(Sample(1.0, True, 10, 0.0, 0, (RECOVERY, PERCENT.format(40))))
    assert watch.doing() == "recovering its transaction log (database neo4j, 40% done)"
    watch.observe(Sample(2.0, True, 20, 0.0, 0, (RECOVERED,)))
    assert watch.doing() == "starting"


# Neo4j 2026 writes debug.log as JSON lines
JSON_RECOVERY = ('{"time":"2026-12-02 11:40:01.100+0000","level":"INFO","category":"o.n.k.d.Database","message":'
                 '"[neo4j/d2370b48] Recovery required from position LogPosition{logVersion=0, byteOffset=3238}"}')
JSON_PERCENT = ('{"time":"2026-12-02 11:40:02.100+0000","level":"INFO","category":"o.n.k.r.Recovery","message":'
                '"[neo4j/d2370b48]  {}% completed"}')
JSON_RECOVERED = ('{"time":"2026-12-02 11:40:03.100+0000","level":"INFO","category":"o.n.k.d.Database","message":'
                  '"[neo4j/d2370b48] Recovery in \'full\' mode completed."}')


def test_recovery_is_followed_in_2026s_json_log_too():
    watch = StartWatch(0.0, stall=180)
    watch.observe(Sample(1.0, True, 10, 0.0, 0, (JSON_RECOVERY, JSON_PERCENT.replace("{}", "70"))))
    assert watch.doing() == "recovering its transaction log (database neo4j, 70% done)"
    watch.observe(Sample(2.0, True, 20, 0.0, 0, (JSON_RECOVERED,)))
    assert watch.doing() == "starting"


def test_a_log_follower_reads_only_what_this_start_wrote(tmp_path):
    log = tmp_path / "debug.log"
    log.write_text("an older start's line\n")
    follower = LogFollower(log)
    assert follower.read() == []
    with open(log, "a") as f:
        f.write("first\nsecond, half")
    assert follower.read() == ["first"]
    with open(log, "a") as f:
        f.write(" done\n")
    assert follower.read() == ["second, half done"] and follower.grown == len("first\nsecond, half done\n")
    log.write_text("rotated\n")  # smaller than before: read from its start
    assert follower.read() == ["rotated"]


FAKE = textwrap.dedent("""
    import sys, time
    log, mode = sys.argv[1], sys.argv[2]
    def write(line):
        with open(log, "a") as f:
            f.write(line + "\\n")
    if mode == "recovering":
        write({recovery!r})
        for p in range(10, 100, 10):  # 4.5 s of recovery, more than the 2 s stall bound
            time.sleep(0.5)
            write({percent!r}.format(p))
        print({ready!r}, flush=True)
        time.sleep(60)
    elif mode == "silent":
        write({recovery!r})
        time.sleep(60)
    else:
        print("graphmem-embedded: nothing accepted connections", flush=True)
        sys.exit(2)
""").format(recovery=RECOVERY, percent=PERCENT, ready=READY)


def fake_launcher(tmp_path, mode):
    out, debug = tmp_path / "neo4j.log", tmp_path / "debug.log"
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    handle = open(out, "wb")
    followers = [LogFollower(out), LogFollower(debug)]
    proc = subprocess.Popen([sys.executable, str(script), str(debug), mode], stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    return proc, followers


def test_wait_for_bolt_follows_a_recovery_longer_than_the_stall_bound(tmp_path):
    proc, followers = fake_launcher(tmp_path, "recovering")
    said = []
    try:
        version = wait_for_bolt(proc, followers, stall=2.0, progress=lambda line, **kw: said.append((line, kw)), poll=0.05)
    finally:
        proc.kill()
        proc.wait()
    assert version == "5.26.19"
    assert said[0][0].startswith("graphmem: Neo4j is recovering its transaction log (") and said[0][1] == {"file": sys.stderr}


def test_wait_for_bolt_gives_up_on_a_process_without_progress_and_stops_it(tmp_path):
    proc, followers = fake_launcher(tmp_path, "silent")
    started = time.monotonic()
    try:
        with pytest.raises(LauncherError) as info:
            wait_for_bolt(proc, followers, stall=2.0, progress=lambda *a, **k: None, poll=0.05)
        assert proc.poll() is not None  # it was stopped, not left running
    finally:
        proc.kill()
        proc.wait()
    assert time.monotonic() - started < 15
    message = str(info.value)
    assert "no progress for 2 s" in message and "recovering its transaction log (database neo4j)" in message
    assert "GRAPHMEM_NEO4J_START_TIMEOUT" in message and "Recovery required from position" in message  # debug.log's tail


def test_wait_for_bolt_reports_a_process_that_exits(tmp_path):
    proc, followers = fake_launcher(tmp_path, "exits")
    with pytest.raises(LauncherError) as info:
        wait_for_bolt(proc, followers, stall=60.0, progress=lambda *a, **k: None, poll=0.05)
    assert "exited during start (code 2)" in str(info.value) and "nothing accepted connections" in str(info.value)
