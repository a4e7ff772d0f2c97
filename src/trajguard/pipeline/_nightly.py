"""``trajguard nightly``: run the suite, compare it with its baseline, report, exit code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from trajguard.compare import CompareConfig, Comparison, apply_gate
from trajguard.errors import StoreError
from trajguard.pipeline._compare import CompareOutcome, compare_loaded, with_suite_tolerances
from trajguard.pipeline._outputs import ReportOptions, check_targets, report_dir
from trajguard.pipeline._sequential import run_sequential
from trajguard.report import sequential_section
from trajguard.run import BatchOptions, ObserverFactory, execute
from trajguard.store import MANIFEST_FILE, load_runset, read_manifest
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
        sequential: run in looks and stop early.
        report: plots, JUnit, the command shown in the report, the job summary.
        observe: progress of the batch.

    Raises:
        StoreError: the suite has no baseline, or a run set or target cannot be used.
        ModelUnavailable: the model cannot be reached (nothing is written).
    """
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
    if sequential:
        outcome = run_sequential(
            suite, runset, options, baseline=base, config=config, observe=observe
        )
        extra = (sequential_section(outcome),)

        def adjust(comparison: Comparison) -> Comparison:
            # The stopping rule is the gate (its thresholds are what keep alpha): the
            # verdicts, headline, JUnit and exit code follow it.
            return apply_gate(comparison, outcome)
    else:
        execute(suite, runset, options, observe=observe)
    result = compare_loaded(
        load_runset(base),
        load_runset(runset),
        target,
        config=config,
        options=report,
        extra_sections=extra,
        adjust=adjust,
    )
    return replace(result, runset=runset)
