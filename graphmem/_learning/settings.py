"""Tuning knobs for what an agent learns: extraction (``ingest``), insights (reflection)
and procedures (induction), and for the chat-model calls behind them."""

from __future__ import annotations

from dataclasses import dataclass

from .._base.errors import InvalidInputError


@dataclass(frozen=True)
class LearningSettings:
    """``corroboration_threshold``: cosine similarity at or above which a new insight (or,
    in ``maintain``, a new fact sharing evidence) agrees with an existing insight and raises
    its salience. ``procedure_merge_threshold``: cosine at or above which an induced
    procedure with the same number of steps is the same workflow learned again.
    ``max_failure_rate`` / ``min_outcomes``: a procedure whose failure rate exceeds the
    bound after at least ``min_outcomes`` recorded outcomes is demoted to quarantined.
    ``reflect_evidence``: how many recent memories ``reflect`` shows the model.
    ``model_retries``: extra attempts after a failed model call;
    ``max_concurrent_model_calls``: model calls in flight at once across one memory object
    (concurrent ``ingest`` calls and ``after_turn``'s background work share them);
    ``rate_limit_retries``: how often a request the provider refuses for its rate limit
    (HTTP 429) is asked again, after ``rate_limit_backoff`` seconds doubled per refusal (or
    the provider's ``Retry-After``), not counted against ``model_retries``;
    ``extraction_batch_tokens``: the most message text (in tokens, 4 characters each) one
    extraction request carries: a longer batch of messages goes in several requests, and a
    longer message in pieces.
    Extraction: an extracted entity whose name embedding has cosine >=
    ``entity_merge_threshold`` to a visible entity of the same type is that entity (its name
    is recorded as an alias); between ``entity_candidate_threshold`` and that, a new entity
    is written with a ``SAME_AS`` candidate edge for review. A new fact with cosine >=
    ``duplicate_threshold`` to a believed fact about the same subject restates it and is
    skipped; between ``judge_threshold`` and that, the model is asked whether the two
    contradict."""

    corroboration_threshold: float = 0.8
    procedure_merge_threshold: float = 0.95
    max_failure_rate: float = 0.5
    min_outcomes: int = 3
    reflect_evidence: int = 60
    model_retries: int = 2
    max_concurrent_model_calls: int = 8
    rate_limit_retries: int = 8
    rate_limit_backoff: float = 1.0
    extraction_batch_tokens: int = 8_000
    entity_merge_threshold: float = 0.92
    entity_candidate_threshold: float = 0.75
    duplicate_threshold: float = 0.97
    judge_threshold: float = 0.6

    def __post_init__(self) -> None:
        for name in ("corroboration_threshold", "procedure_merge_threshold", "entity_merge_threshold",
                     "entity_candidate_threshold", "duplicate_threshold", "judge_threshold"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not -1.0 <= value <= 1.0:
                raise InvalidInputError(name, "must be a cosine similarity in [-1, 1]")
        if not isinstance(self.max_failure_rate, (int, float)) or not 0.0 <= self.max_failure_rate < 1.0:
            raise InvalidInputError("max_failure_rate", "must be in [0, 1)")
        if self.entity_candidate_threshold > self.entity_merge_threshold:
            raise InvalidInputError("entity_candidate_threshold", "must not exceed entity_merge_threshold")
        if self.judge_threshold > self.duplicate_threshold:
            raise InvalidInputError("judge_threshold", "must not exceed duplicate_threshold")
        if isinstance(self.rate_limit_backoff, bool) or not isinstance(self.rate_limit_backoff, (int, float)) \
                or not 0.0 <= self.rate_limit_backoff <= 60.0:
            raise InvalidInputError("rate_limit_backoff", "must be a number of seconds from 0 to 60")
        for name in ("min_outcomes", "reflect_evidence", "model_retries", "max_concurrent_model_calls",
                     "rate_limit_retries", "extraction_batch_tokens"):
            value = getattr(self, name)
            low = {"model_retries": 0, "rate_limit_retries": 0, "extraction_batch_tokens": 500}.get(name, 1)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InvalidInputError(name, f"must be an integer >= {low}")
