"""``trajguard nightly SUITE``: run, compare with the suite's baseline, report, exit code."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard import pipeline
from trajguard._text import printable
from trajguard.cli._common import (
    add_batch_arguments,
    add_compare_arguments,
    add_history_argument,
    add_max_runs_argument,
    batch_options,
    compare_config,
    observer_factory,
    prepare_imports,
    quiet_litellm,
    report_options,
)
from trajguard.cli.compare import EXIT_REGRESSION
from trajguard.suite import BASE_VARIANT


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "nightly",
        help="run the suite, compare with its baseline, write reports/<date>/, exit 1 on "
        "regression",
        description="The nightly job: run the suite's base variant, compare it with "
        "baselines/<suite>/, write reports/<date>/report.md (and the run set beside it). "
        "Exit codes as compare. The method: `trajguard docs statistics` (docs/statistics.md).",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--baseline", type=Path, help="baseline run set (default baselines/<suite>/)"
    )
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="reports root")
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="run in up to three looks and stop early when the verdict is clear "
        "(docs/statistics.md, sequential mode)",
    )
    add_max_runs_argument(parser)
    add_history_argument(parser)
    add_compare_arguments(parser)
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    prepare_imports(args.suite)
    config = compare_config(args)
    options = batch_options(args, [BASE_VARIANT])
    quiet_litellm()
    outcome = pipeline.nightly(
        args.suite,
        options=options,
        config=config,
        baseline=args.baseline,
        reports=args.reports,
        sequential=args.sequential,
        max_runs=args.max_runs,
        history=args.history,
        report=report_options(args, step_summary=True),
        observe=observer_factory(args),
    )
    print(printable(outcome.headline))
    return EXIT_REGRESSION if outcome.regressed else 0
