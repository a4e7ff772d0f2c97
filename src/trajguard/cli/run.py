"""``trajguard run SUITE``: run every scenario N times and write a run set."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard import pipeline
from trajguard._text import printable
from trajguard.cli._common import (
    add_batch_arguments,
    batch_options,
    observer_factory,
    prepare_imports,
    quiet_litellm,
)
from trajguard.errors import UsageError
from trajguard.run import BatchResult
from trajguard.suite import BASE_VARIANT


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "run",
        help="run every scenario of a suite N times against a model; write a run set",
        description="Run a suite: scenarios x N runs, one Parquet row per run.",
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


def summary(result: BatchResult) -> str:
    """What the batch did: one line, then the most common errors per scenario and variant."""
    counts = ", ".join(f"{n} {status}" for status, n in sorted(result.counts.items()))
    lines = [
        f"{result.planned - result.skipped} runs in {result.elapsed_s:.0f} s ({counts or 'none'}); "
        f"{result.passed} passed, {result.crashed} crashed → {result.runset}"
    ]
    if result.errors:
        lines.append("most common errors:")
    for arm, errors in result.errors.items():
        lines += [f"  {arm}: {e.runs}× {e.error_type}: {e.message}" for e in errors]
    if result.server_log is not None:
        lines.append(f"the embedded model server's log (a call failed): {result.server_log}")
    return printable("\n".join(lines), keep="\n")  # error messages come from models and tools


def main(args: argparse.Namespace) -> int:
    prepare_imports(args.suite)
    options = batch_options(args, args.variant or [BASE_VARIANT])
    if args.dry_run:
        if args.resume is not None:
            raise UsageError("--dry-run plans a new batch; it does not combine with --resume")
        print(printable(pipeline.dry_run(args.suite, options=options, out=args.out), keep="\n"))
        return 0
    quiet_litellm()
    result = pipeline.run(
        args.suite,
        options=options,
        out=args.out,
        resume=args.resume,
        observe=observer_factory(args),
    )
    print(summary(result))
    return 0
