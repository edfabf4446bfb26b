"""The parameters of recall's one Cypher statement (cypher/recall.cypher) and of the
exchange around its turns, with the retries when filters ate the candidates. Settings are in
``_recall/settings.py``, scoring in ``_recall/fusion.py``, the prompt block in
``_recall/context.py``, the I/O in ``_async/recall.py``."""

import math
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.errors import InvalidInputError
from .._base.kinds import KINDS
from .._base.models import AUTOMATIC, Sensitivity, Status
from . import fulltext, seeds
from .candidates import Candidate
from .settings import NEIGHBOUR_COST, RecallSettings, is_number

PURPOSES = ("inform", "act")
RECALLED = tuple(kind for kind in KINDS if kind != "entity")
"""What recall returns unless ``kinds`` says otherwise: every kind but entities. An entity
is a name (its text is the name); a question that names it is about what was said of it,
which the graph side finds from it (``kinds=["entity"]`` recalls entities themselves)."""


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
        "neighbourCost": NEIGHBOUR_COST,
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
        # machine-made provenances: such a fact never outranks a person's in the view (fragment fact_current)
        "automatic": AUTOMATIC,
        **_whose(user_id, agent_id, session_id),
        # always text (None would be another parameter type: another plan); blank asks nothing
        "entityQuery": (seeds.query(query, tenant, chain) or "").ljust(_TEXT_BUCKET),
        "seedLimit": SEED_LIMIT,
        "walkLimit": settings.walk_limit,
        "poolLimit": max(SEARCH_LEAST, semantic_fetch(k)),  # all the vector search returns within the tenant
        # as many as the lexical side keeps (docs/design-notes.md#recall-entity-side)
        "graphFetch": fetch,
        "rrfK": settings.rrf_k,
        "expandFrom": settings.expand_from,
        "expandLimit": min(settings.expand_limit, 2 * k),
        "mentionLimit": settings.expand_mentions,
    }


def _whose(user_id: str | None, agent_id: str | None, session_id: str | None) -> dict[str, Any]:
    """The user, agent and session filters, checked: always a list of three strings, blank for
    none (no id is blank), so that every filter keeps the plan of an unfiltered recall (a null,
    or an id of another length bucket, would be planned apart: seconds on a recall's first
    call with a user id; docs/design-notes.md#recall-parameter-buckets)."""
    return {"whose": [check.identifier(user_id, "user_id", allow_none=True) or "",
                      check.identifier(agent_id, "agent_id", allow_none=True) or "",
                      check.identifier(session_id, "session_id", allow_none=True) or ""]}


def exchange_params(ids: list[str], *, tenant: str, scope: str, as_of: datetime, valid_at: datetime, purpose: str,
                    max_sensitivity: Any, user_id: str | None, agent_id: str | None,
                    session_id: str | None) -> dict[str, Any]:
    """Parameters of ``context_exchange``: the turns around ``ids`` under recall's filters
    (the same visible scopes, statuses, sensitivities, times, user, agent and session)."""
    return {
        "ids": ids, "tenant": tenant, "chain": scopes.chain(scope), "kinds": ["episode"],
        "statuses": statuses(purpose), "sensitivities": sensitivities(max_sensitivity), "asOf": as_of,
        "validAt": valid_at, "includeInvalidated": False, "automatic": AUTOMATIC,
        **_whose(user_id, agent_id, session_id),
    }


SEED_LIMIT = 50
"""The most entities a question's names look up (its names' entities in the visible scopes)."""

LEXICAL_GATE = 0.5
"""The lexical gate, whatever the embedder: measured to help WordLlama and MiniLM on
LongMemEval and to cost neither on LoCoMo, whose questions name people (the gate is off for
a question naming someone: docs/design-notes.md#recall-lexical-gate)."""


def decided_gate(settings: RecallSettings, semantic: bool, *, named: bool = False) -> RecallSettings:
    """``settings`` with what was left to recall decided (``lexical_gate=None``): the gate
    when there is a semantic side to decide instead (``semantic``: an embedder), unless the
    question names someone or something (``named``: "Where does Person007 live?", "the
    Lisbon hotel"). A bag-of-words embedder is given the question without the names common
    in the memory, so the full-text side is the only one that sees who the question is
    about, and a rare name's match is what the question is about however common its other
    words (docs/design-notes.md#recall-lexical-gate)."""
    if settings.lexical_gate is not None:
        return settings
    return replace(settings, lexical_gate=LEXICAL_GATE if semantic and not named else 0.0)


def check_min_relevance(value: Any) -> float | None:
    if value is None:
        return None
    if not (is_number(value) and -1.0 <= value <= 1.0):
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


def spread_of(rows: list[Candidate]) -> float | None:
    """The index's pool (the tenant's memories on Neo4j 2026) per visible memory, from a
    recall's rows: how much a search within the tenant must over-fetch for these scopes."""
    if not rows or not rows[0].in_scope:
        return None
    return max(1.0, float(rows[0].pool or 0) / float(rows[0].in_scope))


def underfilled(rows: list[Candidate], k: int, *, deepened: bool = False) -> dict[str, Any]:
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
    if not first.exact and first.semantic_count < min(k, first.in_scope):
        if deepened:
            retry["strategy"] = "exact"
        else:
            shortfall = semantic_fetch(k) / max(first.semantic_count, 1)
            retry["over_fetch_boost"] = min(_MAX_BOOST, 1.5 * shortfall)
    if first.lexical_open and first.lexical_saturated and first.lexical_foreign and first.lexical_count < k:
        retry["scoped_lexical"] = True
    return retry

