"""An A/B result → markdown (answer first, overall tests, then the per-scenario report)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from trajguard.compare import ABResult, metric
from trajguard.report._format import interval_label, md
from trajguard.report._markdown import render_report
from trajguard.store import RunSet

__all__ = ["render_ab_report"]


def render_ab_report(
    result: ABResult,
    *,
    runs: RunSet,
    plots: Mapping[str, str] | None = None,
    command: str | None = None,
    extra_sections: Sequence[str] = (),
) -> str:
    """The A/B report: the plain answer, the overall stratified tests, every scenario."""
    a, b = result.variant_a, result.variant_b
    detectable = (
        "No scenario has judged runs of both variants, so no detectable difference is stated."
        if result.detectable_difference is None
        else f"These runs could detect an average pass-rate difference of "
        f"{100 * result.detectable_difference:.0f} points (80% power, two-sided, Holm-adjusted)."
    )
    lines = [
        f"# trajguard A/B: {md(b)} against {md(a)}",
        "",
        f"**Answer: {md(b)} {result.answer.value}.** {md(result.summary, limit=400)}",
        "",
        detectable,
        "",
        "## Overall (stratified by scenario)",
        "",
        f"| metric | test | B vs A | {interval_label(result.per_scenario.config.alpha)} | p "
        "| adj. p | scenarios |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for o in result.overall:
        m = metric(o.metric)
        lines.append(
            f"| {m.label} | {md(o.test, limit=50)} | {m.format_difference(o.estimate)} | "
            f"{m.format_interval(o.ci)} | {o.p_value:.3f} | {o.p_adjusted:.3f} | {o.scenarios} |"
        )
    frame = runs.runs
    side_a = replace(runs, path=f"{runs.path} (variant {a})", runs=frame[frame["variant"] == a])
    side_b = replace(runs, path=f"{runs.path} (variant {b})", runs=frame[frame["variant"] == b])
    per_scenario = render_report(
        result.per_scenario,
        baseline=side_a,
        candidate=side_b,
        plots=plots,
        command=command,
        extra_sections=extra_sections,
    )
    body = per_scenario.split("\n", 1)[1]  # drop its title: this report has its own
    lines += ["", f"## Per scenario ({md(a)} plays the baseline, two-sided tests)", body]
    return "\n".join(lines)
