"""An A/B result → markdown (answer first, overall tests, then the per-scenario report)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trajguard.live.ab import ABResult
from trajguard.live.report import RunSetInfo, interval_label, md, render_report
from trajguard.live.results import METRIC_LABELS

__all__ = ["render_ab_report"]


def _estimate(metric: str, value: float | None) -> str:
    if value is None:
        return "—"
    if metric in ("pass_rate", "crash_rate"):
        return f"{100 * value:+.0f} pts"
    if metric == "step_count":
        return f"{value:+.2f} steps"
    return f"×{value:.2f}"


def render_ab_report(
    result: ABResult,
    *,
    runs: RunSetInfo,
    plots: Mapping[str, str] | None = None,
    command: str | None = None,
    extra_sections: tuple[str, ...] = (),
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
        ci = (
            "—"
            if o.ci is None
            else (
                f"[{100 * o.ci[0]:+.0f}, {100 * o.ci[1]:+.0f}] pts"
                if o.metric in ("pass_rate", "crash_rate")
                else f"[{o.ci[0]:.3g}, {o.ci[1]:.3g}]"
            )
        )
        lines.append(
            f"| {METRIC_LABELS.get(o.metric, o.metric)} | {md(o.test, limit=50)} | "
            f"{_estimate(o.metric, o.estimate)} | {ci} | {o.p_value:.3f} | {o.p_adjusted:.3f} | "
            f"{o.scenarios} |"
        )
    frame: Any = runs.runs
    side_a = RunSetInfo(f"{runs.path} (variant {a})", runs.manifest, frame[frame["variant"] == a])
    side_b = RunSetInfo(f"{runs.path} (variant {b})", runs.manifest, frame[frame["variant"] == b])
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
