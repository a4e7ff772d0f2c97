"""``trajguard nightly SUITE``: run, compare with the suite's baseline, report, exit code."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._common import (
    add_batch_arguments,
    add_compare_arguments,
    add_history_argument,
    add_max_runs_argument,
    add_require_power_argument,
    add_store_argument,
    batch_options,
    compare_config,
    observer_factory,
    prepare_imports,
    print_warnings,
    report_options,
    startup_log,
)

NAME = "nightly"
HELP = "run the suite, compare with its baseline, write reports/<date>/, exit 1 on regression"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="The nightly job: run the suite's base variant, compare it with "
        "baselines/<suite>/, write reports/<date>/report.md (and the run set beside it). "
        "Exit codes as compare. The method: `trajguard docs statistics` "
        "(docs/explanation/statistics.md).",
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
        "(docs/explanation/statistics.md, sequential mode)",
    )
    add_max_runs_argument(parser)
    parser.add_argument(
        "--budgeted",
        action="store_true",
        help="spend --max-cost (else --max-minutes) in three looks where the verdict is still "
        "open: more runs for undecided scenarios, none for decided or hopelessly blind ones "
        "(docs/explanation/statistics.md, budgeted design)",
    )
    add_history_argument(parser)
    add_store_argument(parser)
    parser.add_argument(
        "--promote-if-clean",
        action="store_true",
        help="with --store: promote a clean night to the baseline (a rolling baseline), unless "
        "the series since the pinned anchor moved beyond the bands (the boiling-frog guard)",
    )
    parser.add_argument(
        "--fail-on-change",
        action="store_true",
        help="with --store: exit 5 when the trend's monitoring procedure raises a harmful alarm "
        "(pass rate down, crash rate up) on this night and nothing else failed",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted night: its run set DIR (the one Ctrl-C named), then compare, "
        "write the report beside it and append it to the store, in this one command",
    )
    add_require_power_argument(parser, suite=True)
    add_compare_arguments(parser)
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    prepare_imports(args.suite)
    with startup_log(args) as startup:
        with startup.step("importing trajguard's batch runner and comparison"):
            from trajguard import pipeline
            from trajguard.suite import BASE_VARIANT

        config = compare_config(args)
        options = batch_options(args, [BASE_VARIANT])
        promote_to = (
            (args.baseline.parent if args.baseline else Path("baselines"))
            if (args.promote_if_clean)
            else None
        )
        # no --store: the suite's defaults.store, if it names one
        store = pipeline.StoreRequest(
            location=args.store, promote_to=promote_to, fail_on_change=args.fail_on_change
        )
        startup.begin("reading the suite")
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
            observe=observer_factory(args, startup),
            require_power=args.require_power,
            store=store,
            resume=args.resume,
            budgeted=args.budgeted,
        )
    print_warnings(outcome.warnings)
    print(printable(outcome.headline, keep="\n"))
    return outcome.exit_code
