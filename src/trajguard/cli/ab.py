"""``trajguard ab SUITE --variant A --variant B``: did this change help?"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._common import (
    add_batch_arguments,
    add_max_runs_argument,
    add_report_arguments,
    batch_options,
    compare_config,
    observer_factory,
    prepare_imports,
    report_options,
    startup_log,
)
from trajguard.errors import UsageError

NAME = "ab"
HELP = "run two variants interleaved and answer: helped / hurt / no detectable difference"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Run both variants of every scenario that has them, interleaved in one "
        "session, and compare them per scenario and overall (stratified by scenario), two-sided. "
        "With a `pairwise:` judge in the suite, also ask it which variant's answer to each "
        "input is better (docs: ab). Use `base` for a scenario without overrides. The "
        "suite's tolerance bands apply. Exit code 0 whatever the answer (6 when --max-cost "
        "or --max-minutes ended the batch).",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        required=True,
        help="give exactly twice: A (the reference) then B",
    )
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="reports root")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the tests")
    add_report_arguments(parser)
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="run in up to three looks and stop when the answer is clear",
    )
    add_max_runs_argument(parser)
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted A/B: its run set DIR (the one Ctrl-C named), then compare, "
        "write the report beside it, in this one command",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    if len(args.variant) != 2 or args.variant[0] == args.variant[1]:
        raise UsageError(
            "give --variant exactly twice, with two different names",
            hint="e.g. trajguard ab suites/demo.yaml --variant base --variant terse",
        )
    prepare_imports(args.suite)
    a, b = args.variant
    with startup_log(args) as startup:
        with startup.step("importing trajguard's batch runner and comparison"):
            from trajguard import pipeline

        config = compare_config(args)
        options = batch_options(args, [a, b])
        startup.begin("reading the suite")
        outcome = pipeline.ab(
            args.suite,
            variants=(a, b),
            options=options,
            config=config,
            reports=args.reports,
            sequential=args.sequential,
            max_runs=args.max_runs,
            report=report_options(args, step_summary=True),
            observe=observer_factory(args, startup),
            resume=args.resume,
        )
    print(printable(outcome.headline, keep="\n"))  # the answer, then what the runs could see
    return outcome.exit_code  # 1 only for a floor; 6 when a budget ended the batch
