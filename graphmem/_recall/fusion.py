"""Recall's scoring: query-adaptive fusion of the semantic and lexical evidence, the final
score from its parts, the spread over conversations, and insights kept below their evidence."""

import heapq
import math
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._base.models import Provenance, Record, Status
from .._base.records import to_record
from . import fulltext, seeds
from . import relevance as _relevance
from .candidates import Candidate
from .settings import RecallSettings

_INSIGHT_GAP = 1e-6
_UNCALIBRATED_FLOOR = 0.15


class ScoreParts(BaseModel):
    """The parts of a recall score, each in 0..1 (``lexical`` is relative to the best hit)."""

    model_config = ConfigDict(frozen=True)

    semantic: float = 0.0
    """Neo4j's cosine similarity to the query, scaled to 0..1 as (1 + cos) / 2."""
    lexical: float = 0.0
    """Full-text (Lucene BM25) score relative to the best lexical hit of this recall."""
    fused: float = 0.0
    """Query-adaptive fusion of the semantic and lexical evidence, 1.0 = the best candidate
    of this recall (see ``RecallSettings.semantic_share``)."""
    graph: float = 0.0
    """0 unless the record is one hop from a top direct hit (``ABOUT``, ``RELATES``, ``CITES``,
    ``DERIVED_FROM``), or a turn naming an entity such a hit names, when few turns name it
    (``RecallSettings.expand_mentions``); then that hit's reciprocal-rank-fusion score
    relative to the best possible."""
    recency: float = 0.0
    """0.5 raised to the record's age over ``RecallSettings.half_life``."""
    importance: float = 0.0
    """The record's own ``importance``."""
    trust: float = 0.0
    """The provenance's trust over the highest trust (``human-correction`` = 1)."""
    neighbour: float = 0.0
    """The best ``fused`` score among the turns next to this one in its conversation that
    are candidates too (a turn is often the answer to the one before it)."""
    entity: float = 0.0
    """How closely the record is tied to an entity the question names or implies (its name
    or alias, or "I"/"you" for the user and the agent): 1 when the entity said it (``SPOKE``)
    or it is a fact about the entity (``ABOUT``), 0.8 for a turn such a fact came from, 0.6
    when it names an entity that does not speak (``MENTIONS``: a turn naming a speaker
    mostly addresses them); 0 without a tie, or when the entity is tied to most of the
    visible memories (``_recall.seeds.ENTITY_SHARE``)."""
    relevance: float = 0.0
    """Relevance to the question on a scale that is not rescaled per result list: 1.0 for a
    full-text match of a question word; otherwise, with an embedder, the share of unrelated
    text the record beats (the normal distribution's probability of its standout over the
    question's cosines to everyday sentences: 0.99 at ``min_standout`` 2.5); with a plain
    ``min_relevance`` floor, the cosine similarity."""


class ScoredMemory(BaseModel):
    """One recall result: the record, its final score and the parts it was made of."""

    model_config = ConfigDict(frozen=True)

    record: Record
    """The memory found."""
    score: float
    """Final score: the weighted sum of ``parts`` (see ``RecallWeights``), after the spread over sessions."""
    parts: ScoreParts
    """The parts the score was made of."""
    citations: tuple[Record, ...] = ()
    """For an insight, the visible records it cites; for a fact, the visible episodes it was
    derived from (``DERIVED_FROM``: its source turns)."""
    quarantined: bool = False
    """True when the record awaits validation (never with ``purpose="act"``)."""
    via_graph: bool = False
    """True when only the graph expansion found it (neither index did)."""


def _moment(record: Record) -> datetime:
    # the instance's own fields: getattr of a field another kind has goes through
    # pydantic's __getattr__ and an AttributeError
    fields = record.__dict__
    return fields.get("occurred_at") or fields.get("valid_from") or record.created_at


# with small BM25 scores the lexical floor is this share of the best hit's score, never 0
# (docs/design-notes.md#recall-lexical-floor)
_SMALL_SCORES = 0.3
_LEAST_SPREAD = 1e-6
_LOWEST = -3.0  # standard deviations: a candidate missing from a side counts as this far below it
# no side's standout counts for more than this (docs/design-notes.md#recall-standout-cap)
_HIGHEST = 5.0


class _Side:
    """One side's hit scores (semantic or lexical), to say how far a candidate stands out
    from that side's *other* hits, in standard deviations of at least ``min_deviation``,
    bounded by ``_LOWEST`` and ``_HIGHEST``. Leaving the candidate out matters: among seven
    hits, one standout inside the sample can never be more than sqrt(6) deviations from a
    mean and a spread it inflates itself."""

    def __init__(self, values: list[float], min_deviation: float) -> None:
        self.n = len(values)
        self.total = sum(values)
        self.squares = sum(v * v for v in values)
        self.min_deviation = min_deviation

    def standing(self, value: float | None, is_hit: bool) -> float:
        if value is None:
            return _LOWEST
        n, total, squares = self.n, self.total, self.squares
        if is_hit and n > 1:  # compare with the others only
            n, total, squares = n - 1, total - value, squares - value * value
        mean = total / n
        deviation = math.sqrt(max(0.0, squares / n - mean * mean))
        return min(_HIGHEST, max(_LOWEST, (value - mean) / max(deviation, self.min_deviation)))


def fused_evidence(rows: list[Candidate], settings: RecallSettings, *, lexical_side: bool = True) -> list[float]:
    """Query-adaptive fusion, 0..1 per row (1.0 = best): on each side, how many standard
    deviations a candidate stands above that side's other hits (the deviation floored at
    ``settings.*_spread``, so a side on which every candidate scores alike cannot amplify
    noise), mixed by ``semantic_share``. A side with no hits at all (no embedder, or only
    stop words) leaves the other to decide. BM25 scores grow with the number of documents
    (a word's IDF does), so the lexical floor shrinks to 0.3 of the best hit's score when
    that is below ``lexical_spread / 0.3`` (docs/design-notes.md#recall-lexical-floor).
    Without ``lexical_side`` the semantic side decides alone (the full-text hits matched
    only a name: ``named_sessions``)."""
    # a ranked hit has its score (the statement gives one with each rank)
    semantic_hits = [r.semantic for r in rows if r.semantic_rank and r.semantic is not None]
    lexical_hits = [r.lexical for r in rows if r.lexical_rank and r.lexical is not None] if lexical_side else []
    if lexical_hits and max(lexical_hits) < lexical_gate(rows, settings):
        lexical_hits = []  # only common words matched: the full-text side sits this one out
    semantic = _Side(semantic_hits, settings.semantic_spread) if semantic_hits else None
    lexical = (_Side(lexical_hits, max(_LEAST_SPREAD, min(settings.lexical_spread, _SMALL_SCORES * max(lexical_hits))))
               if lexical_hits else None)
    share = settings.semantic_share if semantic and lexical else (1.0 if semantic else 0.0)
    evidence = [
        (share * semantic.standing(r.semantic, bool(r.semantic_rank)) if semantic else 0.0)
        + ((1 - share) * lexical.standing(r.lexical, bool(r.lexical_rank)) if lexical else 0.0)
        for r in rows
    ]
    low, high = min(evidence, default=0.0), max(evidence, default=0.0)
    return [(e - low) / (high - low) if high > low else 1.0 for e in evidence]


def lexical_gate(rows: list[Candidate], settings: RecallSettings) -> float:
    """The BM25 score the full-text side's best hit must reach to count in the fusion:
    ``settings.lexical_gate`` of ln(1 + (N - 0.5) / 1.5), the IDF Lucene gives a word that
    one of the N memories in the database holds (the index's statistics span every tenant).
    A best hit below it matched only words that many memories hold ("tips", "life" in "any
    tips for my phone's battery life?"), and which of those a record holds ranked the
    answer below a dozen unrelated records on LongMemEval (docs/design-notes.md#recall-lexical-gate)."""
    total = max((int(r.total or 0) for r in rows), default=0)
    if not settings.lexical_gate or total <= 1:  # 0, or None (left to the embedder: _recall.decided_gate)
        return 0.0
    return settings.lexical_gate * math.log(1.0 + (total - 0.5) / 1.5)


def relevance(row: Candidate, stick: tuple[float, float] | None = None) -> float:
    """A candidate's relevance to the question: 1.0 when it matches a word of the question
    in the full-text index; otherwise, with a yardstick (the mean and deviation of the
    question's cosines to unrelated text), the normal probability of its standout over it;
    without one, its plain cosine similarity (-1..1; Neo4j's score is (1 + cos) / 2), or 0
    without an embedding. Unlike the fused score it is not rescaled per result list, so an
    unrelated question gets low values everywhere."""
    if row.lexical_rank is not None:
        return 1.0
    semantic = row.semantic
    if semantic is None:
        return 0.0
    cosine = 2.0 * float(semantic) - 1.0
    if stick is None:
        return cosine
    return 0.5 * (1.0 + math.erf(_relevance.standout(cosine, stick) / math.sqrt(2.0)))


def floor_of(settings: RecallSettings, min_relevance: float | None, stick: tuple[float, float] | None) -> float:
    """The value ``relevance`` must reach: a plain cosine when one was given (here or in the
    settings), else the calibrated floor at ``min_standout``, else (scored without a
    yardstick) a cosine of 0.15."""
    chosen = settings.min_relevance if min_relevance is None else min_relevance
    if chosen is not None:
        return chosen
    if stick is None:  # scored without a yardstick (no query vector): the cosine floor of WordLlama's scale
        return _UNCALIBRATED_FLOOR
    return 0.5 * (1.0 + math.erf(settings.min_standout / math.sqrt(2.0)))


def relevant(rows: list[Candidate], floor: float, stick: tuple[float, float] | None = None,
             sessions: frozenset[str] = frozenset()) -> list[Candidate]:
    """The candidates at or above ``floor``; records reached through the graph stay when a
    direct hit does (they were expanded from the best hits), and so do the candidates of
    ``sessions`` (``named_sessions``: the conversations a name-only question points to)."""
    direct = [r for r in rows if r.direct]
    if not any(relevance(r, stick) >= floor for r in direct):
        return []
    return [r for r in rows if relevance(r, stick) >= floor or (r.graph or 0.0) > 0 or not r.direct
            or (sessions and r.memory.get("sessionId") in sessions)]


def named_sessions(rows: list[Candidate], question: str | None) -> frozenset[str]:
    """The conversations the question points to by a name alone: when every full-text hit
    matched only names of the question ("Welcome Priya!" for "where does Priya live?"), the
    name says whom the question is about and nothing else of it was found by its words; the
    answer is then in what was said in that person's conversations, in words the question
    does not use ("I just moved from Leeds to Glasgow"), so their candidates pass the
    relevance floor and the semantic side orders them (a match on the name alone says
    nothing of what answers). Empty when some hit matched another word of the question, or
    when the question is only names (docs/design-notes.md#recall-name-only-match)."""
    names = set(fulltext.names(question or ""))
    if not names:
        return frozenset()
    topical = [w for w in (fulltext.words(question or "") or "").split() if w not in names and not fulltext.is_stop_word(w)]
    if not topical:  # the question is its names ("When was Jon in Paris?"): their hits are the answer
        return frozenset()
    sessions = set()
    for r in rows:
        if r.lexical_rank is None:
            continue
        held = fulltext.word_set(r.memory.get("text") or r.memory.get("name") or "")
        if any(fulltext.same_word(w, h) for w in topical for h in held):
            return frozenset()  # the question's own words found something: no name-only lead
        if r.memory.get("sessionId") and names & held:
            sessions.add(r.memory["sessionId"])
    return frozenset(sessions)


def score(rows: list[Candidate], *, now: datetime, settings: RecallSettings, k: int,
          min_relevance: float | None = None, stick: tuple[float, float] | None = None,
          question: str | None = None) -> list[ScoredMemory]:
    """Turn the template's candidate rows into ranked ``ScoredMemory`` results, leaving out
    what is not relevant (``floor_of``: a plain ``min_relevance`` cosine, or the floor
    calibrated by ``stick``, the question's cosines to unrelated text; without either, a
    cosine of 0.15; the conversations a ``question`` names by a name alone pass it,
    ``named_sessions``)."""
    rows = [r for r in rows if r.node is not None]
    if not rows:
        return []
    plain = settings.min_relevance if min_relevance is None else min_relevance
    stick = None if plain is not None else stick
    floor = floor_of(settings, min_relevance, stick)
    best_lexical = max((r.lexical or 0.0) for r in rows) or 1.0
    rrf_top = 2.0 / (settings.rrf_k + 1)
    w = settings.weights
    half_life = settings.half_life.total_seconds()
    results = []
    # fusion sees every candidate (its scale is relative to them); the floor then only removes
    # a question found by a name alone: the name says whom, the meaning orders that person's turns
    sessions = named_sessions(rows, question)
    fused_scores = fused_evidence(rows, settings, lexical_side=not sessions)
    by_id = {row.memory["id"]: f for row, f in zip(rows, fused_scores)}
    tied = {id(r): t for r, t in zip(rows, seeds.ties(rows))}
    # a record tied to an entity the question names passes the floor: the name says whom, the
    # meaning orders what that one said or is said of them
    keep = {id(r) for r in relevant(rows, floor, stick, sessions)} | {i for i, t in tied.items() if t > 0}
    if seeds.only_about_seeds(rows, question) and any(tied.values()):
        named = seeds.seed_ids(rows)  # what is tied to them, and the named entities themselves
        keep = {id(r) for r in rows if id(r) in keep and (tied[id(r)] > 0 or r.memory["id"] in named)}
    for row, fused in zip(rows, fused_scores):
        if id(row) not in keep:
            continue
        record = to_record(row.memory)
        neighbour = max((by_id.get(n, 0.0) for n in row.neighbours or ()), default=0.0)
        semantic = float(row.semantic or 0.0)
        lexical = float(row.lexical or 0.0) / best_lexical
        graph = min(1.0, float(row.graph or 0.0) / rrf_top)
        age = max(0.0, (now - _moment(record)).total_seconds())
        recency = math.pow(0.5, age / half_life) if half_life > 0 else 0.0
        trust = record.provenance.trust / Provenance.HUMAN_CORRECTION.trust
        # model_construct: every value is a float computed here, nothing to validate
        parts = ScoreParts.model_construct(semantic=semantic, lexical=lexical, fused=fused, graph=graph, recency=recency,
                                           importance=record.importance, trust=trust, neighbour=neighbour,
                                           relevance=relevance(row, stick), entity=tied[id(row)])
        total = (w.fused * fused + w.semantic * semantic + w.lexical * lexical + w.graph * graph
                 + w.recency * recency + w.importance * record.importance + w.trust * trust
                 + w.neighbour * neighbour + w.entity * tied[id(row)])
        citations = tuple(to_record(c) for c in row.cites or ())
        results.append(ScoredMemory.model_construct(
            record=record, score=total, parts=parts, citations=citations,
            quarantined=record.status == Status.QUARANTINED,
            via_graph=not row.direct,
        ))
    return _insights_below_their_evidence(_spread_over_sessions(results, settings.session_penalty))[:k]


def _spread_over_sessions(results: list[ScoredMemory], penalty: float) -> list[ScoredMemory]:
    """Greedily, best first: every record already taken from the same session lowers a
    record's score by ``penalty``, so the results are not ten turns of one conversation
    when other conversations also answer. Insights take no part (they rank against their
    evidence instead). All records of one session carry the same penalty, so a heap of
    each session's best remaining record finds the next pick: O(n log n)."""
    def session(r: ScoredMemory) -> str | None:
        return None if r.record.kind == "insight" else r.record.session_id

    if penalty <= 0 or not any(session(r) for r in results):
        return results
    # one queue per session, best first; a record without a session is a queue of its own
    queues: dict[Any, list[tuple[int, ScoredMemory]]] = {}
    for i, r in enumerate(sorted(results, key=lambda r: (-r.score, r.record.id))):
        queues.setdefault(session(r) or i, []).append((i, r))
    heap = [(-queue[0][1].score, queue[0][0], key) for key, queue in queues.items()]
    heapq.heapify(heap)
    taken: dict[Any, int] = {}
    out = []
    while heap:
        negative, _, key = heapq.heappop(heap)
        n = taken.get(key, 0)
        best = queues[key][n][1]
        out.append(best.model_copy(update={"score": -negative}) if n else best)
        taken[key] = n = n + 1
        if n < len(queues[key]):
            i, following = queues[key][n]
            heapq.heappush(heap, (-(following.score - penalty * n), i, key))
    return out


def _insights_below_their_evidence(results: list[ScoredMemory]) -> list[ScoredMemory]:
    """An insight never outranks a record it cites that is in the same result list."""
    by_id = {r.record.id: r for r in results}
    adjusted = []
    for r in results:
        if r.record.kind != "insight":  # a fact's citations are its sources: it may rank above them
            adjusted.append(r)
            continue
        cited = [by_id[c.id].score for c in r.citations if c.id in by_id]
        if cited and r.score >= min(cited):
            r = r.model_copy(update={"score": min(cited) - _INSIGHT_GAP})
        adjusted.append(r)
    return sorted(adjusted, key=lambda r: (-r.score, r.record.id))

