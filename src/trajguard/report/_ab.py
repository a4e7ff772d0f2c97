"""An A/B result → markdown (answer first, overall tests, then the per-scenario report)."""

from __future__ import annotations

from trajguard._metric_table import metric_description
from trajguard.report._format import interval_label, md
from trajguard.report._markdown import render_report
from trajguard.report._pairwise import pairwise_section
from trajguard.results import ABOverall, ReportDocument

__all__ = ["detectable_sentence", "render_ab_report"]


def detectable_sentence(result: ABOverall) -> str:
    """What difference the A/B's runs could have detected, in one sentence."""
    if result.detectable_difference is None:
        return (
            "No scenario has judged runs of both variants, so no detectable difference is stated."
        )
    return (
        f"These runs could detect an average pass-rate difference of "
        f"{100 * result.detectable_difference:.0f} points (80% power, two-sided, Holm-adjusted)."
    )


def render_ab_report(document: ReportDocument) -> str:
    """The A/B report: the plain answer, the overall stratified tests, every scenario.

    Raises:
        ValueError: the document is not an A/B comparison's.
    """
    result = document.ab
    if result is None:
        raise ValueError(f"a {document.kind} report document has no A/B answer to render")
    a, b = result.variant_a, result.variant_b
    detectable = detectable_sentence(result)
    lines = [
        f"# trajguard A/B: {md(b)} against {md(a)}",
        "",
        f"**Answer: {md(b)} {result.answer.value}.** {md(result.summary, limit=1200)}",
        "",
        detectable,
        "",
        "## Overall (stratified by scenario)",
        "",
        f"| metric | test | B vs A | {interval_label(document.comparison.config.alpha)} | p "
        "| adj. p | scenarios |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for o in result.overall:
        m = metric_description(o.metric)
        lines.append(
            f"| {m.label} | {md(o.test, limit=50)} | {m.format_difference(o.estimate)} | "
            f"{m.format_interval(o.ci)} | {o.p_value:.3f} | {o.p_adjusted:.3f} | {o.scenarios} |"
        )
    if result.pairwise is not None:
        alpha = document.comparison.config.alpha
        lines += ["", *pairwise_section(result.pairwise, a, b, alpha)]
    per_scenario = render_report(document)
    body = per_scenario.split("\n", 1)[1]  # drop its title: this report has its own
    lines += ["", f"## Per scenario ({md(a)} plays the baseline, two-sided tests)", body]
    return "\n".join(lines)
