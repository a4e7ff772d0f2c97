"""``trajguard run SUITE``: run every scenario N times and write a run set."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._text import counted, printable
from trajguard.cli._common import (
    add_batch_arguments,
    batch_options,
    observer_factory,
    prepare_imports,
    startup_log,
)
from trajguard.errors import UsageError

if TYPE_CHECKING:
    from trajguard.cli._startup import StartupLog
    from trajguard.runner import BatchResult


NAME = "run"
HELP = "run every scenario of a suite N times against a model; write a run set"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Run a suite: scenarios x N runs, one Parquet row per run. When a scenario "
        "has a floor (floor: {min_pass_rate: ...}), the runs are checked against it: exit 1 when "
        "a bar is not shown, 0 otherwise.",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="run this variant (repeat to interleave several; default: base)",
    )
    parser.add_argument("--out", type=Path, help="run set directory (default runs/<suite>-<time>)")
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted batch (with the options it was started with)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="validate the suite and print the plan (scenarios x variants x runs, models); "
        "no model call, nothing written",
    )
    parser.set_defaults(handler=main)


def duration(seconds: float) -> str:
    """``seconds`` in words: "42 s", or "3 min 2 s" from a minute on."""
    whole = round(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60} s"


def summary(result: BatchResult, startup: StartupLog) -> str:
    """What the batch did: one line (its time is the whole command's, with the start-up before
    the first run), then the most common errors per scenario and variant."""
    counts = ", ".join(f"{n} {status}" for status, n in sorted(result.counts.items()))
    first = startup.first_run_s
    before = "" if first is None else f" with {duration(first)} of start-up"
    made = result.planned - result.skipped
    lines = [
        f"{counted(made, 'run')} in {duration(startup.elapsed_s)}{before} "
        f"({counts or 'none'}); {result.passed} passed, {result.crashed} crashed → {result.runset}"
    ]
    if result.errors:
        lines.append("most common errors:")
    for arm, errors in result.errors.items():
        lines += [f"  {arm}: {e.runs}× {e.summary(result.runset)}" for e in errors]
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    if result.server_log is not None:
        lines.append(f"the embedded model server's log (a call failed): {result.server_log}")
    if result.budget is not None:
        not_run = ", ".join(f"{s} {n}" for s, n in sorted(result.budget.not_run.items()))
        lines.append(f"the budget ended the batch: {result.budget.why}")
        lines.append(f"not run (runs per scenario): {not_run}")
    return printable("\n".join(lines), keep="\n")  # error messages come from models and tools


def main(args: argparse.Namespace) -> int:
    if args.dry_run and args.resume is not None:
        raise UsageError("--dry-run plans a new batch; it does not combine with --resume")
    prepare_imports(args.suite)
    if args.dry_run:
        from trajguard import pipeline
        from trajguard.suite import BASE_VARIANT

        options = batch_options(args, args.variant or [BASE_VARIANT])
        print(printable(pipeline.dry_run(args.suite, options=options, out=args.out), keep="\n"))
        return 0
    with startup_log(args) as startup:
        with startup.step("importing trajguard's batch runner"):
            from trajguard import pipeline
            from trajguard.suite import BASE_VARIANT

        options = batch_options(args, args.variant or [BASE_VARIANT])
        startup.begin("reading the suite")
        result = pipeline.run(
            args.suite,
            options=options,
            out=args.out,
            resume=args.resume,
            observe=observer_factory(args, startup),
        )
    print(summary(result, startup))
    floors = pipeline.check_runset_floors(result.runset)
    if floors is not None:
        print(printable(floors.words, keep="\n"))
    if result.budget is not None:
        from trajguard.comparison import EXIT_BUDGET

        print(printable(f"finish it with: trajguard run {args.suite} --resume {result.runset}"))
        if floors is None or floors.exit_code == 0:
            return EXIT_BUDGET
    return 0 if floors is None else floors.exit_code
