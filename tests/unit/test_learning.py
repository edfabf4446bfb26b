"""Insight and procedure logic without a database: citation filtering, the deterministic
inducer, abstraction checks, binding, suggestion ranking, settings and model calls."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import InvalidInputError, LearningSettings, ModelError, Procedure, ScoredMemory, ScoreParts, ToolCall
from graphmem._async.llm import AsyncLlmCaller
from graphmem._learning.insights import cite_ids, usable_drafts
from graphmem._learning.procedures import bind, check_draft, induce, rank_suggestions
from graphmem._learning.prompts import InsightDraft, ProcedureDraft, Reflection
from graphmem._sync.llm import LlmCaller
from tests.fakes import JsonChatModel, scripted, tool_answer

NOW = "2026-01-01T00:00:00+00:00"


def proc(**kw) -> Procedure:
    base = {"id": "p", "tenant": "t", "scope": "s", "text": "x", "created_at": NOW}
    return Procedure.model_validate({**base, **kw})


def test_drafts_lose_invented_citations_and_drafts_without_support():
    drafts = [
        InsightDraft(text="  A  and B ", cites=["a", "zz", "a"]),
        InsightDraft(text="only invented", cites=["zz"]),
        InsightDraft(text="a and b", cites=["b"]),
        InsightDraft(text="c", cites=["c"]),
        InsightDraft(text="d", cites=["a"]),
    ]
    kept, dropped = usable_drafts(drafts, {"a", "b", "c"}, max_insights=2)
    assert [(d.text, cites) for d, cites in kept] == [("A and B", ["a"]), ("c", ["c"])]
    assert [(d.reason, d.invented) for d in dropped] == [
        ("no citation from the evidence shown", ("zz",)), ("repeats another draft", ()), ("over max_insights=2", ()),
    ]


@pytest.mark.parametrize("cites, field", [("abc", "cites"), ([], "cites"), (["a", ""], "cites[1]"), ([3], "cites[0]")])
def test_citations_must_be_ids(cites, field):
    with pytest.raises(InvalidInputError) as info:
        cite_ids(cites)
    assert info.value.field == field


def test_the_deterministic_inducer_shares_one_variable_per_recurring_value():
    calls = [
        ToolCall(tool="lookup", args={"email": "a@b.c"}, result={"user": "u1"}),
        ToolCall(tool="reset", args={"user": "u1", "notify": True, "via": ["sms"]}),
        ToolCall(tool="notify", args={"to": "a@b.c", "user_id": "u1"}, result={"sent": "a@b.c"}),
    ]
    draft = induce(calls)
    assert draft.steps == [
        "lookup(email={email})", "reset(user={user}, notify=true, via={via})", "notify(to={email}, user_id={user})",
    ]
    assert draft.variables == ["email", "user", "via"]
    assert draft.success_criteria == 'notify completes and returns {"sent": "{email}"}'


def test_same_argument_names_with_different_values_get_distinct_variables():
    draft = induce([ToolCall(tool="move", args={"path": "/a"}), ToolCall(tool="move", args={"path": "/b"})])
    assert draft.steps == ["move(path={path})", "move(path={path_2})"] and draft.variables == ["path", "path_2"]


@pytest.mark.parametrize("steps, variables, problem", [
    (["search for running shoes"], [], "concrete values"),
    (["search for {product}"], [], "undeclared"),
    (["search for {product}"], ["product", "size"], "not used"),
    (["search for {product}"], ["product"], "success_criteria uses undeclared"),
    ([], [], "no steps"),
])
def test_model_drafts_must_be_value_abstracted(steps, variables, problem):
    calls = [ToolCall(tool="search", args={"query": "running shoes", "n": 3})]
    criteria = "found {results}" if "criteria" in problem else None
    with pytest.raises(ValueError, match=problem):
        check_draft(ProcedureDraft(text="t", steps=steps, variables=variables, success_criteria=criteria), calls)
    check_draft(ProcedureDraft(text="t", steps=["search for {product}", "take 3 results"], variables=["product"]), calls)


def test_bind_refuses_missing_and_unknown_values():
    p = proc(steps=("pay {amount} to {who}",), variables=("amount", "who"))
    assert bind(p, {"amount": 3, "who": "Bo"}) == ["pay 3 to Bo"]
    for values, field in (({"amount": 3}, "who"), ({"amount": 3, "who": None}, "who"),
                          ({"amount": 3, "who": "Bo", "x": 1}, "x")):
        with pytest.raises(InvalidInputError) as info:
            bind(p, values)
        assert info.value.field == field


def test_suggestions_need_a_match_and_rank_track_record_and_priority():
    def hit(pid, semantic, lexical, **kw):
        return ScoredMemory(record=proc(id=pid, **kw), score=0.0, parts=ScoreParts(semantic=semantic, lexical=lexical))
    results = [
        hit("weak", 0.55, 0.0),  # cosine 0.1, no lexical match: not a match
        hit("plain", 0.9, 1.0),
        hit("proven", 0.9, 1.0, success_count=8, failure_count=0),
        hit("urgent", 0.9, 1.0, priority=10),
        hit("failing", 0.9, 1.0, success_count=0, failure_count=8),
    ]
    ranked = rank_suggestions(results, k=10, min_similarity=0.3)
    assert [s.procedure.id for s in ranked] == ["proven", "urgent", "plain", "failing"]
    assert ranked[0].success_rate == pytest.approx(0.9)


@pytest.mark.parametrize("kwargs, field", [
    ({"corroboration_threshold": 2}, "corroboration_threshold"), ({"max_failure_rate": 1.0}, "max_failure_rate"),
    ({"min_outcomes": 0}, "min_outcomes"), ({"model_retries": -1}, "model_retries"), ({"reflect_evidence": True}, "reflect_evidence"),
])
def test_learning_settings_are_checked(kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        LearningSettings(**kwargs)
    assert info.value.field == field


MESSAGES = [("system", "be brief"), ("human", "memories")]


def test_model_caller_retries_then_reports_every_attempt():
    llm = scripted(tool_answer("Reflection", {"insights": 5}), "no tool call", tool_answer("Reflection", {"insights": []}))
    caller = LlmCaller(retries=2)
    assert caller.ask(llm, Reflection, MESSAGES, purpose="reflect") == Reflection(insights=[])
    assert llm.calls == caller.calls == 3
    failing = scripted(*["no tool call"] * 2)
    with pytest.raises(ModelError) as info:
        LlmCaller(retries=1).ask(failing, Reflection, MESSAGES, purpose="reflect")
    assert info.value.purpose == "reflect" and len(info.value.attempts) == 2


def test_model_caller_falls_back_to_json_and_applies_the_callers_check():
    llm = JsonChatModel(responses=['{"insights": [{"text": "x", "cites": []}]}', '{"insights": []}'])

    def no_empty_citations(answer: Reflection) -> None:
        if any(not d.cites for d in answer.insights):
            raise ValueError("an insight without citations")

    answer = asyncio.run(AsyncLlmCaller().ask(llm, Reflection, MESSAGES, purpose="reflect", check=no_empty_citations))
    assert answer.insights == [] and llm.calls == 2


def test_model_errors_are_raised_for_timeouts_too():
    class Timeout(JsonChatModel):
        def _call(self, *args, **kwargs):
            self.calls += 1
            raise TimeoutError("model took too long")

    llm = Timeout(responses=["{}"])
    with pytest.raises(ModelError, match="TimeoutError: model took too long"):
        LlmCaller(retries=0).ask(llm, Reflection, MESSAGES, purpose="reflect")
    assert llm.calls == 1
