"""``trajguard ab``: two variants interleaved in one batch, compared; did B help?"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from trajguard.comparison import ABResult, CompareConfig, EscalationDesign, compare_ab
from trajguard.errors import UsageError
from trajguard.pipeline._compare import with_suite_gates, with_suite_tolerances
from trajguard.pipeline._floors import floors_of
from trajguard.pipeline._looks import (
    Job,
    choose_design,
    one_design,
    run_job,
    variant_sides,
)
from trajguard.pipeline._outputs import (
    ReportOptions,
    check_targets,
    plotted_scenarios,
    report_dir,
    resumable_folder,
    run_payload,
    write_outputs,
)
from trajguard.report import build_ab_document, floors_summary
from trajguard.results import ReportDocument
from trajguard.runner import BatchOptions, ObserverFactory, ask_pairs
from trajguard.store import load_runset
from trajguard.suite import BASE_VARIANT, load_suite

__all__ = ["ABOutcome", "ab"]


@dataclass(frozen=True, kw_only=True)
class ABOutcome:
    """What an A/B comparison produced."""

    result: ABResult
    document: ReportDocument
    """Everything the report says (written beside it as ``comparison.json``)."""
    report: Path
    runset: Path
    junit: Path | None = None

    @property
    def headline(self) -> str:
        """Two lines: the answer with the report's path, then the summary in words."""
        r = self.result
        line = f"{r.variant_b} {r.answer.value} compared with {r.variant_a} → {self.report}\n" + (
            r.summary
        )
        floors = self.document.floors
        return line if floors is None else f"{line}\n{floors_summary(floors)}"

    @property
    def exit_code(self) -> int:
        """0, or 1 when a floor of either variant is not met (an A/B answer never fails)."""
        return self.document.exit_code


def ab(
    suite_path: Path,
    *,
    variants: tuple[str, str],
    options: BatchOptions | None = None,
    config: CompareConfig | None = None,
    reports: Path = Path("reports"),
    sequential: bool = False,
    max_runs: int | None = None,
    report: ReportOptions | None = None,
    observe: ObserverFactory | None = None,
    resume: Path | None = None,
) -> ABOutcome:
    """Run both variants of every scenario that has them, interleaved, and compare them.

    The comparison is two-sided and honours the suite's per-scenario tolerance bands. The run
    set and the report (``ab.md``, and JUnit when asked) go to ``reports/<date>-ab-A-B/``. The
    design runs through the same job runner as the nightly's: with ``max_runs`` the scenarios
    that lean towards a difference get more runs of both variants
    (:class:`trajguard.comparison.EscalationDesign`), and the overall answer stays that of the first
    look (every scenario at N); with ``sequential`` scenarios stop on a clear pass-rate
    difference. The design settles the per-scenario verdicts, and the answer's words follow
    them. When the suite has a ``pairwise`` judge, it is asked which variant's answer to each
    input is better (:func:`trajguard.runner.ask_pairs`), and its test joins the answer's.
    ``resume``: the run set of an interrupted A/B (``reports/<date>-ab-A-B/runs``): its
    batch is finished, then compared and reported beside it.

    Raises:
        UsageError: the two variants are the same, no scenario has both, or both
            ``sequential`` and ``max_runs``.
        SuiteError: the suite or a variant is invalid.
    """
    a, b = variants
    one_design(sequential=sequential, max_runs=max_runs)
    if a == b:
        raise UsageError(
            "give --variant exactly twice, with two different names",
            hint="e.g. trajguard ab suites/demo.yaml --variant base --variant terse",
        )
    suite = load_suite(suite_path)
    options = options or BatchOptions()
    scenarios = list(options.scenarios) or [
        s.id for s in suite.scenarios if {a, b} <= {BASE_VARIANT, *s.variants, *suite.variants}
    ]
    if not scenarios:
        raise UsageError(
            f"no scenario of suite {suite.name!r} has both variants {a!r} and {b!r}",
            hint="define the variants in the suite file",
        )
    options = replace(options, scenarios=tuple(scenarios), variants=(a, b))
    report = report or ReportOptions()
    config = with_suite_tolerances(
        replace(config or CompareConfig(), two_sided=True, suite_share=0.0),
        {s.id: s.tolerances for s in suite.scenarios},
    )
    config = with_suite_gates(config, suite.defaults.gate)
    design = choose_design(
        sequential=sequential,
        max_runs=max_runs,
        suite=suite,
        options=options,
        config=config,
        variants=(a, b),
    )
    if resume is not None:
        folder, runset = resumable_folder(resume), resume
    else:
        folder = report_dir(reports, suffix=f"-ab-{a}-{b}")
        runset = folder / "runs"
    target = folder / "ab.md"
    check_targets(target, report.junit)
    job = Job(
        suite=suite,
        runset=runset,
        options=options,
        design=design,
        sides=variant_sides(runset, (a, b)),
        label=f"{suite.name} {a} vs {b}",
        resume=resume is not None,
        resume_command=f"trajguard ab {suite.path} --variant {a} --variant {b} --resume {runset}",
    )
    run_job(job, observe=observe)
    side = load_runset(runset)
    # The overall answer is the first look's under escalation, where every scenario had N runs
    # and none was chosen by its data; the pairwise judge is asked about the same runs.
    escalated = isinstance(design, EscalationDesign)
    answering = side.runs
    if isinstance(design, EscalationDesign):
        answering = side.runs[side.runs["run_index"] < design.plan.first]
    preferences = None if suite.pairwise is None else ask_pairs(suite, answering, (a, b))
    result = compare_ab(
        side.runs,
        a,
        b,
        config=design.final_config(config),
        preferences=None if escalated else preferences,
    )
    per_scenario = design.settle(result.per_scenario)
    if escalated:
        result = compare_ab(answering, a, b, config=config, preferences=preferences)
    result = result.with_per_scenario(per_scenario)
    plotted = plotted_scenarios(result.per_scenario, all_plots=report.all_plots)
    document = build_ab_document(
        result,
        runs=side,
        plots=plotted if report.plots else [],
        command=report.command,
        design=design.record(unit="runs per variant"),
        explain=report.explain,
    )
    document = replace(document, floors=floors_of(side))
    runs = None
    if report.html:
        frame = side.runs
        runs = run_payload(
            document,
            replace(side, runs=frame[frame["variant"] == a]),
            replace(side, runs=frame[frame["variant"] == b]),
            path=Path(side.path),
        )
    write_outputs(document, target, options=report, runs=runs)
    return ABOutcome(
        result=result, document=document, report=target, runset=runset, junit=report.junit
    )
