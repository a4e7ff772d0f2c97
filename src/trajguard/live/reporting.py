"""Compare two run sets on disk and write the report (the I/O edge of compare / nightly)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trajguard._files import atomic_write_text
from trajguard.errors import StoreError
from trajguard.live.compare import CompareConfig, Comparison, Verdict, compare_runsets
from trajguard.live.junit import junit_xml
from trajguard.live.report import RunSetInfo, render_report
from trajguard.live.store import read_manifest, read_runs

__all__ = ["ReportFiles", "compare_and_report", "write_text"]


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`compare_and_report` produced."""

    comparison: Comparison
    report: Path
    junit: Path | None


def write_text(path: Path, text: str) -> None:
    """Write a text file atomically (temp file in the same directory, then rename)."""
    atomic_write_text(path, text)


QUIET = frozenset({Verdict.UNCHANGED, Verdict.INCONCLUSIVE})
ALL_PLOTS_UP_TO = 20


def plotted_scenarios(comparison: Comparison, *, all_plots: bool = False) -> list[str]:
    """Scenarios that get a distribution plot: all of them in suites of up to 20 scenarios (or
    with ``all_plots``), otherwise those whose verdict is neither unchanged nor inconclusive —
    a hundred PNGs of quiet scenarios cost 0.1 s each and nobody opens them."""
    scenarios = comparison.scenarios
    if all_plots or len(scenarios) <= ALL_PLOTS_UP_TO:
        return [s.scenario for s in scenarios]
    return [s.scenario for s in scenarios if s.verdict not in QUIET]


def load_side(path: Path) -> RunSetInfo:
    """A run set's manifest and runs."""
    return RunSetInfo(str(path), read_manifest(path), read_runs(path))


def compare_and_report(
    baseline_dir: Path,
    candidate_dir: Path,
    report: Path,
    *,
    config: CompareConfig,
    command: str | None = None,
    plots: bool = True,
    all_plots: bool = False,
    junit: Path | None = None,
    extra_sections: tuple[str, ...] = (),
    adjust: Callable[[Comparison], Comparison] | None = None,
) -> ReportFiles:
    """Compare two run sets; write the markdown report (plots beside it) and optional JUnit.

    ``adjust`` transforms the comparison before anything is written (the sequential gate sets
    the verdicts in sequential mode), so report, JUnit and the returned comparison agree.
    """
    baseline, candidate = load_side(baseline_dir), load_side(candidate_dir)
    for side in (baseline, candidate):
        variants = sorted(str(v) for v in side.runs["variant"].dropna().unique())
        if len(variants) > 1:
            raise StoreError(
                f"run set holds several variants ({', '.join(variants)}); compare would pool them",
                file=side.path,
                hint="compare variants with `trajguard ab`, or run one variant per run set",
            )
    comparison = compare_runsets(baseline.runs, candidate.runs, config=config)
    if adjust is not None:
        comparison = adjust(comparison)
    links: dict[str, str] = {}
    if plots:
        from trajguard.live.plots import write_plots

        links = write_plots(
            report.parent,
            baseline.runs,
            candidate.runs,
            plotted_scenarios(comparison, all_plots=all_plots),
        )
    text = render_report(
        comparison,
        baseline=baseline,
        candidate=candidate,
        plots=links,
        command=command,
        extra_sections=extra_sections,
    )
    write_text(report, text)
    if junit is not None:
        suite = str(candidate.manifest.get("suite") or "suite")
        write_text(junit, junit_xml(comparison, suite=suite))
    return ReportFiles(comparison, report, junit)
