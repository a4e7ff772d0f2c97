"""The baseline drift line: have a scenario's nights since a baseline moved beyond the band from
the baseline night's pass rate (all of them pooled, or the newest few alone)?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import norm
from scipy.stats import t as student_t

from trajguard.nights._alarms import _best_fit
from trajguard.nights._stats import newcombe

__all__ = ["LOOKS", "RECENT_NIGHTS", "DriftLine", "drift_line", "line_spread"]

RECENT_NIGHTS = 3
"""The newest nights the drift rule also looks at on their own (a slide the pooled mean hides)."""

LOOKS = 2
"""The drift line's looks (all the nights pooled, the newest alone), sharing its 0.05."""


@dataclass(frozen=True)
class DriftLine:
    """The drift line's reading.

    Attributes:
        difference: the nights' pooled pass rate minus the baseline night's.
        low: its interval's lower end (at 1 - 0.05 / ``LOOKS``).
        high: its upper end.
        recent_difference: the newest ``RECENT_NIGHTS`` nights' pass rate minus the baseline's.
        beyond_band: either difference's interval excludes 0 and the difference exceeds the band.
        spread: the nights' spread around their fitted line, in binomial units (at least 1).
    """

    difference: float
    low: float
    high: float
    recent_difference: float
    beyond_band: bool
    spread: float


def line_spread(passes: ArrayLike, runs: ArrayLike) -> tuple[float, int]:
    """Pearson's chi-square of the nights around the best step or broken line through them (the
    shapes the alarms are told in, weighted by runs) over its degrees of freedom (nights - 3),
    at least 1, and those degrees of freedom (``(1.0, 0)`` with fewer than 5 nights). A slide
    or a step moves the fitted shape, not the residuals, so neither reads as spread."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    x, n = x[n > 0], n[n > 0]  # a night without runs says nothing
    df = len(x) - 3
    if df < 2:
        return 1.0, 0
    pooled = x.sum() / n.sum()
    if not 0 < pooled < 1:
        return 1.0, df
    ss = _best_fit(x / n, np.arange(len(x), dtype=np.float64), n)[0]
    # the binomial variance at the pooled rate: a slide towards 0 or 1 does not shrink it
    return max(1.0, ss / (pooled * (1 - pooled)) / df), df


def _moved(d: float, low: float, high: float, band: float) -> bool:
    return (low > 0 or high < 0) and abs(d) > band


def drift_line(
    passes: ArrayLike, runs: ArrayLike, base_passes: float, base_runs: float, *, band: float
) -> DriftLine:
    """The drift line of the nights' pass counts (oldest first) against the baseline night's.

    Flaky nights count as fewer runs (their spread around the fitted line is the design effect,
    the baseline's night carrying it too); each look's interval is read at 1 - 0.05 / LOOKS
    (two looks at one baseline night alarm more often than one), with Student's t on the line's
    degrees of freedom, since that spread is itself estimated from the nights."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    phi, df = line_spread(x, n)
    tail = 0.05 / (2 * LOOKS)
    z = float(student_t.ppf(1 - tail, df)) if phi > 1 and df > 0 else float(norm.ppf(1 - tail))
    level = 2 * float(norm.cdf(z)) - 1  # Wilson's intervals at Student's quantile
    passed, total = float(x.sum()), float(n.sum())
    recent_passed, recent_total = float(x[-RECENT_NIGHTS:].sum()), float(n[-RECENT_NIGHTS:].sum())
    if total <= 0 or base_runs <= 0:
        return DriftLine(0.0, 0.0, 0.0, 0.0, beyond_band=False, spread=phi)
    bk, bn = base_passes / phi, base_runs / phi  # the intervals: flaky nights as fewer runs
    _, low, high = newcombe(passed / phi, total / phi, bk, bn, level=level)
    recent = (
        newcombe(recent_passed / phi, recent_total / phi, bk, bn, level=level)[1:]
        if recent_total > 0
        else (0.0, 0.0)
    )
    # the differences: of the rates themselves, where the spread cancels, so equal rates differ
    # by exactly 0 (not by the last digit of a division by the spread)
    base = base_passes / base_runs
    d = passed / total - base
    recent_d = recent_passed / recent_total - base if recent_total > 0 else 0.0
    return DriftLine(
        difference=d,
        low=float(low),
        high=float(high),
        recent_difference=recent_d,
        beyond_band=bool(_moved(d, low, high, band) or _moved(recent_d, *recent, band)),
        spread=float(phi),
    )
