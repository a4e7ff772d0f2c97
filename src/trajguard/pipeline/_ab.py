"""``trajguard ab``: two variants interleaved in one batch, compared; did B help?"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from trajguard.compare import ABResult, CompareConfig, compare_ab
from trajguard.errors import UsageError
from trajguard.pipeline._compare import with_suite_tolerances
from trajguard.pipeline._outputs import (
    ReportOptions,
    append_step_summary,
    check_targets,
    report_dir,
    write_texts,
)
from trajguard.pipeline._sequential import run_sequential_ab
from trajguard.report import render_ab_report, sequential_section, write_plots
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
    report: ReportOptions | None = None,
    observe: ObserverFactory | None = None,
) -> ABOutcome:
    """Run both variants of every scenario that has them, interleaved, and compare them.

    The comparison is two-sided and honours the suite's per-scenario tolerance bands. The run
    set and the report (``ab.md``) go to ``reports/<date>-ab-A-B/``.

    Raises:
        UsageError: the two variants are the same, or no scenario has both.
        SuiteError: the suite or a variant is invalid.
    """
    a, b = variants
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
        replace(config or CompareConfig(), two_sided=True),
        {s.id: s.tolerances for s in suite.scenarios},
    )
    folder = report_dir(reports, suffix=f"-ab-{a}-{b}")
    runset, target = folder / "runs", folder / "ab.md"
    check_targets(target)
    extra: tuple[str, ...] = ()
    if sequential:
        outcome = run_sequential_ab(
            suite, runset, options, variants=(a, b), config=config, observe=observe
        )
        extra = (sequential_section(outcome),)
    else:
        execute(suite, runset, options, observe=observe, label=f"{suite.name} {a} vs {b}")
    side = load_runset(runset)
    result = compare_ab(side.runs, a, b, config=config)
    links: dict[str, str] = {}
    if report.plots:
        frame = side.runs
        links = write_plots(
            folder, frame[frame["variant"] == a], frame[frame["variant"] == b], scenarios
        )
    text = render_ab_report(
        result, runs=side, plots=links, command=report.command, extra_sections=extra
    )
    write_texts({target: text})
    if report.step_summary:
        append_step_summary(text)
    return ABOutcome(result=result, report=target, runset=runset)
