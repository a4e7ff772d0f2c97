"""``trajguard plan``: what N runs can detect, and the N a target effect needs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from trajguard.errors import TrajguardError


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "plan",
        help="minimum detectable effect per metric at N runs; runs needed for a target effect",
        description="From a baseline run set (observed rates and spreads) or assumed values, "
        "print per metric the smallest effect N runs per side detects with 80%% power at the "
        "Holm-adjusted alpha of a full report, and the N needed for each tolerance edge.",
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
    parser.set_defaults(handler=run)


_LABEL = {
    "pass_rate": "pass-rate drop",
    "crash_rate": "crash-rate rise",
    "prompt_tokens": "prompt-token ratio",
    "completion_tokens": "completion-token ratio",
    "step_count": "steps A",
}


def _effect(metric: str, value: float | None) -> str:
    if value is None:
        return "none detectable"
    if metric in ("pass_rate", "crash_rate"):
        return f"{100 * value:.0f} pts"
    if metric in ("prompt_tokens", "completion_tokens"):
        return f"×{value:.2f}"
    return f"{value:.2f}"


def _baseline(metric: str, value: float) -> str:
    """The baseline column: a rate, the spread of log token counts, or A with no change."""
    if metric in ("pass_rate", "crash_rate"):
        return f"{100 * value:.0f}%"
    if metric == "step_count":
        return f"A = {value:.2f}"
    return f"sd(log) {value:.2f}"


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from trajguard.live.plan import plan_assumed, plan_runset
    from trajguard.live.results import CompareConfig
    from trajguard.live.store import read_runs

    if args.runs < 2:
        raise TrajguardError(f"--runs must be at least 2, got {args.runs}")
    config = CompareConfig(alpha=args.alpha)
    if args.target_drop is not None:
        config = replace(config, pass_rate_margin=args.target_drop)
    if args.baseline is not None:
        plans = plan_runset(read_runs(args.baseline), args.runs, config=config)
    elif args.pass_rate is not None:
        plans = (
            plan_assumed(
                n=args.runs,
                n_scenarios=args.scenarios,
                pass_rate=args.pass_rate,
                crash_rate=args.crash_rate,
                token_cv=args.token_cv,
                config=config,
            ),
        )
    else:
        raise TrajguardError(
            "give a BASELINE run set or --pass-rate to assume one",
            hint="e.g. trajguard plan --pass-rate 0.9 --runs 20 --scenarios 4",
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
            baseline = _baseline(row.metric, row.baseline)
            table.add_row(
                plan.scenario,
                _LABEL.get(row.metric, row.metric),
                baseline,
                f"{row.alpha:.4f}",
                _effect(row.metric, row.mde),
                _effect(row.metric, row.target),
                "—" if row.n_needed is None else str(row.n_needed),
            )
    Console(width=120).print(table)
    return 0
