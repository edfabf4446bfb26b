"""The recorded extraction model of bench/recorded_model.py on a made-up conversation in
LoCoMo's format: ingest lands one fact per observation, derived from exactly its source
turn, and recall hands the turn back with the fact."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from recorded_model import PREDICATE, RecordedExtraction, observations  # noqa: E402

SAMPLE = {
    "sample_id": "made-up-1",
    "conversation": {
        "speaker_a": "Ines", "speaker_b": "Tomas",
        "session_1_date_time": "9:00 am on 3 March, 2024",
        "session_1": [
            {"speaker": "Ines", "dia_id": "D1:1", "text": "Morning! I signed up for a pottery class."},
            {"speaker": "Tomas", "dia_id": "D1:2", "text": "Nice. I'm still training for the Lisbon half marathon."},
            {"speaker": "Ines", "dia_id": "D1:3", "text": "You'll do great. My sister visits next week."},
        ],
        "session_2_date_time": "6:30 pm on 10 March, 2024",
        "session_2": [
            {"speaker": "Tomas", "dia_id": "D2:1", "text": "How was the first pottery lesson?"},
            {"speaker": "Ines", "dia_id": "D2:2", "text": "I made a lopsided bowl and loved it."},
        ],
    },
    "observation": {
        "session_1_observation": {
            "Ines": [["Ines signed up for a pottery class.", "D1:1"], ["Ines's sister is visiting soon.", "D1:3"]],
            "Tomas": [["Tomas is training for the Lisbon half marathon.", "D1:2"], ["Tomas likes tea.", "D9:99"]],
        },
        "session_2_observation": {"Ines": [["Ines made a lopsided bowl in her first pottery lesson.", "D2:2"]]},
    },
    "qa": [],
}


def turn_text(turn):
    return f"{turn['speaker']}: {turn['text']}"


def test_observations_keep_only_turns_that_exist():
    found = observations(SAMPLE)
    assert sorted(found) == ["1", "2"]
    assert [(who, ids) for who, _, ids in found["1"]] == [("Ines", ["D1:1"]), ("Ines", ["D1:3"]), ("Tomas", ["D1:2"])]


def test_ingest_lands_one_fact_per_observation_derived_from_its_turn(memory):
    model = RecordedExtraction.from_samples([SAMPLE], turn_text)
    turn_of: dict[str, str] = {}
    facts = []
    for n in (1, 2):
        turns = SAMPLE["conversation"][f"session_{n}"]
        when = datetime(2024, 3, 3 if n == 1 else 10, tzinfo=timezone.utc)
        done = memory.ingest([{"role": "user", "content": turn_text(t)} for t in turns], scope="bench", llm=model,
                             session_id=f"s{n}", occurred_at=when)
        assert done.error is None and not done.skipped
        turn_of.update(zip(done.episode_ids, (t["dia_id"] for t in turns)))
        facts += done.facts
    assert model.tally["calls"] >= 2 and model.tally["facts"] == 4
    expected = {"Ines signed up for a pottery class.": "D1:1", "Ines's sister is visiting soon.": "D1:3",
                "Tomas is training for the Lisbon half marathon.": "D1:2",
                "Ines made a lopsided bowl in her first pottery lesson.": "D2:2"}
    assert {f.text for f in facts} == set(expected)
    assert all(f.predicate == PREDICATE for f in facts)
    for fact in facts:
        graph = memory.evidence(fact.id)
        sources = [turn_of[e] for e in graph.successors(fact.id) if e in turn_of]
        assert sources == [expected[fact.text]], fact.text
    found = memory.recall("what did Ines make in her pottery lesson?", scope="bench", kinds=["fact"])
    assert found and found[0].record.text == "Ines made a lopsided bowl in her first pottery lesson."
    assert [turn_of[c.id] for c in found[0].citations] == ["D2:2"]
