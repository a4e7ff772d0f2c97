"""Formatting shared by every report: safe markdown cells, verdict marks, p-values, intervals.

Model-produced text (tool names a weak model invented, final outputs) goes through :func:`md`
before it enters a table, so it can neither break the table nor inject HTML.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from trajguard._metric_table import metric_description
from trajguard._text import printable
from trajguard.comparison import MetricResult, PassK, Verdict

__all__ = [
    "EFFECT_LEGEND",
    "MARK",
    "effect_cells",
    "interval_label",
    "md",
    "p_cell",
    "pass_k_cells",
    "usd",
    "value_cell",
]

MARK = {
    Verdict.REGRESSED: "🔴 regressed",
    Verdict.IMPROVED: "🟢 improved",
    Verdict.UNCHANGED: "⚪ unchanged",
    Verdict.CHANGED_WITHIN_TOLERANCE: "🟡 changed within tolerance",
    Verdict.CHANGED: "🟠 changed",
    Verdict.INCONCLUSIVE: "⚫ inconclusive",
}
"""How each verdict is shown."""

EFFECT_LEGEND = (
    "Effects: Δ = candidate − baseline rate (Newcombe interval); A = P(candidate > baseline) + "
    "½P(tie), 0.5 is no change; × = geometric-mean ratio candidate / baseline (gmean = geometric "
    "mean); TVD = total-variation distance of the tool mix (calls per tool plus one end per run: "
    "the share that would have to move to another tool), 0 is no change; new = share of "
    "candidate runs with a tool sequence the baseline never showed, minus the baseline's own "
    "rate of new sequences."
)


def md(text: object, *, limit: int = 80) -> str:
    """Text made safe for a markdown table cell: control characters, HTML, pipes, backticks
    and newlines escaped."""
    value = printable(" ".join(printable(text, keep="\n\t").split()))
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    value = html.escape(value, quote=False)
    for char in "|`*_[]":
        value = value.replace(char, "\\" + char)
    return value


def value_cell(value: float | None, name: str) -> str:
    """One batch's value of metric ``name``."""
    return metric_description(name).format_value(value)


def interval_label(alpha: float) -> str:
    """Column header of intervals computed at confidence ``1 - alpha``."""
    return f"{100 * (1 - alpha):.4g}% CI"


def effect_cells(result: MetricResult) -> tuple[str, str]:
    """The effect and its interval of one metric result."""
    return metric_description(result.metric).format_effect(result.estimate, result.ci)


def p_cell(value: float | None) -> str:
    """A p-value: three decimals, or ``<0.001``; ``—`` when there is none."""
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def pass_k_cells(baseline: Sequence[PassK], candidate: Sequence[PassK]) -> str:
    """pass^k at k = 1, 2, 4, 8 with intervals, for both batches."""
    shown = {1, 2, 4, 8}
    cells = []
    for label, values in (("baseline", baseline), ("candidate", candidate)):
        parts = [
            f"k={p.k}: {100 * p.estimate:.0f}% [{100 * p.low:.0f}, {100 * p.high:.0f}]"
            for p in values
            if p.k in shown
        ]
        cells.append(f"{label} " + ", ".join(parts))
    return " · ".join(cells)


def usd(value: float | None) -> str:
    """US dollars to three significant digits, never in exponent form ("$0.000123"); a dash
    for an unknown cost."""
    if value is None:
        return "–"
    if value == 0:
        return "$0"
    decimals = max(2, 2 - math.floor(math.log10(abs(value))))
    return f"${value:.{decimals}f}"
