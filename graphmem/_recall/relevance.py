"""The relevance floor's yardstick: how similar a question is to texts that answer nothing,
measured with the memory's own embedder (no I/O but the embedder's).

An embedder's cosines have a scale of their own: WordLlama puts unrelated texts at about
-0.1..0.1, all-MiniLM-L6-v2 at about 0..0.25, and one question sits higher or lower than
another on the same scale. So recall does not compare a record's cosine with one constant:
it compares it with the question's cosines to these everyday sentences, which answer no
question a memory is asked, and keeps a record that stands ``RecallSettings.min_standout``
of their standard deviations above their mean (docs/design-notes.md#recall-relevance-floor).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SENTENCES = (
    "The kettle clicked off and the kitchen went quiet again.",
    "Three pigeons argued over a crust on the station platform.",
    "The printer on the second floor has been jammed since Tuesday.",
    "A thin layer of frost covered the windscreen this morning.",
    "The museum closes an hour early on public holidays.",
    "He folded the map the wrong way and gave up on it.",
    "The bakery on the corner sold out of rye bread by noon.",
    "Rain is expected to clear from the west by the evening.",
    "The cat slept on the warm lid of the piano all afternoon.",
    "Our flight was delayed while they de-iced the wings.",
    "The library moved its study rooms to the ground floor.",
    "She repainted the garden fence a pale shade of green.",
    "The bus timetable changes when the school term starts.",
    "A loose tile rattled on the roof during the storm.",
    "The committee postponed the vote until next month.",
    "Fresh strawberries are cheaper at the Saturday market.",
    "The elevator stopped between floors for a few minutes.",
    "They planted tulip bulbs along the path in October.",
    "The old bridge is closed to traffic for repairs.",
    "A delivery van blocked the narrow street for an hour.",
    "The choir rehearses in the church hall on Thursdays.",
    "Someone left an umbrella on the back seat of the taxi.",
    "The river rose after a week of heavy rain upstream.",
    "The new coffee machine makes a strange whistling sound.",
    "Tickets for the concert went on sale at nine o'clock.",
    "The hedgehog came back to the garden after dark.",
    "Road works on the ring road will last until spring.",
    "The office plants need watering twice a week in summer.",
    "A marching band paraded through the town square.",
    "The power went out briefly during the thunderstorm.",
    "They found an old coin while digging the vegetable bed.",
    "The ferry crossing was rough because of the wind.",
)

_LEAST_DEVIATION = 0.02  # a near-constant yardstick would make every small difference huge


def matrix(vectors: Sequence[Sequence[float]]) -> Any:
    """The background vectors as one unit-row matrix (numpy: 32 dot products cost
    microseconds rather than milliseconds of Python)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def yardstick(query: Sequence[float], background: Any) -> tuple[float, float]:
    """Mean and standard deviation (at least 0.02) of the query's cosines to the rows of
    ``background`` (``matrix``; the query is a unit vector, so a dot product is the cosine)."""
    import numpy as np

    cosines = background @ np.asarray(query, dtype=np.float64)
    return float(cosines.mean()), max(float(cosines.std()), _LEAST_DEVIATION)


def standout(cosine: float, stick: tuple[float, float]) -> float:
    """How many of the yardstick's deviations ``cosine`` stands above its mean."""
    mean, deviation = stick
    return (cosine - mean) / deviation
