"""The operations commands of the ``graphmem`` command line: ``setup`` (with ``--check``,
what it would change) and ``reembed`` (the store moved to another embedder), over
``Memory.setup``, ``Memory.schema_plan`` and ``Memory.reembed`` (docs/operations.md)."""

from __future__ import annotations

import argparse
from typing import Any

from .._base.embeddings import EMBEDDERS, named_embedder
from .._base.layout import SchemaPlan
from .._memory.reembed import ReembedProgress, ReembedReport, _duration
from .console import Usage, emit, say

OK, CHANGES = 0, 1


def register(add: Any, common: argparse.ArgumentParser) -> None:
    """Add ``setup`` and ``reembed`` to the ``graphmem`` subparsers (``add``: their add_parser)."""
    p = add("setup", parents=[common], help="create graphmem's constraints and indexes, upgrade an older store")
    p.add_argument("--check", action="store_true",
                   help="change nothing: say what setup would do (upgrade steps, missing or stray indexes, the "
                        "store's node) and count memories without a vector; exit 1 if anything")
    p = add("reembed", parents=[common],
            help="move the store to another embedder: new vectors beside the old, then one switch (resumable)")
    p.add_argument("--to", required=True, choices=[e for e in EMBEDDERS if e != "none"],
                   help="the embedder to move to (--embedder is the one the store has now)")
    p.add_argument("--tenants", default=None,
                   help="comma-separated tenants to re-embed (default: every tenant; the switch waits for all)")
    p.add_argument("--batch-size", type=int, default=256, help="memories per embedder call and transaction (default 256)")
    p.add_argument("--dry-run", action="store_true", help="change nothing: count the memories and time the embedder")
    p.add_argument("--restart", action="store_true",
                   help="drop what a re-embedding with another embedder left, and start over")


def setup(memory: Any, args: argparse.Namespace) -> int:
    if args.check:
        plan = memory.schema_plan()
        emit(args, plan.model_dump(), lambda: _plan_lines(plan))
        return OK if plan.sound else CHANGES
    memory.setup()
    info = memory.verify_connectivity()
    emit(args, {"ok": True, **info}, lambda: f"schema ready on {info['name']} {info['version']} ({info['edition']})")
    return OK


def _plan_lines(plan: SchemaPlan) -> str:
    if plan.newer:
        return (f"this store follows schema version {plan.store_version}, newer than this graphmem's "
                f"{plan.graphmem_version}: upgrade graphmem; setup would refuse it")
    version = {0: "nothing written yet", 1: "1 (written before versions were recorded)"}.get(
        plan.store_version, str(plan.store_version))
    lines = [f"store schema version: {version}; this graphmem writes {plan.graphmem_version}"]
    for step in plan.steps:
        lines.append(f"  step {step.version} ({step.name}): {step.does}; {step.changes:,} records to change")
    if plan.missing:
        lines.append(f"  to create: {', '.join(plan.missing)}")
    vector = (f"vector index {plan.vector_index} (slot {plan.vector_slot}): "
              + (f"{plan.vector_dimensions} dimensions" if plan.vector_dimensions is not None else "not made yet"))
    if plan.embedder_dimensions is not None and plan.vector_dimensions not in (None, plan.embedder_dimensions):
        vector += (f"; the embedder gives {plan.embedder_dimensions}: setup would refuse it "
                   f"(graphmem reembed --to ... moves the store to another embedder)")
    lines.append(vector)
    lines += _layout_lines(plan)
    if plan.reembed:
        state = plan.reembed
        lines.append(f"re-embedding under way: {state.get('embedder')} ({state.get('dimensions')} dimensions), "
                     f"started {state.get('startedAt')}" + (", switched" if state.get("switchedAt") else ""))
    if plan.without_vector:
        stranded = f" ({plan.stranded:,} stranded by a re-embedding)" if plan.stranded else ""
        lines.append(f"memories without a vector in slot {plan.slot_found or plan.vector_slot}: "
                     f"{plan.without_vector:,}{stranded}; recall finds them by text and through the graph only: "
                     "graphmem reembed --to <the store's embedder> embeds them")
    if plan.current:
        lines.append("nothing to change" if plan.sound else "setup would change nothing; graphmem reembed would")
    else:
        lines.append("setup would change the above")
    return "\n".join(lines)


def _layout_lines(plan: SchemaPlan) -> list[str]:
    """What ``--check`` says of the store's node and graphmem's vector indexes."""
    lines = []
    if not plan.recorded:
        lines.append(f"the store's node (:GraphMemStore {{id: 'store'}}) is missing (a store written before versions, "
                     f"or the node deleted): the vector indexes say slot {plan.vector_slot}; setup would record it")
    if plan.slot_found is not None:
        lines.append(f"the store's node says slot {plan.vector_slot}, but every vector is in slot {plan.slot_found}: "
                     f"setup would record slot {plan.slot_found}")
    for name in plan.stray_indexes:
        lines.append(f"stray vector index {name} (the inactive slot's, no re-embedding fills it): setup would drop it")
    return lines


def reembed(memory: Any, args: argparse.Namespace) -> int:
    tenants = None if args.tenants is None else [t.strip() for t in args.tenants.split(",") if t.strip()]
    if tenants == []:
        raise Usage("--tenants names no tenant")
    embedder = named_embedder(args.to)

    def progress(step: ReembedProgress) -> None:
        say(f"reembed: {step.line()}")

    report: ReembedReport = memory.reembed(embedder, tenants=tenants, batch_size=args.batch_size,
                                           dry_run=args.dry_run, restart=args.restart,
                                           progress=None if args.json else progress)
    emit(args, report.model_dump(), lambda: _report_lines(report, args.to))
    return OK


def _report_lines(report: ReembedReport, to: str) -> str:
    if report.dry_run:
        about = "" if report.estimate_seconds is None else f", about {_duration(report.estimate_seconds)}"
        resumed = f" ({report.resumed:,} done by an earlier run)" if report.resumed else ""
        return (f"reembed --dry-run: {report.embedded:,} memories to embed with {report.embedder} "
                f"({report.dimensions} dimensions){resumed}; {report.rate:,.0f} memories/s on a sample{about} "
                f"of embedding (the run adds the writes and the new index)")
    lines = [f"reembed: {report.embedded:,} memories embedded with {report.embedder} ({report.dimensions} dimensions) "
             f"in {_duration(report.seconds)}, {report.rate:,.0f}/s"
             + (f"; {report.resumed:,} done by an earlier run" if report.resumed else "")]
    if report.switched:
        lines.append(f"switched: recall answers from {report.index}; {report.cleaned:,} old vectors removed; "
                     f"use --embedder {to} (and the same embedder in every application) from now on")
    else:
        lines.append(f"not switched yet: {report.remaining:,} memories of other tenants still need their new vector "
                     f"(run graphmem reembed again without --tenants, or for them)")
    return "\n".join(lines)
