"""What the agent reads: the block ``context()`` and ``context_for_turn()`` render, measured
at a token budget beside baselines that pack the same budget (issue 48).

An agent never sees recall's ranking, only the block in its prompt. Per question and
budget B (500, 1,000 and 2,000 tokens; graphmem's estimate, characters / 4, for every
system):

- evidence@B: share of the question's evidence turns whose text is in the block;
- answer@B: share of the gold answer's content words (lower-cased, stop words left out) in
  the block;
- who@B: share of the evidence turns shown with their speaker on the same line, before the
  text ("Caroline: ..."; a LongMemEval turn's speaker is its role, ``user``);
- tokens: the block's size.

Systems: graphmem ``context(question, max_tokens=B)``, and the same on the same store with
``RecallSettings(exchange_share=0)`` (what the exchange around each turn adds); graphmem
``context_for_turn(question, session_id=<the conversation's last session>, max_tokens=B)`` (its recent messages, then the
memories of the other sessions); BM25, dense and their RRF (the reference harness's, as
bench/locomo.py takes them: ``bench/reference.py``) and the newest turns, each packing
"[date] speaker: text" lines best first into the same budget; and the whole history, whose
token count is what the budget saves.

Data, from ../shared/data (never copied): LoCoMo (categories 1-4 with evidence turns that
exist; each turn stored as the reference check stores it, "speaker: text" with the speaker
as the message's name, one ``ingest(llm=None)`` per session) and LongMemEval S at turn level
(the user turns, each stored as a user message, one ``ingest`` per session, as the reference
check's ``lme --granularity turn``; abstention questions left out). As in the reference
check, every system sees the whole history, whatever the question's date.

    python bench/context.py [--sets locomo,lme] [--locomo FILE] [--lme FILE,FILE] [--embedder wordllama|minilm]
                            [--budgets 500,1000,2000] [--limit N]

Tables in bench/results/context[-<embedder>].md, the plot of evidence against tokens in
bench/results/context[-<embedder>].png.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
import locomo
import longmemeval
import reference

from graphmem import MAX_TEXT_LENGTH, Memory, RecallSettings, estimate_tokens
from graphmem._recall.context import CHARS_PER_TOKEN

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
BUDGETS = (500, 1000, 2000)
SYSTEMS = ("graphmem context()", "graphmem context(), no exchange", "graphmem context_for_turn()", "BM25", "dense",
           "RRF", "newest turns")
WHOLE = "whole history"
STOP = frozenset("""a an and are as at be but by for if in into is it no not of on or such that the their then
there these they this to was will with i you he she we me my your his her our its them""".split())
WORD = re.compile(r"\w+", re.UNICODE)
SCOPE = "context"


@dataclass(frozen=True)
class Turn:
    id: str
    speaker: str  # a person's name, or the role (LongMemEval's turns: "user")
    text: str  # what was said, as the evidence check looks for it
    stored: str  # what graphmem and the baselines index
    date: datetime
    session: str


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    evidence: tuple[str, ...]
    group: str  # LoCoMo's category, LongMemEval's question type


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def flat(text: str) -> str:
    return " ".join(text.split())


def content_words(text: str) -> set[str]:
    return {w for w in (t.lower() for t in WORD.findall(text)) if w not in STOP}


def baseline_line(turn: Turn) -> str:
    """A baseline's line: "[date] speaker: text", as the issue's baselines pack them."""
    return f"- [{turn.date.date().isoformat()}] {turn.speaker}: {flat(turn.text)}"


def pack(lines: Sequence[str], budget: int) -> str:
    """The lines that fit ``budget`` (graphmem's estimate of the whole block), best first,
    under one heading, as ``context()`` packs its own."""
    head = "## Turns"
    kept, size = [], len(head)
    for line in lines:
        if math.ceil((size + 1 + len(line)) / CHARS_PER_TOKEN) <= budget:
            kept.append(line)
            size += 1 + len(line)
    return "\n".join([head, *kept]) if kept else ""


def measure(block: str, question: Question, turns: dict[str, Turn]) -> dict[str, float]:
    """evidence@B, answer@B, who@B and tokens of one block."""
    shown = [flat(line) for line in block.splitlines()]
    found = who = 0
    for eid in question.evidence:
        turn = turns[eid]
        text = flat(turn.text)
        holding = [line for line in shown if line.endswith(text)]  # every system's line ends with the text
        found += bool(holding)
        who += any(f"{turn.speaker}: " in line[: -len(text)] for line in holding)
    wanted = content_words(question.answer)
    words = content_words(block)
    return {"evidence": found / len(question.evidence), "who": who / len(question.evidence),
            "answer": len(wanted & words) / len(wanted) if wanted else 0.0,
            "tokens": float(estimate_tokens(block)) if block else 0.0}


# ------------------------------------------------------------------------------- data sets
def locomo_conversations(path: Path, limit: int) -> list[Conversation]:
    out = []
    for sample in json.loads(path.read_text()):
        turns = []
        for n, date, session in locomo.sessions(sample["conversation"]):
            for t in session:
                text = t["text"] + (f" [shares {t['blip_caption']}]" if t.get("blip_caption") else "")
                turns.append(Turn(t["dia_id"], t["speaker"], text[:MAX_TEXT_LENGTH], locomo.turn_text(t), date,
                                  f"{sample['sample_id']}/session_{n}"))
        ids = {t.id for t in turns}
        questions = []
        for q in sample["qa"]:
            evidence = locomo.evidence_of(q, ids)
            if evidence and int(q["category"]) in locomo.SCORED:
                questions.append(Question(str(q["question"]), str(q.get("answer", "")), tuple(evidence),
                                          locomo.CATEGORIES[int(q["category"])]))
        out.append(Conversation(sample["sample_id"], tuple(turns), tuple(questions[:limit] if limit else questions)))
    return out


def lme_conversations(path: Path, limit: int) -> list[Conversation]:
    """One conversation per question (its own haystack), the user turns at turn level."""
    out = []
    for q in json.loads(path.read_text()):
        if q["question_id"].endswith("_abs"):
            continue
        turns, gold = [], []
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            for i, t in enumerate(session):
                if t["role"] == "user" and t["content"].strip():
                    text = t["content"][:MAX_TEXT_LENGTH]
                    turns.append(Turn(f"{sid}_{i + 1}", "user", text, text, longmemeval.when(date), sid))
                    if sid in q["answer_session_ids"] and t.get("has_answer"):
                        gold.append(turns[-1].id)
        if not gold:
            continue
        question = Question(q["question"], str(q["answer"]), tuple(gold), q["question_type"])
        out.append(Conversation(q["question_id"], tuple(turns), (question,)))
        if limit and len(out) >= limit:
            break
    return out


# ------------------------------------------------------------------------------- the run
def run_set(name: str, conversations: list[Conversation], embedder_name: str, budgets: Sequence[int],
            tally: dict[str, dict[str, dict[int, list[dict[str, float]]]]], uri: str,
            auth: tuple[str, str]) -> tuple[float, str]:
    """Ask every question of ``conversations``; per system and budget the measures go to
    ``tally[name][system][budget]``. Returns the seconds graphmem's calls took and where the
    baselines came from (the reference check's, or the project's own without it)."""
    embedder = locomo.embedder_of(embedder_name)
    source, baselines = reference.systems(embedder_name, embedder)
    run = uuid.uuid4().hex[:8]
    spent = 0.0
    for c, conv in enumerate(conversations, 1):
        turns = {t.id: t for t in conv.turns}
        for system in baselines.values():
            system.ingest([(t.id, t.stored) for t in conv.turns])
        sessions: dict[str, list[Turn]] = {}
        for t in conv.turns:
            sessions.setdefault(t.session, []).append(t)
        last = list(sessions)[-1]
        tenant = f"context-{run}-{c}"
        # the same store read twice: as it is, and without the exchange around each turn
        with Memory(uri, auth, tenant=tenant, embedder=embedder) as memory, \
                Memory(uri, auth, tenant=tenant, embedder=embedder,
                       recall_settings=RecallSettings(exchange_share=0.0)) as alone:
            memory.setup()
            for sid, said in sessions.items():
                messages = [{"role": "user", "content": t.stored} | ({} if t.speaker == "user" else {"name": t.speaker})
                            for t in said]
                memory.ingest(messages, scope=SCOPE, llm=None, session_id=sid, occurred_at=said[0].date)
            whole = "\n".join(["## Turns", *(baseline_line(t) for t in conv.turns)])
            for q in conv.questions:
                ranked = {label: [turns[i] for i in system.rank(q.text, len(conv.turns)) if i in turns]
                          for label, system in baselines.items()}
                ranked["newest turns"] = list(conv.turns[::-1])
                for budget in budgets:
                    t0 = time.perf_counter()
                    blocks = {
                        "graphmem context()": memory.context(q.text, scope=SCOPE, max_tokens=budget),
                        "graphmem context_for_turn()": memory.context_for_turn(
                            q.text, scope=SCOPE, session_id=last, max_tokens=budget),
                    }
                    spent += time.perf_counter() - t0
                    blocks["graphmem context(), no exchange"] = alone.context(q.text, scope=SCOPE, max_tokens=budget)
                    for label, order in ranked.items():
                        blocks[label] = pack([baseline_line(t) for t in order], budget)
                    for label, block in blocks.items():
                        tally[name][label][budget].append(measure(block, q, turns))
                tally[name][WHOLE][0].append(measure(whole, q, turns))
            memory.erase(scope=SCOPE)
        print(f"{name}: [{c}/{len(conversations)}] {conv.name}", flush=True)
    return spent, source


def mean(rows: list[dict[str, float]], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else 0.0


def tables(tally, groups, budgets: Sequence[int]) -> tuple[str, dict[str, dict[str, tuple[list[float], list[float]]]]]:
    """The markdown tables (per data set: the systems, then evidence per question group) and,
    per set, each system's (tokens, evidence) points."""
    out, points = [], {}
    for name, per in tally.items():
        head = ["system", "questions", *[f"evidence@{b}" for b in budgets], *[f"answer@{b}" for b in budgets],
                *[f"who@{b}" for b in budgets], *[f"tokens@{b}" for b in budgets]]
        rows, points[name] = [], {}
        for system in (*SYSTEMS, WHOLE):
            if system not in per:
                continue
            if system == WHOLE:
                cells = per[WHOLE][0]
                rows.append([system, len(cells), *["1.000"] * len(budgets),
                             *[f"{mean(cells, 'answer'):.3f}"] * len(budgets),
                             *[f"{mean(cells, 'who'):.3f}"] * len(budgets),
                             *[f"{mean(cells, 'tokens'):,.0f}"] * len(budgets)])
                continue
            cells = per[system]
            rows.append([system, len(cells[budgets[0]]),
                         *[f"{mean(cells[b], 'evidence'):.3f}" for b in budgets],
                         *[f"{mean(cells[b], 'answer'):.3f}" for b in budgets],
                         *[f"{mean(cells[b], 'who'):.3f}" for b in budgets],
                         *[f"{mean(cells[b], 'tokens'):,.0f}" for b in budgets]])
            points[name][system] = ([mean(cells[b], "tokens") for b in budgets],
                                    [mean(cells[b], "evidence") for b in budgets])
        out.append(f"### {name}\n\n" + harness.table(head, rows))
        out.append(group_table(groups[name], budgets))
    return "\n\n".join(out), points


def group_table(groups: dict[str, dict[str, dict[int, list[dict[str, float]]]]], budgets: Sequence[int]) -> str:
    """evidence@B per question group (category or type), graphmem context() beside the baselines."""
    head = ["group", "system", "questions", *[f"evidence@{b}" for b in budgets]]
    rows = []
    for group in sorted(groups):
        for system in SYSTEMS:
            cells = groups[group].get(system)
            if cells:
                rows.append([group, system, len(cells[budgets[0]]), *[f"{mean(cells[b], 'evidence'):.3f}" for b in budgets]])
    return harness.table(head, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="locomo,lme", help="locomo, lme or both (comma-separated)")
    parser.add_argument("--locomo", default=str(DATA / "locomo" / "locomo_dev3.json"))
    parser.add_argument("--lme", default=",".join(str(DATA / "longmemeval" / f"longmemeval_s_{n}.json")
                                                  for n in ("dev60", "dev140")))
    parser.add_argument("--embedder", default="wordllama", help="wordllama (default) or minilm")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--limit", type=int, default=0, help="LoCoMo: questions per conversation; LongMemEval: questions per file")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    uri, auth = harness.neo4j_auth()
    started = time.perf_counter()
    tally: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    sets: list[tuple[str, list[Conversation]]] = []
    for chosen in args.sets.split(","):
        if chosen == "locomo":
            path = Path(args.locomo)
            if not path.is_file():
                raise SystemExit(f"LoCoMo data not found at {path} (see ../shared/data/locomo/README.md)")
            sets.append((f"LoCoMo {path.stem}", locomo_conversations(path, args.limit)))
        elif chosen == "lme":
            for name in args.lme.split(","):
                path = Path(name)
                if not path.is_file():
                    raise SystemExit(f"LongMemEval data not found at {path} (see ../shared/data/longmemeval/README.md)")
                sets.append((f"LongMemEval {path.stem} (turns)", lme_conversations(path, args.limit)))
        else:
            raise SystemExit(f"--sets takes locomo and lme, not {chosen!r}")
    spent, sources = 0.0, set()
    groups: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list))))
    for name, conversations in sets:
        seconds, source = run_set(name, conversations, args.embedder, budgets, tally, uri, auth)
        spent += seconds
        sources.add(source)
        questions = [q for c in conversations for q in c.questions]
        for system in SYSTEMS:
            for b in budgets:
                for q, row in zip(questions, tally[name][system][b]):
                    groups[name][q.group][system][b].append(row)
    both = [name for name, _ in sets if name.startswith("LongMemEval")]
    if len(both) > 1:  # the sets together, as the targets read
        joined = "LongMemEval " + " + ".join(n.split()[1] for n in both) + " (turns)"
        for name in both:
            for system, per in list(tally[name].items()):
                for b, rows in per.items():
                    tally[joined][system][b] += rows
            for group, per in groups[name].items():
                for system, cells in per.items():
                    for b, rows in cells.items():
                        groups[joined][group][system][b] += rows
    body, points = tables(tally, groups, budgets)
    asked = sum(len(c.questions) for _, cs in sets for c in cs)
    notes = (f"{asked} questions; embedder {args.embedder}; budgets {', '.join(map(str, budgets))} tokens "
             "(graphmem's estimate, characters / 4, for every system); baselines pack \"[date] speaker: text\" lines "
             f"best first (BM25, dense and RRF from {'; '.join(sorted(sources))}); "
             "context_for_turn() is asked in the conversation's last session (its recent messages, then the "
             f"memories of the others). graphmem's calls took {spent:.0f} s; run {time.perf_counter() - started:.0f} s.")
    suffix = "" if args.embedder == "wordllama" else f"-{args.embedder}"
    out = harness.write_result(f"context{suffix}", f"What the agent reads: the block at a budget, embedder {args.embedder}",
                               body, notes)
    for name, series in points.items():
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        harness.plot(f"context{suffix}-{slug}", f"{name}: evidence in the block", "tokens used", "evidence@B",
                     series, log=False)
    print(body)
    print(notes)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
