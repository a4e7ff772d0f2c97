"""``trajguard compare BASELINE CANDIDATE``: a verdict on whether behaviour changed."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.errors import TrajguardError
from trajguard.live.tolerances import TOLERANCES, tolerance_problem

EXIT_REGRESSION = 1


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "compare",
        help="compare a candidate run set with a baseline; write a report; exit 1 on regression",
        description="Compare two run sets as distributions, scenario by scenario. Exit codes: "
        "0 no regression, 1 regression, 2 input error, 3 infrastructure failure.",
    )
    parser.add_argument("baseline", type=Path, metavar="BASELINE", help="baseline run set")
    parser.add_argument("candidate", type=Path, metavar="CANDIDATE", help="candidate run set")
    parser.add_argument(
        "--report", type=Path, help="report path (default reports/<suite>-<time>/report.md)"
    )
    add_compare_arguments(parser)
    parser.set_defaults(handler=run)


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Comparison options shared by compare and nightly."""
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise level (Holm)")
    parser.add_argument("--q", type=float, default=0.10, help="diagnostic false discovery rate")
    parser.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="tolerance band: pass_rate=0.1, crash_rate=0.05, steps=0.1 (A - 1/2), "
        "ratio=1.15 (tokens and latency), tools=0.1",
    )
    parser.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="METRIC",
        help="gating metric (repeat; default pass_rate and crash_rate)",
    )
    parser.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--all-plots",
        action="store_true",
        help="plot every scenario (default: all up to 20 scenarios, else the changed ones)",
    )


def compare_config(args: argparse.Namespace) -> Any:
    from trajguard.live.results import METRICS, CompareConfig

    updates: dict[str, Any] = {"alpha": args.alpha, "q": args.q}
    for item in args.tolerance:
        name, sep, value = item.partition("=")
        if not sep or name not in TOLERANCES:
            raise TrajguardError(
                f"--tolerance {item!r}: expected METRIC=VALUE with METRIC one of "
                f"{', '.join(sorted(TOLERANCES))}"
            )
        try:
            number = float(value)
        except ValueError:
            raise TrajguardError(f"--tolerance {item!r}: {value!r} is not a number") from None
        problem = tolerance_problem(name, number)
        if problem is not None:  # the same range a suite's tolerances must respect
            raise TrajguardError(f"--tolerance {item!r}: {problem}")
        updates[TOLERANCES[name]] = number
    if args.gate:
        unknown = sorted(set(args.gate) - set(METRICS))
        if unknown:
            raise TrajguardError(
                f"--gate: unknown metric(s) {unknown}; known: {', '.join(METRICS)}"
            )
        updates["gating"] = frozenset(args.gate)
    return replace(CompareConfig(), **updates)


def with_suite_tolerances(config: Any, manifest: dict[str, Any]) -> Any:
    """Apply the per-scenario tolerances the suite declared (recorded in the run set)."""
    from trajguard.live.tolerances import margin_fields

    own = {s: margin_fields(t) for s, t in (manifest.get("tolerances") or {}).items() if t}
    return replace(config, scenario_margins=own) if own else config


def command_line() -> str:
    return shlex.join(["trajguard", *sys.argv[1:]])


def run(args: argparse.Namespace) -> int:
    from trajguard.live.reporting import compare_and_report
    from trajguard.live.store import read_manifest

    manifest = read_manifest(args.candidate)
    config = with_suite_tolerances(compare_config(args), manifest)
    suite = manifest.get("suite", "suite")
    read_manifest(args.baseline)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report = args.report or Path("reports") / f"{suite}-{stamp}" / "report.md"
    files = compare_and_report(
        args.baseline,
        args.candidate,
        report,
        config=config,
        command=command_line(),
        plots=not args.no_plots,
        all_plots=args.all_plots,
        junit=args.junit,
    )
    print(headline(files.comparison, report))
    return EXIT_REGRESSION if files.comparison.regressed else 0


def headline(comparison: Any, report: Path) -> str:
    counts: dict[str, int] = {}
    for scenario in comparison.scenarios:
        counts[scenario.verdict.value] = counts.get(scenario.verdict.value, 0) + 1
    parts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return f"verdict: {comparison.verdict.value} ({parts}) → {report}"
