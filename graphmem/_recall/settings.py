"""Recall's settings: how the parts of a score add up (``RecallWeights``) and every knob of
recall and of the prompt block (``RecallSettings``), each checked when made. The parameters
they turn into are in ``_recall/plan.py``."""

import math
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .._base.errors import InvalidInputError

# an index neighbour costs Neo4j about twice a row of the exact in-scope scan
# (docs/design-notes.md#recall-exact-or-index)
NEIGHBOUR_COST = 2.0


@dataclass(frozen=True)
class RecallWeights:
    """How the parts add up to the final score (they need not sum to one). ``fused`` is the
    query-adaptive fusion of both sides' evidence; ``semantic`` and ``lexical`` can add the
    raw scores on top (off by default: the fusion already weighs them); ``neighbour`` lifts
    a conversation turn next to a turn that answers (docs/recall-generalisation.md, step E)."""

    fused: float = 0.60
    """Weight of ``ScoreParts.fused``, the main relevance signal."""
    semantic: float = 0.0
    """Weight of the raw cosine part, added on top of the fusion (0 by default)."""
    lexical: float = 0.0
    """Weight of the raw full-text part, added on top of the fusion (0 by default)."""
    graph: float = 0.15
    """Weight of the graph part (records reached one hop from a top hit)."""
    recency: float = 0.10
    """Weight of recency (halves every ``RecallSettings.half_life``)."""
    importance: float = 0.10
    """Weight of the record's own ``importance``."""
    trust: float = 0.05
    """Weight of the provenance's trust."""
    neighbour: float = 0.12
    """Weight of the best fused score among the conversation turns next to the record."""
    entity: float = 0.50
    """Weight of the entity part: the record was said by, names or is about an entity the
    question names or implies (docs/recall.md, the graph side)."""


@dataclass(frozen=True)
class RecallSettings:
    """Tuning knobs for recall; defaults suit agent memories of up to a few million nodes.

    ``strategy`` is ``"auto"`` (exact in-scope scan when the visible scopes hold at most
    ``exact_scan_limit`` memories or when scanning them is cheaper than over-fetching from
    the vector index), ``"exact"`` or ``"index"`` (which forces the first search; a retry
    after filters ate the index's over-fetch still ends in the exact scan if need be).

    ``session_penalty`` spreads the results over conversations: each record already
    ranked from the same session lowers a record's score by this much (0 turns it off).

    The relevance floor leaves out records that do not answer the question at all: a
    record is kept when it matches a word of the question in the full-text index, or when
    its cosine similarity to the question stands at least ``min_standout`` standard
    deviations above the question's similarity to everyday sentences that answer nothing
    (``graphmem/_recall/relevance.py``), measured with the memory's own embedder: the floor follows
    each embedder's scale and each question's (docs/design-notes.md#recall-relevance-floor).
    ``min_relevance`` replaces it with one plain cosine for every question (-1 keeps
    everything). Records reached through the graph are kept with the direct hits they were
    expanded from.

    The full-text query is narrowed to the visible scopes inside Lucene (their ``lexKey``
    tokens) unless those scopes hold at least ``lexical_open_share`` of all memories in the
    database: then it is sent open, over-fetched and filtered in Cypher, which is cheaper
    (docs/design-notes.md#recall-lexical-candidates); if that leaves fewer than ``k`` hits
    because others' documents took the places, recall asks once more, narrowed. A value
    above 1 always narrows.

    Fusion: each side's score is measured in standard deviations from the mean of that
    side's other hits (``semantic_spread`` and ``lexical_spread`` are the smallest deviations
    taken seriously: below them the scores are noise), and the two are mixed
    ``semantic_share`` to ``1 - semantic_share``. A side whose best hit stands far out
    (a rare name matched exactly) therefore decides, and a side on which everything scores
    alike does not. The spreads suit WordLlama's cosines and Lucene's BM25; an embedder with
    a much narrower or wider cosine range may want its own ``semantic_spread``. The
    full-text side takes part only when its best hit scores at least ``lexical_gate`` of
    the largest IDF a word can have in the index: below that the question shares only common
    words with the memory, and which of them a record happens to hold says little
    (docs/design-notes.md#recall-lexical-gate).
    """

    def __post_init__(self) -> None:
        if self.strategy not in ("auto", "exact", "index"):
            raise InvalidInputError("strategy", f"{self.strategy!r} is not one of 'auto', 'exact', 'index'")
        if not 0.0 <= self.semantic_share <= 1.0:
            raise InvalidInputError("semantic_share", f"must be between 0 and 1, got {self.semantic_share!r}")
        if self.min_relevance is not None and not (is_number(self.min_relevance) and -1.0 <= self.min_relevance <= 1.0):
            raise InvalidInputError("min_relevance", f"must be None or a number from -1 to 1, got {self.min_relevance!r}")
        if self.lexical_gate is not None and not (
                is_number(self.lexical_gate) and self.lexical_gate >= 0 and math.isfinite(self.lexical_gate)):
            raise InvalidInputError("lexical_gate", f"must be None or a number of 0 or more, got {self.lexical_gate!r}")
        if not (is_number(self.min_standout) and math.isfinite(self.min_standout)):
            raise InvalidInputError("min_standout", f"must be a finite number, got {self.min_standout!r}")
        if not (is_number(self.exchange_share) and 0.0 <= self.exchange_share <= 1.0):
            raise InvalidInputError("exchange_share", f"must be between 0 and 1, got {self.exchange_share!r}")
        if not (self.session_penalty >= 0 and math.isfinite(self.session_penalty)):
            raise InvalidInputError("session_penalty", f"must be 0 or more, got {self.session_penalty!r}")
        if not self.lexical_open_share > 0:
            raise InvalidInputError("lexical_open_share", f"must be positive, got {self.lexical_open_share!r}")
        for name in ("semantic_spread", "lexical_spread", "over_fetch"):
            value = getattr(self, name)
            if not (is_number(value) and value > 0 and math.isfinite(value)):
                raise InvalidInputError(name, f"must be a positive number, got {value!r}")
        # integers (a float would also change the statement's parameter types: another plan)
        for name, least in (("exact_scan_limit", 0), ("max_vector_fetch", 1), ("rrf_k", 0),
                            ("expand_from", 0), ("expand_limit", 0), ("walk_limit", 0),
                            ("expand_mentions", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidInputError(name, f"must be an integer of at least {least}, got {value!r}")
        if not isinstance(self.half_life, timedelta) or self.half_life < timedelta(0):
            raise InvalidInputError("half_life", f"must be a timedelta of 0 or more, got {self.half_life!r}")
        if not isinstance(self.weights, RecallWeights):
            raise InvalidInputError("weights", f"must be a RecallWeights, got {self.weights!r}")

    weights: RecallWeights = field(default_factory=RecallWeights)
    """How the score's parts add up."""
    half_life: timedelta = timedelta(days=30)
    """Age at which the recency part halves (from occurred_at, valid_from or created_at); 0 turns it off."""
    exact_scan_limit: int = 256
    """Up to this many memories in the visible scopes, the semantic side scans them all exactly."""
    strategy: str = "auto"
    """``auto``, ``exact`` or ``index`` for the semantic side (see above)."""
    over_fetch: float = 1.5
    """Factor by which the vector index is asked for more neighbours than needed, since filters drop some."""
    max_vector_fetch: int = 10_000
    """Upper bound on the neighbours asked of the vector index in one query."""
    lexical_open_share: float = 0.8
    """Share of all memories above which the full-text query is sent open (see above)."""
    rrf_k: int = 60
    """Constant of the reciprocal rank fusion that picks which hits to expand through the graph."""
    expand_from: int = 5
    """How many of the best direct hits are expanded one hop through the graph."""
    expand_limit: int = 20
    """At most this many neighbours are added by the expansion (and never more than 2 k)."""
    expand_mentions: int = 20
    """A top hit is also expanded to the other turns that name an entity it names, when at
    most this many turns name it (a rare name links turns about one thing; a name on many
    turns, a speaker's, links everything; 0 turns this off)."""
    walk_limit: int = 64
    """The graph side walks from an entity the question names to every record it said, is
    named in or is about when there are at most this many (each is scored by cosine); for
    a wider one (a speaker of hundreds of turns) it takes the records tied to it among what
    the semantic side's search found, which costs nothing more."""
    semantic_share: float = 0.65
    """Share of the semantic side in the fusion, between 0 and 1 (see above)."""
    semantic_spread: float = 0.05
    """Smallest cosine deviation the fusion takes seriously (see above)."""
    lexical_spread: float = 0.5
    """Smallest BM25 deviation the fusion takes seriously (see above)."""
    lexical_gate: float | None = None
    """The full-text side counts in the fusion only when its best hit's BM25 score is at
    least this share of ln(1 + (N - 0.5) / 1.5), the IDF of a word that one of the index's N
    memories holds (see above; 0 always lets it count). None: 0.5 with an embedder, 0
    without one (the full-text side is then the only side), and 0 for a question that names
    someone or something (``_recall.plan.decided_gate``)."""
    session_penalty: float = 0.0
    """Score taken off per record already ranked from the same session (see above; off by
    default: it pushed a conversation's second answering turn out of the top ten)."""
    min_standout: float = 2.5
    """The relevance floor: a record needs a full-text match of a question word, or a cosine
    this many standard deviations above the question's cosines to unrelated text (see above)."""
    min_relevance: float | None = None
    """A plain cosine floor instead of ``min_standout``, the same for every question (None:
    the calibrated floor)."""
    exchange_share: float = 0.8
    """``context()`` shows with a conversation turn it found the exchange around it: the turn
    before, the reply and the turn after that, when someone else speaks in between (a topic
    one person opens is often answered two turns on). Each counts as this share of the
    turn's score when the block is filled; 0 leaves them out (docs/recall.md#the-prompt-block)."""


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
