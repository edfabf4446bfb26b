"""The Graphiti comparison's scenario and oracle (bench/temporal_oracle.py): the judge must
be a perfect, not a lenient, stand-in for Graphiti's contradiction prompt."""

from __future__ import annotations

import random
import sys
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import temporal_oracle as oracle

PROMPT = """Some instructions mentioning <NEW FACT> in prose.
<EXISTING FACTS>
[{'idx': 0, 'fact': 'Person001 lives in Oslo'}, {'idx': 1, 'fact': 'Person001 lives in Rome'}]
</EXISTING FACTS>
<FACT INVALIDATION CANDIDATES>
[{'idx': 2, 'fact': 'Person001 lives in Paris'}, {'idx': 3, 'fact': 'Person002 lives in Rome'}, {'idx': 4, 'fact': "Person001's cat"}]
</FACT INVALIDATION CANDIDATES>
<NEW FACT>
Person001 lives in Oslo
</NEW FACT>"""


def test_the_judge_finds_duplicates_and_contradictions_of_the_same_person_only():
    assert oracle.judge(PROMPT) == {"duplicate_facts": [0], "contradicted_facts": [1, 2]}
    assert oracle.judge("<NEW FACT>\nsomething else\n</NEW FACT>") == {"duplicate_facts": [], "contradicted_facts": []}


def test_empty_answers_fit_the_response_model():
    class Answer(BaseModel):
        names: list[str]
        note: str
        flag: bool
        extra: int = 3

    assert Answer(**oracle.empty(Answer)) == Answer(names=[], note="", flag=False)


def test_the_scenario_knows_where_everyone_lived_when():
    [person] = oracle.scenario(random.Random(1), 1, 4)
    moves = person["moves"]
    assert len({c for _, c in moves}) == 4 and moves == sorted(moves)
    assert oracle.city_at(person, moves[0][0] - timedelta(days=1)) is None
    assert oracle.city_at(person, moves[2][0]) == moves[2][1]
    assert oracle.city_at(person, moves[3][0] + timedelta(days=9999)) == moves[3][1]
    score = {"top1": 0, "stale": 0, "shown": 0}
    oracle.tally(score, [("Oslo", True), ("Rome", False)], "Oslo")
    oracle.tally(score, [], "Oslo")
    assert score == {"top1": 1, "stale": 1, "shown": 2}
    assert oracle.city_of("Person003 lives in Riga") == "Riga" and oracle.city_of("Person003 likes tea") is None
