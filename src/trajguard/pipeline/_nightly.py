"""``trajguard nightly``: run the suite, compare it with its baseline, report, exit code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from trajguard.compare import (
    CompareConfig,
    Comparison,
    PooledBaseline,
    apply_escalation,
    apply_gate,
)
from trajguard.errors import StoreError, UsageError
from trajguard.pipeline._compare import (
    CompareOutcome,
    compare_loaded,
    load_baseline,
    with_suite_tolerances,
)
from trajguard.pipeline._escalation import run_escalation
from trajguard.pipeline._outputs import ReportOptions, check_targets, report_dir
from trajguard.pipeline._sequential import run_sequential
from trajguard.report import escalation_section, sequential_section
from trajguard.results import ReportKind
from trajguard.run import BatchOptions, ObserverFactory, execute
from trajguard.store import MANIFEST_FILE, RunSet, load_runset, read_manifest
from trajguard.suite import BASE_VARIANT, load_suite

__all__ = ["nightly"]


def nightly(
    suite_path: Path,
    *,
    options: BatchOptions | None = None,
    config: CompareConfig | None = None,
    baseline: Path | None = None,
    baselines: Path = Path("baselines"),
    reports: Path = Path("reports"),
    sequential: bool = False,
    max_runs: int | None = None,
    history: int | None = None,
    report: ReportOptions | None = None,
    observe: ObserverFactory | None = None,
) -> CompareOutcome:
    """Run the suite's base variant, compare it with the baseline and write the report.

    The run set goes to ``reports/<date>/runs``, the report to ``reports/<date>/report.md``. The
    suite's per-scenario tolerance bands replace the given ones for those scenarios. With
    ``sequential``, the candidate runs in up to three looks and the stopping rule decides the
    verdicts of the gating metrics (and so the exit code).

    Args:
        suite_path: the suite file.
        options: batch options (runs, model, …); only the base variant is run.
        config: comparison settings.
        baseline: the baseline run set (default ``baselines/<suite>/``).
        baselines: the root of the default baseline.
        reports: where the night's folder is made.
        sequential: run in looks and stop early (against the latest baseline batch).
        max_runs: escalate the scenarios that lean harmful up to this many runs
            (:func:`trajguard.compare.escalation_design`).
        history: pool at most this many of the baseline's newest batches (default: all kept).
        report: plots, JUnit, the command shown in the report, the job summary.
        observe: progress of the batch.

    Raises:
        StoreError: the suite has no baseline, or a run set or target cannot be used.
        ModelUnavailable: the model cannot be reached (nothing is written).
        UsageError: both ``sequential`` and ``max_runs``.
    """
    if sequential and max_runs is not None:
        raise UsageError(
            "--sequential and --max-runs are two designs; give one of them",
            hint="--max-runs escalates the scenarios that lean harmful; --sequential stops early",
        )
    suite = load_suite(suite_path)
    base = baseline or baselines / suite.name
    if not (base / MANIFEST_FILE).exists():
        raise StoreError(
            f"suite {suite.name!r} has no baseline",
            file=base,
            hint=f"create one: trajguard run {suite_path} --out runs/first && "
            "trajguard baseline promote runs/first",
        )
    read_manifest(base)
    report = report or ReportOptions()
    config = with_suite_tolerances(
        config or CompareConfig(), {s.id: s.tolerances for s in suite.scenarios}
    )
    options = replace(options or BatchOptions(), variants=(BASE_VARIANT,))
    folder = report_dir(reports)
    runset, target = folder / "runs", folder / "report.md"
    check_targets(target, report.junit)
    extra: tuple[str, ...] = ()
    adjust = None
    pooled: PooledBaseline | None = None
    chosen: list[RunSet] = []

    def baseline_for(candidate: RunSet) -> RunSet:
        nonlocal pooled
        if not chosen:
            latest_only = 1 if sequential else history
            found, pooled = load_baseline(base, candidate, history=latest_only)
            chosen.append(found)
        return chosen[0]

    if sequential:
        outcome = run_sequential(
            suite, runset, options, baseline=base, config=config, observe=observe
        )
        extra = (sequential_section(outcome),)

        def adjust(comparison: Comparison) -> Comparison:
            # The stopping rule is the gate (its thresholds are what keep alpha): the
            # verdicts, headline, JUnit and exit code follow it.
            return apply_gate(comparison, outcome)
    elif max_runs is not None:

        def split(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
            candidate = RunSet(path=str(runset), manifest={}, runs=rows)
            return baseline_for(candidate).runs, rows

        escalation = run_escalation(
            suite, runset, options, max_runs=max_runs, config=config, split=split, observe=observe
        )
        extra = (escalation_section(escalation.design, escalation.stops),)
        config = replace(config, alpha=escalation.design.alpha_first)

        def adjust(comparison: Comparison) -> Comparison:
            return apply_escalation(comparison, escalation.stops, escalation.first)
    else:
        execute(suite, runset, options, observe=observe)
    candidate_set = load_runset(runset)
    result = compare_loaded(
        baseline_for(candidate_set),
        candidate_set,
        target,
        config=config,
        options=report,
        extra_sections=extra,
        adjust=adjust,
        history=pooled,
        kind=ReportKind.NIGHTLY,
    )
    return replace(result, runset=runset)
