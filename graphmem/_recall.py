"""Recall's pure logic: query parameters, scoring and ordering of candidates, and the
prompt-ready context block. The single Cypher round trip lives in cypher/recall.cypher."""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from . import _dates, _scopes
from . import _validate as check
from ._errors import InvalidInputError
from ._models import Fact, Provenance, Record, Sensitivity, Status
from ._records import to_record

KINDS = ("fact", "episode", "entity", "insight", "procedure")
PURPOSES = ("inform", "act")
_WORD = re.compile(r"\w+", re.UNICODE)
_LUCENE_WORDS = 64
# An index neighbour costs Neo4j about twice a row of the exact in-scope scan (about 100 µs
# against 40-50 µs at 100k memories): the scan is chosen while it reads at most this many
# times the neighbours the index would be asked for.
_NEIGHBOUR_COST = 2.0
_INSIGHT_GAP = 1e-6


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
    recency: float = 0.0
    importance: float = 0.0
    trust: float = 0.0


class ScoredMemory(BaseModel):
    """One recall result: the record, its final score and the parts it was made of."""

    model_config = ConfigDict(frozen=True)

    record: Record
    score: float
    parts: ScoreParts
    citations: tuple[Record, ...] = ()
    quarantined: bool = False
    via_graph: bool = False


@dataclass(frozen=True)
class RecallWeights:
    """How the parts add up to the final score (they need not sum to one). ``fused`` is the
    query-adaptive fusion of both sides' evidence; ``semantic`` and ``lexical`` can add the
    raw scores on top (off by default: the fusion already weighs them)."""

    fused: float = 0.60
    semantic: float = 0.0
    lexical: float = 0.0
    graph: float = 0.15
    recency: float = 0.10
    importance: float = 0.10
    trust: float = 0.05


@dataclass(frozen=True)
class RecallSettings:
    """Tuning knobs for recall; defaults suit agent memories of up to a few million nodes.

    ``strategy`` is ``"auto"`` (exact in-scope scan when the visible scopes hold at most
    ``exact_scan_limit`` memories or when scanning them is cheaper than over-fetching from
    the vector index), ``"exact"`` or ``"index"`` (which forces the first search; a retry
    after filters ate the index's over-fetch still ends in the exact scan if need be).

    ``session_penalty`` spreads the results over conversations: each record already
    ranked from the same session lowers a record's score by this much (0 turns it off).

    The full-text query is narrowed to the visible scopes inside Lucene (their ``lexKey``
    tokens) unless those scopes hold at least ``lexical_open_share`` of all memories in the
    database: then narrowing costs more than it saves (2 ms of 20 at 100k memories), so
    the query is sent open, over-fetched by all memories / visible ones, and filtered in
    Cypher; if that leaves fewer than ``k`` hits because others' documents took the places,
    recall asks once more, narrowed. A value above 1 always narrows.

    Fusion: each side's score is measured in standard deviations from the mean of that
    side's other hits (``semantic_spread`` and ``lexical_spread`` are the smallest deviations
    taken seriously: below them the scores are noise), and the two are mixed
    ``semantic_share`` to ``1 - semantic_share``. A side whose best hit stands far out
    (a rare name matched exactly) therefore decides, and a side on which everything scores
    alike does not. The spreads suit WordLlama's cosines and Lucene's BM25; an embedder with
    a much narrower or wider cosine range may want its own ``semantic_spread``.
    """

    def __post_init__(self) -> None:
        if self.strategy not in ("auto", "exact", "index"):
            raise InvalidInputError("strategy", f"{self.strategy!r} is not one of 'auto', 'exact', 'index'")
        if not 0.0 <= self.semantic_share <= 1.0:
            raise InvalidInputError("semantic_share", f"must be between 0 and 1, got {self.semantic_share!r}")
        if not (self.session_penalty >= 0 and math.isfinite(self.session_penalty)):
            raise InvalidInputError("session_penalty", f"must be 0 or more, got {self.session_penalty!r}")
        if not self.lexical_open_share > 0:
            raise InvalidInputError("lexical_open_share", f"must be positive, got {self.lexical_open_share!r}")
        for name in ("semantic_spread", "lexical_spread", "over_fetch"):
            value = getattr(self, name)
            if not (_is_number(value) and value > 0 and math.isfinite(value)):
                raise InvalidInputError(name, f"must be a positive number, got {value!r}")
        # integers (a float would also change the statement's parameter types: another plan)
        for name, least in (("exact_scan_limit", 0), ("max_vector_fetch", 1), ("rrf_k", 0),
                            ("expand_from", 0), ("expand_limit", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidInputError(name, f"must be an integer of at least {least}, got {value!r}")
        if not isinstance(self.half_life, timedelta) or self.half_life < timedelta(0):
            raise InvalidInputError("half_life", f"must be a timedelta of 0 or more, got {self.half_life!r}")
        if not isinstance(self.weights, RecallWeights):
            raise InvalidInputError("weights", f"must be a RecallWeights, got {self.weights!r}")

    weights: RecallWeights = field(default_factory=RecallWeights)
    half_life: timedelta = timedelta(days=30)
    exact_scan_limit: int = 256
    strategy: str = "auto"
    over_fetch: float = 1.5
    max_vector_fetch: int = 10_000
    lexical_open_share: float = 0.8
    rrf_k: int = 60
    expand_from: int = 5
    expand_limit: int = 20
    semantic_share: float = 0.7
    semantic_spread: float = 0.05
    lexical_spread: float = 0.5
    session_penalty: float = 0.05


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def lucene_query(query: str, tenant: str | None, chain: Sequence[str]) -> str | None:
    """A Lucene query for the full-text index: the query's words (lower-cased, so no
    operator survives), restricted to the tenant's visible scopes by their exact
    ``lexKey`` tokens (no restriction when ``tenant`` is None: the caller filters). The
    words of time expressions ("a week ago", "last March") are left out: they name a
    time, not a topic, and "a week ago" would match every text saying "weeks ago"."""
    return _lucene(_lucene_words(query), tenant, chain)


def _lucene_words(query: str) -> str | None:
    for start, end, _ in reversed(_dates.mentions(query, datetime.now(timezone.utc), timezone.utc)):
        query = query[:start] + " " + query[end:]
    words = [w.lower() for w in _WORD.findall(query)][:_LUCENE_WORDS]
    return " ".join(words) or None


def _lucene(words: str | None, tenant: str | None, chain: Sequence[str]) -> str | None:
    if words is None:
        return None
    if tenant is None:
        return f"text:({words})"
    keys = " OR ".join(_scopes.lexical_key(tenant, scope) for scope in chain)
    # zero weight: the scope keys filter, they must not score (a rarer key, a smaller
    # scope, would otherwise lift the same text above its twin in a bigger scope)
    return f"text:({words}) AND (lexKey:({keys}))^0"


def statuses(purpose: str) -> list[str]:
    if purpose not in PURPOSES:
        raise InvalidInputError("purpose", f"{purpose!r} is not one of 'inform', 'act'")
    return [Status.ACTIVE.value] if purpose == "act" else [Status.ACTIVE.value, Status.QUARANTINED.value]


def sensitivities(max_sensitivity: Any) -> list[str]:
    if max_sensitivity is None:
        return [s.value for s in Sensitivity]
    top = check.choice(max_sensitivity, Sensitivity, "max_sensitivity")
    return [s.value for s in Sensitivity if s.level <= top.level]


def kinds(value: Iterable[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Iterable):
        raise InvalidInputError("kinds", "must be a list of kinds")
    out = []
    for kind in value:
        if kind not in KINDS:
            raise InvalidInputError("kinds", f"{kind!r} is not one of {', '.join(KINDS)}")
        out.append(kind)
    return out


# Neo4j caches a plan per parameter types *and sizes*: a string's length and a list's length
# fall in buckets (up to 1, 10, 100, 1,000, 10,000...) and every new combination of buckets
# is planned afresh, about a second for recall's statement. So recall's lists and its
# Lucene query are padded into one bucket each (the padding matches nothing); only the
# tenant id's length (a deployment's ids are usually alike), a missing embedder or a query
# without a word, or a Lucene query past 10,000 characters still make another plan.
_LIST_BUCKET = 2  # lists of 2..10 share a bucket
_CHAIN_BUCKET = 11  # scope chains (up to 32 deep) padded to 11..100
_TEXT_BUCKET = 1001  # Lucene queries padded to 1,001..10,000 characters


def _padded(values: list[str], size: int = _LIST_BUCKET) -> list[str]:
    """``values`` and as many empty strings as make ``size`` (no scope path, kind, status or
    sensitivity is empty, so they match nothing)."""
    return values + [""] * (size - len(values))


def _padded_lucene(text: str | None) -> str | None:
    return None if text is None else text.ljust(_TEXT_BUCKET)


def semantic_fetch(k: int) -> int:
    """How many semantic hits recall keeps (and asks the vector index for, before
    over-fetching): ``k``, at least 10. The lexical side keeps twice as many (``2k``, at
    least 20): a full-text hit costs Neo4j about 40 µs, an index neighbour about 100 µs, and
    a record the vector side left out is still scored with its true cosine when the other
    side or the graph brings it in (re-scoring LongMemEval's recorded candidate lists with 10
    semantic hits instead of 20 changed no question's nDCG@10)."""
    return max(k, 10)


def params(*, tenant: str, query: str, scope: str, k: int, vector: list[float] | None, as_of: datetime,
           valid_at: datetime, kind_list: list[str] | None, purpose: str, max_sensitivity: Any,
           include_invalidated: bool, settings: RecallSettings, strategy: str | None = None,
           scoped_lexical: bool = False, over_fetch_boost: float = 1.0) -> dict[str, Any]:
    """Parameters of the ``recall`` template (for the retries: ``strategy`` forces the
    exact semantic scan, ``over_fetch_boost`` multiplies the vector index's over-fetch, and
    ``scoped_lexical`` forces the scope-narrowed Lucene query)."""
    chain = _scopes.chain(scope)
    fetch = max(2 * k, 20)
    words = _lucene_words(query)
    return {
        "tenant": tenant,
        "chain": _padded(chain, _CHAIN_BUCKET),
        "vector": vector,
        "lucene": _padded_lucene(_lucene(words, tenant, chain)),
        "luceneOpen": _padded_lucene(_lucene(words, None, chain)),
        "openShare": float(settings.lexical_open_share),
        "scopedLexical": bool(scoped_lexical),
        "exactLimit": settings.exact_scan_limit,
        "strategy": strategy or settings.strategy,
        "overFetch": settings.over_fetch * over_fetch_boost,
        "maxVectorFetch": settings.max_vector_fetch,
        "semanticFetch": semantic_fetch(k),
        "neighbourCost": _NEIGHBOUR_COST,
        "fetch": fetch,
        "textFetch": min(fetch * 2, 2000),
        "keep": 2 * k,
        "shortlist": k,
        # always a list (None for all kinds would be another parameter type: another plan)
        "kinds": _padded(list(KINDS) if kind_list is None else kind_list),
        "statuses": _padded(statuses(purpose)),
        "sensitivities": _padded(sensitivities(max_sensitivity)),
        "asOf": as_of,
        "validAt": valid_at,
        "includeInvalidated": bool(include_invalidated),
        "rrfK": settings.rrf_k,
        "expandFrom": settings.expand_from,
        "expandLimit": min(settings.expand_limit, 2 * k),
    }


def check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
        raise InvalidInputError("k", f"must be an integer from 1 to 1000, got {k!r}")
    return k


_MAX_BOOST = 64.0


def underfilled(rows: list[dict[str, Any]], k: int, *, deepened: bool = False) -> dict[str, Any]:
    """What to ask again, if anything (keyword arguments for ``params``). When the vector
    index path kept fewer than ``k`` semantic hits although the scope holds more (filters
    ate the over-fetch: many invalidated or not-yet-valid memories near the query): a deeper
    index search, its over-fetch multiplied by 1.5 x the shortfall, at most 64 times (with
    ``strategy="auto"`` the template scans exactly instead when that is cheaper); after a
    deeper search (``deepened``), the exact scan, whatever ``strategy`` says, so filters
    never lose results. At 100,000 memories an exact scan of a whole tenant took 3.5 s, a
    search of 800 neighbours 0.13 s. When the open full-text query came back full (there
    may be more), dropped another tenant's or scope's documents and kept fewer than ``k``
    hits: the scope-narrowed Lucene query."""
    retry: dict[str, Any] = {}
    if not rows:
        return retry
    first = rows[0]
    if not first["exact"] and first["semanticCount"] < min(k, first["inScope"]):
        if deepened:
            retry["strategy"] = "exact"
        else:
            shortfall = semantic_fetch(k) / max(first["semanticCount"], 1)
            retry["over_fetch_boost"] = min(_MAX_BOOST, 1.5 * shortfall)
    if first["lexicalOpen"] and first["lexicalSaturated"] and first["lexicalForeign"] and first["lexicalCount"] < k:
        retry["scoped_lexical"] = True
    return retry


def _moment(record: Record) -> datetime:
    # the instance's own fields: getattr of a field another kind has goes through
    # pydantic's __getattr__ and an AttributeError
    fields = record.__dict__
    return fields.get("occurred_at") or fields.get("valid_from") or record.created_at


# the lexical floor when BM25 scores are small: this share of the best lexical hit's score
# (not less: hits that all score alike at 1-3 points must stay noise), never 0
_SMALL_SCORES = 0.3
_LEAST_SPREAD = 1e-6
_LOWEST = -2.0  # standard deviations: a candidate missing from a side counts as this far below it
# ... and no side's standout counts for more than this: one rare word shared with the query
# can put a BM25 score six or more deviations out, which no semantic evidence could outweigh
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


def fused_evidence(rows: list[dict[str, Any]], settings: RecallSettings) -> list[float]:
    """Query-adaptive fusion, 0..1 per row (1.0 = best): on each side, how many standard
    deviations a candidate stands above that side's other hits (the deviation floored at
    ``settings.*_spread``, so a side on which every candidate scores alike cannot amplify
    noise), mixed by ``semantic_share``. A side with no hits at all (no embedder, or only
    stop words) leaves the other to decide. BM25 scores grow with the number of documents
    (a word's IDF does), so the lexical floor shrinks to 0.3 of the best hit's score when
    that is below ``lexical_spread / 0.3``: in a young database of nine facts an exact name
    scored 0.5 against 0.01, which a fixed floor of 0.5 took for noise."""
    semantic_hits = [r["semantic"] for r in rows if r["semanticRank"]]
    lexical_hits = [r["lexical"] for r in rows if r["lexicalRank"]]
    semantic = _Side(semantic_hits, settings.semantic_spread) if semantic_hits else None
    lexical = (_Side(lexical_hits, max(_LEAST_SPREAD, min(settings.lexical_spread, _SMALL_SCORES * max(lexical_hits))))
               if lexical_hits else None)
    share = settings.semantic_share if semantic and lexical else (1.0 if semantic else 0.0)
    evidence = [
        (share * semantic.standing(r["semantic"], bool(r["semanticRank"])) if semantic else 0.0)
        + ((1 - share) * lexical.standing(r["lexical"], bool(r["lexicalRank"])) if lexical else 0.0)
        for r in rows
    ]
    low, high = min(evidence, default=0.0), max(evidence, default=0.0)
    return [(e - low) / (high - low) if high > low else 1.0 for e in evidence]


def score(rows: list[dict[str, Any]], *, now: datetime, settings: RecallSettings, k: int) -> list[ScoredMemory]:
    """Turn the template's candidate rows into ranked ``ScoredMemory`` results."""
    rows = [r for r in rows if r.get("node") is not None]
    if not rows:
        return []
    best_lexical = max((r["lexical"] or 0.0) for r in rows) or 1.0
    rrf_top = 2.0 / (settings.rrf_k + 1)
    w = settings.weights
    half_life = settings.half_life.total_seconds()
    results = []
    for row, fused in zip(rows, fused_evidence(rows, settings)):
        record = to_record(row["node"])
        semantic = float(row["semantic"] or 0.0)
        lexical = float(row["lexical"] or 0.0) / best_lexical
        graph = min(1.0, float(row["graph"] or 0.0) / rrf_top)
        age = max(0.0, (now - _moment(record)).total_seconds())
        recency = math.pow(0.5, age / half_life) if half_life > 0 else 0.0
        trust = record.provenance.trust / Provenance.HUMAN_CORRECTION.trust
        # model_construct: every value is a float computed here, nothing to validate
        parts = ScoreParts.model_construct(semantic=semantic, lexical=lexical, fused=fused, graph=graph, recency=recency,
                           importance=record.importance, trust=trust)
        total = (w.fused * fused + w.semantic * semantic + w.lexical * lexical + w.graph * graph
                 + w.recency * recency + w.importance * record.importance + w.trust * trust)
        citations = tuple(to_record(c) for c in row.get("cites") or ())
        results.append(ScoredMemory.model_construct(
            record=record, score=total, parts=parts, citations=citations,
            quarantined=record.status == Status.QUARANTINED,
            via_graph=row["semanticRank"] is None and row["lexicalRank"] is None,
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
        cited = [by_id[c.id].score for c in r.citations if c.id in by_id]
        if cited and r.score >= min(cited):
            r = r.model_copy(update={"score": min(cited) - _INSIGHT_GAP})
        adjusted.append(r)
    return sorted(adjusted, key=lambda r: (-r.score, r.record.id))


# -- context -------------------------------------------------------------------------
SECTIONS = {"facts": "Facts", "insights": "Insights", "procedures": "Procedures", "episodes": "Recent episodes",
            "entities": "Entities"}
DEFAULT_SECTIONS = ("facts", "insights", "procedures", "episodes")
_SECTION_OF = {"fact": "facts", "insight": "insights", "procedure": "procedures", "episode": "episodes",
               "entity": "entities"}


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: one token per four characters, rounded up."""
    return max(1, math.ceil(len(text) / 4))


def _validity(record: Record) -> str:
    if isinstance(record, Fact):
        start = record.valid_from.date().isoformat() if record.valid_from else "?"
        end = record.valid_to.date().isoformat() if record.valid_to else "now"
        return f" (valid {start}..{end})"
    occurred = getattr(record, "occurred_at", None)
    return f" ({occurred.date().isoformat()})" if occurred else ""


def line(result: ScoredMemory) -> str:
    record = result.record
    marker = record.provenance.value + (", unvalidated" if result.quarantined else "")
    text = " ".join(record.text.split())
    out = f"- [{marker}] {text}{_validity(record)}"
    if result.citations:
        out += " [cites: " + "; ".join(" ".join(c.text.split())[:80] for c in result.citations) + "]"
    return out


def sections(value: Iterable[str] | None) -> list[str]:
    if isinstance(value, str):
        raise InvalidInputError("sections", "must be a list of section names")
    chosen = list(DEFAULT_SECTIONS) if value is None else list(value)
    for name in chosen:
        if name not in SECTIONS:
            raise InvalidInputError("sections", f"{name!r} is not one of {', '.join(SECTIONS)}")
    return chosen


def render(results: list[ScoredMemory], *, max_tokens: int, order: list[str]) -> str:
    """Group results by kind into sections (in ``order``) and keep the best-scored lines
    that fit ``max_tokens``; the same results always render the same text."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError("max_tokens", "must be a positive integer")
    chosen: dict[str, list[str]] = {name: [] for name in order}
    used = 0
    for result in results:  # best first: what does not fit is the least relevant
        section = _SECTION_OF[result.record.kind]
        if section not in chosen:
            continue
        text = line(result)
        # each piece is costed with its separator, so the sum bounds the whole block
        cost = estimate_tokens(text + "\n")
        if not chosen[section]:
            cost += estimate_tokens(f"## {SECTIONS[section]}\n\n\n")
        if used + cost > max_tokens:
            continue
        chosen[section].append(text)
        used += cost
    blocks = [f"## {SECTIONS[name]}\n" + "\n".join(lines) for name, lines in chosen.items() if lines]
    return "\n\n".join(blocks)
