"""The forest plot of a comparison, as inline SVG: one row per scenario, one panel per gating
metric, each effect with its interval over its tolerance band; regressions marked.

Each panel is a ``<g class="panel">`` of its own horizontal extent (``data-x0``, ``data-x1``),
clipped to it: its values are mapped inside it with a margin a marker's width wide, and its
tick labels are anchored inward at its edges, so nothing of one panel is drawn on another's
(an effect of -100 points sits at its own panel's left edge, not on its neighbour's border)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from trajguard._metric_table import metric_description
from trajguard.comparison import Comparison, MetricResult, Verdict
from trajguard.report.html._escape import attr, text

__all__ = ["VERDICT_COLOUR", "forest_svg"]

VERDICT_COLOUR = {  # Okabe-Ito
    Verdict.REGRESSED: "#D55E00",
    Verdict.IMPROVED: "#009E73",
    Verdict.CHANGED: "#E69F00",
    Verdict.CHANGED_WITHIN_TOLERANCE: "#CC79A7",
    Verdict.UNCHANGED: "#555555",
    Verdict.INCONCLUSIVE: "#999999",
}

_LABEL, _ROW, _TOP, _GAP, _WIDTH = 190, 18, 46, 24, 1120
_MARGIN = 10
"""Pixels kept free inside each side of a panel: a marker (a 6-pixel diamond) never crosses
its edge."""


def _band(comparison: Comparison, scenario: str, name: str) -> tuple[float, float] | None:
    m = metric_description(name)
    if m.tolerance is None:
        return None
    t = comparison.config.for_scenario(scenario).tolerance(m.tolerance)
    if m.kind == "shift":
        return 0.5 - t, 0.5 + t
    if m.kind == "ratio":
        return 1 / t if t else 0.0, t
    if m.kind == "tools":
        return 0.0, t
    return -t, t


def _scale(
    results: list[tuple[str, MetricResult]], comparison: Comparison, name: str
) -> tuple[float, float]:
    centre = metric_description(name).no_change
    values = [centre]
    for scenario, r in results:
        if r.estimate is not None:
            values.append(r.estimate)
        if r.ci is not None:
            values += list(r.ci)
        band = _band(comparison, scenario, name)
        if band is not None:
            values += list(band)
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.06 or 0.1
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, scale: float) -> list[float]:
    """Round values between ``lo`` and ``hi`` (in units of ``scale``: 100 for points)."""
    span = (hi - lo) * scale
    step = 10 ** math.floor(math.log10(span / 3)) if span > 0 else 1.0
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= 4:
            step *= factor
            break
    first = math.ceil(lo * scale / step)
    return [k * step / scale for k in range(first, math.floor(hi * scale / step) + 1)]


def _tick(name: str, value: float) -> str:
    kind = metric_description(name).kind
    if kind in ("rate", "paths", "order"):
        return f"{100 * value:+.0f}" if round(100 * value) else "0"
    return f"{value:.2g}"


def forest_svg(comparison: Comparison, ids: Mapping[str, str]) -> str:
    """The SVG of every scenario's gating effects (``ids``: scenario → its section's id)."""
    names = [
        n
        for n in comparison.config.metrics
        if n in comparison.config.gating
        and any(
            r.metric == n and r.kind == "gating" for s in comparison.scenarios for r in s.metrics
        )
    ]
    rows = comparison.scenarios
    panel = max(160, (_WIDTH - _LABEL) // max(len(names), 1) - _GAP)
    width = _LABEL + len(names) * (panel + _GAP)
    height = _TOP + _ROW * len(rows) + 24
    out = [
        f'<svg id="forest" class="forest" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        "<title>Forest plot: each scenario's gating effects with their intervals, over the "
        "tolerance band (shaded); regressions marked with a diamond</title>",
    ]
    for i, s in enumerate(rows):
        y = _TOP + i * _ROW
        if i % 2:
            out.append(f'<rect x="0" y="{y}" width="{width}" height="{_ROW}" fill="#f4f4f4"/>')
        colour = VERDICT_COLOUR[s.verdict]
        label = s.scenario if len(s.scenario) <= 28 else s.scenario[:27] + "…"
        out.append(
            f'<a href="#{ids[s.scenario]}"><text x="4" y="{y + 13}" font-size="12" '
            f'fill="{colour}" class="forest-label">{text(label)}<title>{text(s.scenario)} — '
            f"{text(s.verdict.value)}</title></text></a>"
        )
    for p, name in enumerate(names):
        results = [
            (s.scenario, r)
            for s in rows
            for r in s.metrics
            if r.metric == name and r.kind == "gating"
        ]
        out += _panel(comparison, name, (p, panel), results, height)
    out.append("</svg>")
    return "\n".join(out)


def _panel(
    comparison: Comparison,
    name: str,
    where: tuple[int, int],
    results: list[tuple[str, MetricResult]],
    height: int,
) -> list[str]:
    m = metric_description(name)
    lo, hi = _scale(results, comparison, name)
    p, width = where
    x0 = _LABEL + p * (width + _GAP)
    inner = width - 2 * _MARGIN

    def x(v: float) -> float:
        return round(x0 + _MARGIN + (min(max(v, lo), hi) - lo) / (hi - lo) * inner, 1)

    unit = " (pts)" if m.kind in ("rate", "paths", "order") else ""
    clip = f"forest-clip-{p}"
    out = [
        f'<g class="panel" data-metric={attr(name)} data-x0="{x0}" data-x1="{x0 + width}" '
        f'clip-path="url(#{clip})">',
        f'<clipPath id="{clip}"><rect x="{x0}" y="0" width="{width}" height="{height}"/>'
        "</clipPath>",
        f'<text x="{x0 + width / 2}" y="14" font-size="12" text-anchor="middle" '
        f'font-weight="bold">{text(m.heading)}{unit}</text>',
        f'<line x1="{x(m.no_change)}" x2="{x(m.no_change)}" y1="{_TOP - 6}" '
        f'y2="{height - 22}" stroke="#333" stroke-width="1"/>',
    ]
    scale = 100 if m.kind in ("rate", "paths", "order") else 1
    for tick in _ticks(lo, hi, scale):
        at = x(tick)  # a label at an edge reads inward: it stays in its panel
        anchor = "start" if at - x0 < 16 else "end" if x0 + width - at < 16 else "middle"
        out.append(
            f'<text x="{at}" y="{height - 6}" font-size="10" text-anchor="{anchor}" '
            f'fill="#555">{_tick(name, tick)}</text>'
        )
    out.append(
        f'<text x="{x(m.no_change)}" y="{_TOP - 10}" font-size="10" text-anchor="middle" '
        f'fill="#555">no change</text>'
    )
    order = {s.scenario: i for i, s in enumerate(comparison.scenarios)}
    for scenario, r in results:
        y = _TOP + order[scenario] * _ROW + _ROW / 2
        band = _band(comparison, scenario, name)
        if band is not None:
            out.append(
                f'<rect x="{x(band[0])}" y="{y - 6}" width="{max(x(band[1]) - x(band[0]), 0.5)}" '
                f'height="12" fill="#56B4E9" fill-opacity="0.25"/>'
            )
        if r.estimate is None:
            continue
        colour = VERDICT_COLOUR[r.verdict]
        effect, interval = m.format_effect(r.estimate, r.ci)
        tip = f"{scenario}: {m.heading} {effect} {interval} — {r.verdict.value}"
        out.append(f'<g class="effect" data-verdict={attr(r.verdict.value)}>')
        out.append(f"<title>{text(tip)}</title>")
        if r.ci is not None:
            out.append(
                f'<line x1="{x(r.ci[0])}" x2="{x(r.ci[1])}" y1="{y}" y2="{y}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
        cx = x(r.estimate)
        if r.verdict is Verdict.REGRESSED:
            out.append(
                f'<path d="M{cx} {y - 6}L{cx + 6} {y}L{cx} {y + 6}L{cx - 6} {y}Z" '
                f'fill="{colour}" stroke="#000" stroke-width="0.8"/>'
            )
        else:
            out.append(f'<circle cx="{cx}" cy="{y}" r="4" fill="{colour}"/>')
        out.append("</g>")
    out.append("</g>")
    return out
