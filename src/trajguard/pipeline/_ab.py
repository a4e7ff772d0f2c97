"""``trajguard ab``: two variants interleaved in one batch, compared; did B help?"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from trajguard.compare import ABResult, CompareConfig, apply_escalation, compare_ab
from trajguard.errors import UsageError
from trajguard.pipeline._compare import with_suite_tolerances
from trajguard.pipeline._escalation import run_escalation
from trajguard.pipeline._outputs import (
    ReportOptions,
    append_step_summary,
    check_targets,
    report_dir,
    write_texts,
)
from trajguard.pipeline._sequential import run_sequential_ab
from trajguard.report import (
    build_ab_document,
    escalation_section,
    render_markdown,
    sequential_section,
    write_plots,
)
from trajguard.run import BatchOptions, ObserverFactory, execute
from trajguard.store import load_runset
from trajguard.suite import BASE_VARIANT, load_suite

__all__ = ["ABOutcome", "ab"]


@dataclass(frozen=True, kw_only=True)
class ABOutcome:
    """What an A/B comparison produced."""

    result: ABResult
    report: Path
    runset: Path

    @property
    def headline(self) -> str:
        """Two lines: the answer with the report's path, then the summary in words."""
        r = self.result
        return f"{r.variant_b} {r.answer.value} compared with {r.variant_a} → {self.report}\n" + (
            r.summary
        )


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
) -> ABOutcome:
    """Run both variants of every scenario that has them, interleaved, and compare them.

    The comparison is two-sided and honours the suite's per-scenario tolerance bands. The run
    set and the report (``ab.md``) go to ``reports/<date>-ab-A-B/``. With ``max_runs``, the
    scenarios that lean towards a difference get more runs of both variants
    (:func:`trajguard.compare.escalation_design`); the overall answer stays that of the first
    look (every scenario at N), where no scenario was chosen by its data.

    Raises:
        UsageError: the two variants are the same, no scenario has both, or both
            ``sequential`` and ``max_runs``.
        SuiteError: the suite or a variant is invalid.
    """
    a, b = variants
    if sequential and max_runs is not None:
        raise UsageError("--sequential and --max-runs are two designs; give one of them")
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
    folder = report_dir(reports, suffix=f"-ab-{a}-{b}")
    runset, target = folder / "runs", folder / "ab.md"
    check_targets(target)
    extra: tuple[str, ...] = ()
    label = f"{suite.name} {a} vs {b}"
    escalation = None
    if sequential:
        outcome = run_sequential_ab(
            suite, runset, options, variants=(a, b), config=config, observe=observe
        )
        extra = (sequential_section(outcome),)
    elif max_runs is not None:

        def split(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
            return rows[rows["variant"] == a], rows[rows["variant"] == b]

        escalation = run_escalation(
            suite,
            runset,
            options,
            max_runs=max_runs,
            config=config,
            split=split,
            observe=observe,
            label=label,
        )
        extra = (escalation_section(escalation.design, escalation.stops, unit="runs per variant"),)
    else:
        execute(suite, runset, options, observe=observe, label=label)
    side = load_runset(runset)
    result = compare_ab(side.runs, a, b, config=config)
    if escalation is not None:
        first_n = escalation.design.first
        first_rows = side.runs[side.runs["run_index"] < first_n]
        first = compare_ab(first_rows, a, b, config=config)
        per_scenario = apply_escalation(result.per_scenario, escalation.stops, escalation.first)
        result = replace(first, per_scenario=per_scenario)
    compared = {s.scenario for s in result.per_scenario.scenarios}
    document = build_ab_document(
        result,
        runs=side,
        plots=[s for s in scenarios if s in compared] if report.plots else [],
        command=report.command,
        extra_sections=extra,
    )
    if report.plots:
        write_plots(folder, document)
    text = render_markdown(document)
    write_texts({target: text})
    if report.step_summary:
        append_step_summary(text)
    return ABOutcome(result=result, report=target, runset=runset)
