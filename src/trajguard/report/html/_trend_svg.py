"""One metric of one scenario over the nights as an inline SVG: the nights' values as a line, their
95 % interval as a shaded band, the alarms and the baseline's promotions as marks.

Paths, not one element per night: a year of nights draws as a few kilobytes. A night the
scenario did not run breaks the line (no value is invented for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trajguard.report._format import usd
from trajguard.report.html._escape import attr, text

__all__ = ["HEIGHT", "WIDTH", "Mark", "Series", "chart_svg"]

WIDTH = 600
HEIGHT = 120
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 8, 8, 18


@dataclass(frozen=True, kw_only=True)
class Series:
    """The values to draw, one per night of the page (``None``: no value that night).

    Attributes:
        label: what is drawn (the chart's accessible name).
        values: the line.
        low: the interval's low ends (empty: no interval).
        high: its high ends.
        top: the y axis's top value (rates: 1).
        unit: how the axis's values are written: ``%`` (rates), ``distance`` (0 to 1),
            ``usd`` (US dollars), ``''`` (numbers).
    """

    label: str
    values: Sequence[float | None]
    low: Sequence[float | None] = ()
    high: Sequence[float | None] = ()
    top: float = 1.0
    unit: str = "%"


@dataclass(frozen=True, kw_only=True)
class Mark:
    """A vertical mark at one night: an alarm (``harmful`` or not) or a promotion."""

    night: int
    kind: str
    title: str


def _x(i: int, nights: int) -> float:
    inner = WIDTH - _LEFT - _RIGHT
    return _LEFT + (inner * i / (nights - 1) if nights > 1 else inner / 2)


def _y(value: float, top: float) -> float:
    inner = HEIGHT - _TOP - _BOTTOM
    share = min(max(value / top if top > 0 else 0.0, 0.0), 1.0)
    return _TOP + inner * (1 - share)


def _runs(values: Sequence[float | None]) -> list[list[int]]:
    """The nights with a value, as runs of consecutive nights."""
    runs: list[list[int]] = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


_STEPS = 100
"""The y axis's resolution inside a chart's plot: a hundredth of its height (a point of a rate)."""


def _level(value: float | None, top: float) -> int:
    share = min(max((value or 0.0) / top if top > 0 else 0.0, 0.0), 1.0)
    return _STEPS - round(_STEPS * share)


def _walk(xs: Sequence[int], ys: Sequence[int]) -> str:
    """A polyline in relative steps (``l dx dy dx dy …``): a few characters a night."""
    steps = ((x1 - x0, y1 - y0) for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:], strict=False))
    # a minus sign separates two numbers by itself
    return "".join(f"{dx}{'' if dy < 0 else ' '}{dy} " for dx, dy in steps)


def _line(values: Sequence[float | None], top: float) -> str:
    parts = []
    for run in _runs(values):
        ys = [_level(values[i], top) for i in run]
        if len(run) == 1:  # a lone night: a short tick, so it shows
            parts.append(f"M{run[0]} {ys[0]}h0.6")
        else:
            parts.append(f"M{run[0]} {ys[0]}l{_walk(run, ys)}")
    return "".join(parts)


def _band(low: Sequence[float | None], high: Sequence[float | None], top: float) -> str:
    both = [lo if hi is not None else None for lo, hi in zip(low, high, strict=True)]
    parts = []
    for run in _runs(both):
        back = run[::-1]
        upper = [_level(high[i], top) for i in run]
        lower = [_level(low[i], top) for i in back]
        parts.append(
            f"M{run[0]} {upper[0]}l{_walk(run, upper)}L{back[0]} {lower[0]}l{_walk(back, lower)}Z"
        )
    return "".join(parts)


def _plot(n: int) -> str:
    """The transform from (night, level) to the chart's pixels."""
    inner_w, inner_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    sx = inner_w / (n - 1) if n > 1 else 1.0
    dx = _LEFT if n > 1 else _LEFT + inner_w / 2
    return f"translate({dx:.1f} {_TOP}) scale({sx:.4f} {inner_h / _STEPS:.4f})"


def _label(value: float, unit: str) -> str:
    if unit == "%":
        return f"{100 * value:.0f}%"
    if unit == "usd":
        return usd(value)
    return f"{value:.1f}" if unit == "distance" else f"{value:,.0f}"


def chart_svg(series: Series, marks: Sequence[Mark], *, dates: Sequence[str]) -> str:
    """The chart of ``series`` over the nights dated ``dates``, with ``marks``."""
    n = len(dates)
    top = series.top if series.top > 0 else 1.0
    axis = "".join(
        f'<line class="grid" x1="{_LEFT}" x2="{WIDTH - _RIGHT}" y1="{_y(v, top):.1f}" '
        f'y2="{_y(v, top):.1f}"/><text class="tick" x="{_LEFT - 4}" y="{_y(v, top) + 3:.1f}">'
        f"{_label(v, series.unit)}</text>"
        for v in (0.0, top / 2, top)
    )
    ends = (
        f'<text class="tick start" x="{_LEFT}" y="{HEIGHT - 4}">{text(dates[0])}'
        f'</text><text class="tick" x="{WIDTH - _RIGHT}" y="{HEIGHT - 4}">'
        f"{text(dates[-1])}</text>"
        if dates
        else ""
    )
    drawn = "".join(
        f'<line class="flag {m.kind}" x1="{_x(m.night, n):.1f}" x2="{_x(m.night, n):.1f}" '
        f'y1="{_TOP}" y2="{HEIGHT - _BOTTOM}"><title>{text(m.title)}</title></line>'
        for m in marks
        if 0 <= m.night < n
    )
    band = _band(series.low, series.high, top) if series.low else ""
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label={attr(series.label)} data-nights="{n}" data-left="{_LEFT}" '
        f'data-right="{_RIGHT}">{axis}{ends}<g transform="{_plot(n)}">'
        + (f'<path class="band" d="{band}"/>' if band else "")
        + f'<path class="line" d="{_line(series.values, top)}"/></g>{drawn}</svg>'
    )
