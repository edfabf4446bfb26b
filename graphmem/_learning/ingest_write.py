"""The extraction's one write, planned before it opens and without I/O: the batch it lands,
and per planned fact the decision whether to skip it (it restates a stored fact) or to write
it and retire the stored facts it corrects, contradicts or replaces (contract §7). The
reads, the model's judgement of the doubtful pairs and the write are in ``_async/landing.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .._base import validate as check
from .._base.records import Row
from .._memory.facts import AUTOMATIC
from .ingest import PendingEntity, Skipped, resolved
from .prompts import EntityDraft, FactDraft
from .settings import LearningSettings
from .usage import Tally

RetireReason = Literal["corrected", "contradicted", "changed"]
"""Why a stored fact is retired; the value is the ``reason`` the write records."""


@dataclass(frozen=True, slots=True)
class CandidateRow(Row):
    """A stored fact a new one (``i``, its index among the planned facts) may restate or
    retire, with its Neo4j cosine similarity to it ((1 + cosine) / 2)."""

    TEMPLATES = ("fact_candidates",)
    i: int
    id: str
    predicate: str | None
    object: str | None
    single_valued: bool | None
    provenance: str
    text_key: str
    text: str
    scope: str
    similarity: float


@dataclass(frozen=True, slots=True)
class SimilarEntityRow(Row):
    """The stored entity most similar to an extracted one, with its Neo4j cosine similarity."""

    TEMPLATES = ("entity_similar",)
    node: dict[str, Any]
    similarity: float


@dataclass(frozen=True)
class Skip:
    """The new fact restates a stored one: it is not written."""

    reason: str


@dataclass(frozen=True)
class Retirement:
    """A stored fact the new one retires: 'corrected' or 'contradicted' invalidate it (it was
    wrong), 'changed' ends its valid time (it was true until the new value)."""

    old_id: str
    reason: RetireReason


@dataclass(frozen=True)
class Retire:
    """The new fact is written, then retires these stored facts (in this order)."""

    retirements: tuple[Retirement, ...]


Verdict = Skip | Retire
"""What the write does with one planned fact; a fact without a decision is simply written."""


@dataclass(frozen=True)
class Doubt:
    """A stored fact that the new fact (``fact``: its index among the planned facts) may
    retire: only the model can tell, so the pair is put to it."""

    fact: int
    retirement: Retirement
    old_text: str
    new_text: str


@dataclass(frozen=True)
class Batch:
    """What the write lands, all settled before it opens: the executor may run the write
    more than once, and every attempt starts from this."""

    entities: list[EntityDraft]
    entity_rows: list[dict[str, Any]]
    """The entities' ``entity_create`` rows, one per entity."""
    plans: list[tuple[FactDraft, dict[str, Any]]]
    """The facts to write, each as its draft and ``remember`` arguments (see ``fact_plan``)."""
    decisions: dict[int, Verdict]
    """By index in ``plans``."""
    msgs: list[dict[str, Any]]
    episode_ids: list[str]
    scope: str
    chain: list[str]
    now: datetime
    who: dict[str, Any]
    """``user_id``, ``agent_id`` and ``session_id`` of every fact written."""
    skipped: list[Skipped]
    """What planning left out, and why."""
    notes: list[str]
    tally: Tally
    """The model requests made (one entry each) and the tokens they cost."""


def retiring(decision: Verdict | None, retirement: Retirement) -> Verdict:
    """``decision`` with one more stored fact to retire. A skipped fact stays skipped: it is
    not written, so it retires nothing."""
    if isinstance(decision, Skip):
        return decision
    return Retire((*(decision.retirements if decision else ()), retirement))


DOUBTS_PER_FACT = 3
"""The model judges a new fact against at most this many stored ones, the most similar (the
candidates come most similar first): a contradiction is with what a statement is about,
and every extra pair is prompt tokens."""


def decide(candidates: Iterable[CandidateRow], plans: Sequence[tuple[FactDraft, Mapping[str, Any]]],
           learning: LearningSettings, *, scope: str) -> tuple[dict[int, Verdict], list[Doubt]]:
    """The decisions the rules settle alone, per planned fact, and the doubts to put to the
    model. ``candidates`` are ``fact_candidates`` rows (stored facts about the same subject
    that are current in the view of ``scope``, the scope the facts are written to; ``i``
    naming the planned fact, most similar first); once a fact is found to restate one, its
    other candidates no longer matter. A stored fact of another scope of the chain can be
    restated (the view already says it) but is never retired: a write changes nothing
    outside its own scope (docs/design-notes.md#scope-chain-facts)."""
    decisions: dict[int, Verdict] = {}
    doubts: list[Doubt] = []
    asked: Counter[int] = Counter()  # doubts per planned fact
    for old in candidates:
        i = old.i
        if isinstance(decisions.get(i), Skip):
            continue
        draft, plan = plans[i]
        outcome = _weigh(old, draft, plan, learning)
        if outcome is not None and not isinstance(outcome, Skip) and old.scope != scope:
            continue  # another scope's fact: the view ranks it (fragment fact_current), nothing retires it
        if isinstance(outcome, Skip):
            decisions[i] = outcome
        elif isinstance(outcome, Retirement):
            decisions[i] = retiring(decisions.get(i), outcome)
        elif outcome is not None and asked[i] < DOUBTS_PER_FACT:
            doubts.append(outcome)
            asked[i] += 1
    return decisions, doubts


def _weigh(old: CandidateRow, draft: FactDraft, plan: Mapping[str, Any],
           learning: LearningSettings) -> Skip | Retirement | Doubt | None:
    """One stored fact against one new fact about the same subject: a restatement (skip the
    new one), a correction the rules settle (retire the old one), a pair the model must
    judge, or nothing to do."""
    cosine = 2.0 * old.similarity - 1.0
    same_predicate = old.predicate == plan["predicate"]
    new_object = plan["object"]
    # an entity the write has yet to create is the object of no stored fact
    same_value = same_predicate and not isinstance(new_object, PendingEntity) \
        and (old.object or "").casefold() == (new_object or "").casefold()
    automatic = old.provenance in AUTOMATIC
    if old.text_key == check.text_key(plan["text"]) or (same_value and old.object is not None) \
            or cosine >= learning.duplicate_threshold:
        return Skip(restates(old.id))
    if draft.corrects and same_predicate and automatic and plan["single_valued"] and old.single_valued:
        return Retirement(old.id, "corrected")
    if same_predicate and plan["single_valued"] and old.single_valued:
        return None  # a change of value: supersession (contract §7.1) handles it
    if draft.replaces and same_predicate and automatic and not old.single_valued:
        return _doubt(old, plan, "changed")  # "switched to": the model says which value it replaced
    if automatic and (cosine >= learning.judge_threshold or (draft.corrects and same_predicate)):
        # for a multi-valued correction, the model says which value was wrong
        return _doubt(old, plan, "contradicted")
    return None


def _doubt(old: CandidateRow, plan: Mapping[str, Any], reason: RetireReason) -> Doubt:
    return Doubt(fact=old.i, retirement=Retirement(old.id, reason), old_text=old.text, new_text=plan["text"])


def question(doubts: Sequence[Doubt]) -> str:
    """The pairs put to the model, numbered from 1 (its verdicts name them by number)."""
    return "\n".join(f"{n}. existing: {d.old_text}\n   new: {d.new_text}" for n, d in enumerate(doubts, 1))


def judged(decisions: Mapping[int, Verdict], doubts: Sequence[Doubt],
           contradicted: Container[int]) -> dict[int, Verdict]:
    """``decisions`` with the retirements of the doubts the model confirmed (``contradicted``
    holds their numbers in ``question``)."""
    out = dict(decisions)
    for n, doubt in enumerate(doubts, 1):
        if n in contradicted:
            out[doubt.fact] = retiring(out.get(doubt.fact), doubt.retirement)
    return out


def kept_facts(batch: Batch, entity_ids: Sequence[str | None]) -> tuple[list[tuple[int, dict[str, Any]]], list[Skipped]]:
    """The planned facts to write, as (index in ``batch.plans``, ``remember`` item with the
    ids its entities landed as: ``entity_ids``, None for one the user forgot), and the
    others as skipped, with why."""
    kept, skipped = [], []
    for i, (_, plan) in enumerate(batch.plans):
        decision = batch.decisions.get(i)
        if isinstance(decision, Skip):
            skipped.append(Skipped(kind="fact", text=plan["text"], reason=decision.reason))
            continue
        item = resolved(plan, entity_ids)
        if item is None:
            skipped.append(Skipped(kind="fact", text=plan["text"], reason="its entity was forgotten by the user"))
            continue
        kept.append((i, {**item, "scope": batch.scope, **batch.who}))
    return kept, skipped


def restates(fact_id: str) -> str:
    """The reason a fact is skipped for restating the stored (or just written) ``fact_id``."""
    return f"restates {fact_id}"


def landed_rows(rows: Sequence[Mapping[str, Any]], nodes: Sequence[dict[str, Any] | None],
                ) -> tuple[list[dict[str, Any]], list[Skipped]]:
    """What the write made of each fact row (``rows``: their properties; ``nodes``: what each
    landed as, in the same order): the facts written as themselves, once each, and the
    others as skipped: one that landed as another record restates it (a stored statement, or
    the same statement said twice in one conversation), and one that landed as nothing was
    the restatement of a fact the user forgot."""
    landed: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    for row, node in zip(rows, nodes):
        if node is None:
            skipped.append(Skipped(kind="fact", text=row["text"], reason="forgotten by the user"))
        elif node["id"] != row["id"]:
            skipped.append(Skipped(kind="fact", text=row["text"], reason=restates(node["id"])))
        else:
            landed.append(node)
    return landed, skipped


def retirements(decision: Verdict | None) -> tuple[Retirement, ...]:
    """The stored facts a planned fact retires once written (none if skipped or undecided)."""
    return decision.retirements if isinstance(decision, Retire) else ()

