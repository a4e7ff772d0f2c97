"""``trajguard compare BASELINE CANDIDATE``: a verdict on whether behaviour changed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._common import (
    add_compare_arguments,
    add_history_argument,
    add_require_power_argument,
    add_store_argument,
    compare_config,
    print_warnings,
    report_options,
)
from trajguard.errors import UsageError

NAME = "compare"
HELP = "compare a candidate run set with a baseline; write a report; exit 1 on regression"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Compare two run sets as distributions, scenario by scenario; write the "
        "report and comparison.json beside it. Exit codes: 0 no regression, 1 regression (or a "
        "scenario's floor not met), 2 "
        "input error, 3 infrastructure failure, 4 blind (with --require-power).",
    )
    parser.add_argument("baseline", type=Path, metavar="BASELINE", help="baseline run set")
    parser.add_argument("candidate", type=Path, metavar="CANDIDATE", help="candidate run set")
    parser.add_argument(
        "--report", type=Path, help="report path (default reports/<suite>-<time>/report.md)"
    )
    parser.add_argument(
        "--allow-unfinished",
        action="store_true",
        help="compare a run set whose batch has not finished (still running, interrupted): "
        "the report says so; refused otherwise",
    )
    add_history_argument(parser)
    add_store_argument(parser)
    parser.add_argument(
        "--night-date",
        metavar="DATE",
        help="with --store: file the night under this date, YYYY-MM-DD (default: the "
        "candidate batch's start date)",
    )
    add_require_power_argument(parser, suite=False)
    add_compare_arguments(parser)
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard import pipeline

    if args.night_date and not args.store:
        raise UsageError("--night-date files a night in a store: pass --store STORE too")
    store = pipeline.StoreRequest(location=args.store, date=args.night_date) if args.store else None
    outcome = pipeline.compare(
        args.baseline,
        args.candidate,
        config=compare_config(args),
        report=args.report,
        options=report_options(args),
        history=args.history,
        require_power=args.require_power,
        allow_unfinished=args.allow_unfinished,
        store=store,
    )
    print_warnings(outcome.warnings)
    print(printable(outcome.headline, keep="\n"))
    return outcome.exit_code
