"""``trajguard nightly SUITE``: run, compare with the suite's baseline, report, exit code."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.cli.compare import (
    EXIT_REGRESSION,
    add_compare_arguments,
    command_line,
    compare_config,
    headline,
    with_suite_tolerances,
)
from trajguard.cli.run import add_batch_arguments, batch_options, execute, prepare_imports
from trajguard.errors import StoreError
from trajguard.live.suite import BASE_VARIANT, load_suite


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "nightly",
        help="run a suite, compare with its baseline, write reports/<date>/, exit 1 on regression",
        description="Run every scenario N times, compare with baselines/<suite>/, write the "
        "report and the run set under reports/<date>/, print the headline. Appends the report "
        "to $GITHUB_STEP_SUMMARY when set. Exit codes as for compare.",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--baseline", type=Path, help="baseline run set (default baselines/<suite>/)"
    )
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="reports root")
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="run in up to three looks and stop early when the verdict is clear (statistics §4)",
    )
    add_compare_arguments(parser)
    parser.set_defaults(handler=run)


def report_dir(root: Path, suffix: str = "") -> Path:
    """``reports/<date><suffix>/``, or with the time appended when that already exists."""
    now = datetime.now(UTC)
    folder = root / f"{now:%Y-%m-%d}{suffix}"
    if folder.exists():
        folder = root / f"{now:%Y-%m-%d}{suffix}-{now:%H%M%S}"
    return folder


def append_step_summary(text: str) -> None:
    """Append to GitHub Actions' job summary when running there."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as summary:
            summary.write(text + "\n")


def run(args: argparse.Namespace) -> int:
    from trajguard.live.reporting import compare_and_report
    from trajguard.live.store import read_manifest

    prepare_imports(args.suite)
    suite = load_suite(args.suite)
    baseline = args.baseline or Path("baselines") / suite.name
    if not (baseline / "manifest.json").exists():
        raise StoreError(
            f"suite {suite.name!r} has no baseline",
            file=baseline,
            hint=f"create one: trajguard run {args.suite} --out runs/first && "
            "trajguard baseline promote runs/first",
        )
    read_manifest(baseline)
    config = with_suite_tolerances(
        compare_config(args), {"tolerances": {s.id: s.tolerances for s in suite.scenarios}}
    )
    options = batch_options(args, [BASE_VARIANT])
    folder = report_dir(args.reports)
    runset = folder / "runs"
    extra: tuple[str, ...] = ()
    adjust = None
    if args.sequential:
        from trajguard.cli.sequential import run_sequential
        from trajguard.live.sequential_run import apply_gate

        outcome = run_sequential(
            suite,
            runset,
            options,
            baseline=baseline,
            config=config,
            progress=not args.no_progress,
        )
        extra = (outcome.section(),)

        def adjust(comparison: Any) -> Any:
            # The stopping rule is the gate (its thresholds are what keep alpha): the
            # verdicts, headline, JUnit and exit code follow it.
            return apply_gate(comparison, outcome)
    else:
        execute(
            suite, runset, options, resume=False, progress=not args.no_progress, label=suite.name
        )
    report = folder / "report.md"
    files = compare_and_report(
        baseline,
        runset,
        report,
        config=config,
        command=command_line(),
        plots=not args.no_plots,
        all_plots=args.all_plots,
        junit=args.junit,
        extra_sections=extra,
        adjust=adjust,
    )
    print(headline(files.comparison, report))
    append_step_summary(report.read_text(encoding="utf-8"))
    return EXIT_REGRESSION if files.comparison.regressed else 0
