"""``trajguard nightly``: run the suite, compare it with its baseline, report, exit code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from trajguard.comparison import CompareConfig, PooledBaseline
from trajguard.errors import StoreError
from trajguard.pipeline._budget import budgeted_design, with_baseline_estimate
from trajguard.pipeline._compare import (
    CompareOutcome,
    compare_loaded,
    load_baseline,
    with_suite_gates,
    with_suite_tolerances,
)
from trajguard.pipeline._looks import Job, choose_design, one_design, run_job
from trajguard.pipeline._nights import StoreRequest, store_for_suite
from trajguard.pipeline._outputs import (
    ReportOptions,
    check_targets,
    report_dir,
    resumable_folder,
)
from trajguard.results import ReportKind
from trajguard.runner import BatchOptions, ObserverFactory
from trajguard.store import MANIFEST_FILE, RunSet, load_runset, read_manifest, read_runs
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
    require_power: bool | None = None,
    store: StoreRequest | None = None,
    resume: Path | None = None,
    budgeted: bool = False,
) -> CompareOutcome:
    """Run the suite's base variant, compare it with the baseline and write the report.

    The run set goes to ``reports/<date>/runs``, the report to ``reports/<date>/report.md``. The
    suite's per-scenario tolerance bands replace the given ones for those scenarios. With
    ``sequential``, the candidate runs in up to three looks and the stopping rule decides the
    verdicts of the gating metrics (and so the exit code). Every design runs through one job
    runner (:func:`trajguard.pipeline._looks.run_job`).

    Args:
        suite_path: the suite file.
        options: batch options (runs, model, …); only the base variant is run.
        config: comparison settings.
        baseline: the baseline run set (default ``baselines/<suite>/``).
        baselines: the root of the default baseline.
        reports: where the night's folder is made.
        sequential: run in looks and stop early (against the latest baseline batch).
        max_runs: escalate the scenarios that lean harmful up to this many runs
            (:class:`trajguard.comparison.EscalationDesign`).
        history: pool at most this many of the baseline's newest batches (default: all kept).
        report: plots, JUnit, the command shown in the report, the job summary.
        observe: progress of the batch.
        require_power: a blind night exits 4 (``None``: the suite's ``defaults.require_power``).
        store: append the night to this store of nights, show the trend in the report and (with
            ``promote_to``) promote a clean night the boiling-frog guard lets through.
        budgeted: spend the budget (``options.budget``) in looks where the verdict is open
            (:class:`trajguard.comparison.BudgetedDesign`).
        resume: the run set of an interrupted night (``reports/<date>/runs``): its batch is
            finished, then compared, reported beside it and appended to the store, as the night
            would have been.

    Raises:
        StoreError: the suite has no baseline, or a run set or target cannot be used.
        ModelUnavailable: the model cannot be reached (nothing is written).
        UsageError: both ``sequential`` and ``max_runs``.
    """
    one_design(sequential=sequential, max_runs=max_runs, budgeted=budgeted)
    suite = load_suite(suite_path)
    suite_dir = suite.path.parent if suite.path else Path.cwd()
    store = store_for_suite(store, named=suite.defaults.store, suite_dir=suite_dir)
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
    options = with_baseline_estimate(options or BatchOptions(), base)
    config = with_suite_tolerances(
        config or CompareConfig(), {s.id: s.tolerances for s in suite.scenarios}
    )
    config = with_suite_gates(config, suite.defaults.gate)
    options = replace(options or BatchOptions(), variants=(BASE_VARIANT,))
    design = (
        budgeted_design(suite, options, config)
        if budgeted
        else choose_design(
            sequential=sequential, max_runs=max_runs, suite=suite, options=options, config=config
        )
    )
    folder = resumable_folder(resume) if resume is not None else report_dir(reports)
    runset = resume if resume is not None else folder / "runs"
    target = folder / "report.md"
    check_targets(target, report.junit)
    pooled: PooledBaseline | None = None
    chosen: list[RunSet] = []

    def baseline_for(candidate: RunSet) -> RunSet:
        nonlocal pooled
        if not chosen:
            # A sequential design tests against the latest batch (its thresholds assume one).
            found, pooled = load_baseline(base, candidate, history=1 if sequential else history)
            chosen.append(found)
        return chosen[0]

    def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
        rows = read_runs(runset)
        return baseline_for(RunSet(path=str(runset), manifest={}, runs=rows)).runs, rows

    again = f"trajguard nightly {suite.path} --resume {runset}"
    run_job(
        Job(
            suite=suite,
            runset=runset,
            options=options,
            design=design,
            sides=sides,
            resume=resume is not None,
            resume_command=f"{again} (with the --baseline, --store and report options given now)",
        ),
        observe=observe,
    )
    candidate_set = load_runset(runset)
    result = compare_loaded(
        baseline_for(candidate_set),
        candidate_set,
        target,
        config=design.final_config(config),
        options=report,
        design=design.record(unit="runs"),
        adjust=design.settle,
        history=pooled,
        kind=ReportKind.NIGHTLY,
        require_power=suite.defaults.require_power if require_power is None else require_power,
        store=store,
    )
    return replace(result, runset=runset)
