"""``trajguard plan``: what N runs can detect, and the N a target effect needs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._common import add_family_arguments

NAME = "plan"
HELP = "minimum detectable effect per metric at N runs; runs needed for a target effect"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="From a baseline run set (observed rates and spreads) or assumed values, "
        "print per metric the smallest effect N runs per side detects with 80%% power at the "
        "level a lone effect must clear in a full report (the first step of the gating family), "
        "and the N needed for each tolerance edge. With a baseline, also the night's minutes and "
        "cost at N runs per scenario, from the baseline's runs (for --max-minutes, --max-cost).",
    )
    parser.add_argument("baseline", type=Path, nargs="?", metavar="BASELINE", help="run set")
    parser.add_argument("--runs", type=int, default=20, metavar="N", help="runs per side")
    parser.add_argument("--pass-rate", type=float, help="assumed baseline pass rate (no run set)")
    parser.add_argument("--crash-rate", type=float, default=0.0, help="assumed crash rate")
    parser.add_argument("--token-cv", type=float, default=0.3, help="assumed token spread (CV)")
    parser.add_argument("--scenarios", type=int, default=1, help="scenarios in the report")
    parser.add_argument(
        "--target-drop",
        type=float,
        metavar="D",
        help="pass-rate drop to detect (default: the 0.10 tolerance)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise level")
    add_family_arguments(parser)
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from trajguard import pipeline
    from trajguard._metric_table import metric_description
    from trajguard.comparison import CompareConfig

    tolerances = {} if args.target_drop is None else {"pass_rate": args.target_drop}
    plans = pipeline.plan(
        args.baseline,
        runs=args.runs,
        pass_rate=args.pass_rate,
        crash_rate=args.crash_rate,
        token_cv=args.token_cv,
        scenarios=args.scenarios,
        config=CompareConfig(
            alpha=args.alpha,
            tolerances=tolerances,
            multiplicity=args.multiplicity,
            suite_share=args.suite_share,
        ),
    )
    table = Table(title=f"What {args.runs} runs per side can detect (80% power)")
    for column in (
        "scenario",
        "metric",
        "baseline",
        "adjusted α",
        "detectable",
        "target",
        "runs needed",
    ):
        table.add_column(column)
    for plan in plans:
        for row in plan.rows:
            m = metric_description(row.metric)
            table.add_row(
                escape(printable(plan.scenario)),
                m.plan_label or m.label,
                m.format_plan_baseline(row.baseline),
                f"{row.alpha:.4f}",
                m.format_detectable(row.mde),
                m.format_detectable(row.target),
                "—" if row.n_needed is None else str(row.n_needed),
            )
    Console(width=120).print(table)
    if args.baseline is not None:
        for line in pipeline.estimate_night(args.baseline, args.runs).lines():
            print(printable(line))
    for note in _judge_notes(args.baseline):
        print(printable(f"note: {note}"))
    return 0


def _judge_notes(baseline: Path | None) -> list[str]:
    """What the baseline's judges that gave one verdict per run leave unknown."""
    if baseline is None:
        return []
    from trajguard import store
    from trajguard.comparison import judged_once

    return [
        f"scenario {j.scenario}: {j.criterion} ({j.model}) gave one verdict per run "
        "(samples: 1): the judge's noise is unknown, and a pass-rate change of this scenario "
        "cannot be told from it; add `samples: 3` to the judge to measure it"
        for j in judged_once(store.read_runs(baseline), "baseline")
    ]
