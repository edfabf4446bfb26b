"""Recall's settings and the parameters of its one Cypher statement (cypher/recall.cypher),
with the retries when filters ate the candidates. Scoring is in ``_recall/fusion.py``, the
prompt block in ``_recall/context.py``, the I/O in ``_async/recall.py``."""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.models import KINDS, Sensitivity, Status
from . import fulltext, seeds

PURPOSES = ("inform", "act")
RECALLED = tuple(kind for kind in KINDS if kind != "entity")
"""What recall returns unless ``kinds`` says otherwise: every kind but entities. An entity
is a name (its text is the name); a question that names it is about what was said of it,
which the graph side finds from it (``kinds=["entity"]`` recalls entities themselves)."""
# an index neighbour costs Neo4j about twice a row of the exact in-scope scan
# (docs/design-notes.md#recall-exact-or-index)
_NEIGHBOUR_COST = 2.0


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
        if self.min_relevance is not None and not (_is_number(self.min_relevance) and -1.0 <= self.min_relevance <= 1.0):
            raise InvalidInputError("min_relevance", f"must be None or a number from -1 to 1, got {self.min_relevance!r}")
        if self.lexical_gate is not None and not (
                _is_number(self.lexical_gate) and self.lexical_gate >= 0 and math.isfinite(self.lexical_gate)):
            raise InvalidInputError("lexical_gate", f"must be None or a number of 0 or more, got {self.lexical_gate!r}")
        if not (_is_number(self.min_standout) and math.isfinite(self.min_standout)):
            raise InvalidInputError("min_standout", f"must be a finite number, got {self.min_standout!r}")
        if not (_is_number(self.exchange_share) and 0.0 <= self.exchange_share <= 1.0):
            raise InvalidInputError("exchange_share", f"must be between 0 and 1, got {self.exchange_share!r}")
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
    memories holds (see above; 0 always lets it count). None: ``BAG_OF_WORDS_GATE`` for a
    bag-of-words embedder (WordLlama), 0 for a contextual one (``for_embedder``)."""
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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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


# Neo4j plans a statement once per combination of its parameters' size buckets (up to 1, 10,
# 100, ... elements or characters), so recall pads its lists and Lucene query into one bucket
# each; the padding matches nothing (docs/design-notes.md#recall-parameter-buckets).
_LIST_BUCKET = 2  # lists of 2..10 share a bucket
_CHAIN_BUCKET = 11  # scope chains (up to 32 deep) padded to 11..100
_TEXT_BUCKET = 1001  # Lucene queries padded to 1,001..10,000 characters
_WORDS_BUCKET = 11  # a question's words (at most 64) padded to 11..100


def _padded(values: list[str], size: int = _LIST_BUCKET) -> list[str]:
    """``values`` and as many empty strings as make ``size`` (no scope path, kind, status or
    sensitivity is empty, so they match nothing)."""
    return values + [""] * (size - len(values))


def _padded_lucene(text: str | None) -> str | None:
    return None if text is None else text.ljust(_TEXT_BUCKET)


def semantic_fetch(k: int) -> int:
    """How many semantic hits recall keeps (and asks the vector index for, before
    over-fetching): ``k``, at least 10. The lexical side keeps twice as many, which are
    cheaper (docs/design-notes.md#recall-semantic-candidates)."""
    return max(k, 10)


def params(*, tenant: str, query: str, scope: str, k: int, vector: list[float] | None, as_of: datetime,
           valid_at: datetime, kind_list: list[str] | None, purpose: str, max_sensitivity: Any,
           include_invalidated: bool, settings: RecallSettings, user_id: str | None = None,
           agent_id: str | None = None, session_id: str | None = None, strategy: str | None = None,
           scoped_lexical: bool = False, over_fetch_boost: float = 1.0, cypher25: bool = False,
           spread: float = 1.0) -> dict[str, Any]:
    """Parameters of the ``recall`` template, or with ``cypher25`` of its Cypher 25 version
    (for the retries: ``strategy`` forces the exact semantic scan, ``over_fetch_boost``
    multiplies the vector index's over-fetch, and ``scoped_lexical`` forces the
    scope-narrowed Lucene query). The Cypher 25 version searches the index within the
    tenant, and ``SEARCH`` needs its limit before the query runs: ``vectorLimit``, the
    semantic fetch times the over-fetch times ``spread``, the tenant's memories per visible
    one as the last recall of these scopes found them (``spread_of``; 1 before any), at
    least ``SEARCH_LEAST`` and at most ``max_vector_fetch``; the first retry deepens it when
    filters ate it."""
    chain = scopes.chain(scope)
    fetch = max(2 * k, 20)
    words = fulltext.words(query)
    over_fetch = settings.over_fetch * over_fetch_boost
    wanted = max(SEARCH_LEAST, math.ceil(semantic_fetch(k) * over_fetch * spread))
    index_size = ({"vectorLimit": min(settings.max_vector_fetch, wanted)}
                  if cypher25 else {"maxVectorFetch": settings.max_vector_fetch})
    return {
        **index_size,
        "tenant": tenant,
        "chain": _padded(chain, _CHAIN_BUCKET),
        "vector": vector,
        "lexicalWords": _padded((words or "").split(), _WORDS_BUCKET),
        "lexKeys": fulltext.scope_keys(tenant, chain).ljust(_TEXT_BUCKET),
        "openShare": float(settings.lexical_open_share),
        "scopedLexical": bool(scoped_lexical),
        "exactLimit": settings.exact_scan_limit,
        "strategy": strategy or settings.strategy,
        "overFetch": over_fetch,
        "semanticFetch": semantic_fetch(k),
        "neighbourCost": _NEIGHBOUR_COST,
        "fetch": fetch,
        "textFetch": min(fetch * 2, 2000),
        "keep": 2 * k,
        "shortlist": k,
        # always a list (None for all kinds would be another parameter type: another plan)
        "kinds": _padded(list(RECALLED) if kind_list is None else kind_list),
        "statuses": _padded(statuses(purpose)),
        "sensitivities": _padded(sensitivities(max_sensitivity)),
        "asOf": as_of,
        "validAt": valid_at,
        "includeInvalidated": bool(include_invalidated),
        "userId": check.identifier(user_id, "user_id", allow_none=True),
        "agentId": check.identifier(agent_id, "agent_id", allow_none=True),
        "sessionId": check.identifier(session_id, "session_id", allow_none=True),
        # always text (None would be another parameter type: another plan); blank asks nothing
        "entityQuery": (seeds.query(query, tenant, chain) or "").ljust(_TEXT_BUCKET),
        "seedLimit": SEED_LIMIT,
        "walkLimit": settings.walk_limit,
        "poolLimit": max(SEARCH_LEAST, semantic_fetch(k)),  # all the vector search returns within the tenant
        "graphFetch": semantic_fetch(k),
        "rrfK": settings.rrf_k,
        "expandFrom": settings.expand_from,
        "expandLimit": min(settings.expand_limit, 2 * k),
        "mentionLimit": settings.expand_mentions,
    }



def exchange_params(ids: list[str], *, tenant: str, scope: str, as_of: datetime, valid_at: datetime, purpose: str,
                    max_sensitivity: Any, user_id: str | None, agent_id: str | None,
                    session_id: str | None) -> dict[str, Any]:
    """Parameters of ``context_exchange``: the turns around ``ids`` under recall's filters
    (the same visible scopes, statuses, sensitivities, times, user, agent and session)."""
    return {
        "ids": ids, "tenant": tenant, "chain": scopes.chain(scope), "kinds": ["episode"],
        "statuses": statuses(purpose), "sensitivities": sensitivities(max_sensitivity), "asOf": as_of,
        "validAt": valid_at, "includeInvalidated": False,
        "userId": check.identifier(user_id, "user_id", allow_none=True),
        "agentId": check.identifier(agent_id, "agent_id", allow_none=True),
        "sessionId": check.identifier(session_id, "session_id", allow_none=True),
    }

SEED_LIMIT = 50
"""The most entities a question's names look up (its names' entities in the visible scopes)."""

BAG_OF_WORDS_GATE = 0.5
"""The lexical gate with a bag-of-words embedder: measured to help WordLlama on LongMemEval
and to cost MiniLM on LoCoMo (docs/design-notes.md#recall-lexical-gate)."""


def for_embedder(settings: RecallSettings, bag_of_words: bool, *, named: bool = False) -> RecallSettings:
    """``settings`` with what was left to the embedder decided (``lexical_gate=None``): the
    gate for a bag-of-words embedder, unless the question names someone or something
    (``named``: "Where does Person007 live?", "the Lisbon hotel"). A bag-of-words embedder
    is given the question without the names common in the memory, so the full-text side is
    the only one that sees who the question is about, and a rare name's match is what the
    question is about however common its other words (docs/design-notes.md#recall-lexical-gate)."""
    if settings.lexical_gate is not None:
        return settings
    return replace(settings, lexical_gate=BAG_OF_WORDS_GATE if bag_of_words and not named else 0.0)


def check_min_relevance(value: Any) -> float | None:
    if value is None:
        return None
    if not (_is_number(value) and -1.0 <= value <= 1.0):
        raise InvalidInputError("min_relevance", f"must be a number from -1 to 1, got {value!r}")
    return float(value)


def check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
        raise InvalidInputError("k", f"must be an integer from 1 to 1000, got {k!r}")
    return k


_MAX_BOOST = 64.0


SEARCH_LEAST = 50
"""The fewest neighbours recall's search within the tenant asks of the vector index (Neo4j
2026). The index is quantized (binary, in 2026's default provider) and its neighbours are
re-scored exactly: on LongMemEval turns in 500-memory tenants, asking 15 (the semantic fetch
times the over-fetch) returned 98.3% of the exact top 10, 50 returned 99.9%, 100 all of it;
each neighbour re-scored costs a property read (bench/recall.py at 100k: 22 ms p50 with 100,
against 17.5 on 5.26 with 15), so 50 (bench/index_agreement.py;
docs/design-notes.md#vector-search-filtered)."""
SPREADS_KEPT = 4096  # scope chains whose spread a memory object remembers


def spread_of(rows: list[dict[str, Any]]) -> float | None:
    """The index's pool (the tenant's memories on Neo4j 2026) per visible memory, from a
    recall's rows: how much a search within the tenant must over-fetch for these scopes."""
    if not rows or not rows[0].get("inScope"):
        return None
    return max(1.0, float(rows[0].get("pool") or 0) / float(rows[0]["inScope"]))


def underfilled(rows: list[dict[str, Any]], k: int, *, deepened: bool = False) -> dict[str, Any]:
    """What to ask again, if anything (keyword arguments for ``params``). When the vector
    index path kept fewer than ``k`` semantic hits although the scope holds more (filters
    ate the over-fetch: many invalidated or not-yet-valid memories near the query): a deeper
    index search, its over-fetch multiplied by 1.5 x the shortfall, at most 64 times (with
    ``strategy="auto"`` the template scans exactly instead when that is cheaper); after a
    deeper search (``deepened``), the exact scan, whatever ``strategy`` says, so filters
    never lose results (docs/design-notes.md#recall-semantic-candidates). When the open
    full-text query came back full (there
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

