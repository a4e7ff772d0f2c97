"""What the trend's alarm can see at the runs a night a suite uses: the chance that a 20-point
pass-rate drop of one scenario (45 % → 25 %) is named within 5 nights, at the drop statistic's
threshold, and the runs a night at which that chance reaches 80 %.

The CUSUM's run length is read off Brook and Evans' Markov chain (the CUSUM's range cut into
cells); the self-starting procedure sees a step as a known-reference CUSUM sees a step
:data:`SELF_START` times its size (its reference and spread are estimated from the nights
since its start). ``benchmarks/bench_trend_monitor.py`` prints this figure beside the measured
one (RESULTS.md, "Spending the false-alarm budget on drops").
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from trajguard.nights._monitor import ALLOWANCE

__all__ = ["DROP", "NAMED_WITHIN", "TARGET_NAMED", "drop_named", "runs_for"]

DROP = (0.45, 0.25)
"""The pass-rate drop the figure is for: the issue's 20 points, from a demo-shaped rate."""

NAMED_WITHIN = 5
"""Nights from the change's first night within which the drop must be named."""

TARGET_NAMED = 0.80
"""The share of drops the procedure should name within :data:`NAMED_WITHIN` nights."""

SELF_START = 0.91
"""A step's size as the self-starting CUSUM sees it, in known-reference steps: fitted to the
share named measured on simulated binomial suites of 4 and 20 scenarios at 20, 30 and 40 runs
a night (``bench_trend_monitor.py --only drop``; each figure within the measured 95 %
interval, 0.04 below it to 0.04 above; resampled real nights are named more often)."""

_CELLS = 200
_MOST_RUNS = 400


def _crossed(h: float, shift: float, k: float, nights: int) -> float:
    """The chance a one-sided CUSUM from 0 with threshold ``h`` and reference value ``k`` on
    N(shift, 1) scores crosses ``h`` within ``nights``."""
    width = 2 * h / (2 * _CELLS - 1)
    values = np.arange(_CELLS) * width
    tops = (np.arange(_CELLS) + 0.5) * width
    below = norm.cdf(tops[None, :] - values[:, None] + k - shift)
    moves = np.diff(np.hstack([np.zeros((_CELLS, 1)), below]), axis=1)
    state = np.zeros(_CELLS)
    state[0] = 1.0
    for _ in range(nights):
        state = state @ moves
    return float(min(1.0, max(0.0, 1.0 - state.sum())))


def drop_named(h: float, runs: float, *, k: float = ALLOWANCE) -> float:
    """The chance a drop of :data:`DROP` at ``runs`` runs a night is named within
    :data:`NAMED_WITHIN` nights by a drop statistic of threshold ``h``."""
    if runs <= 0:
        return 0.0
    before, after = DROP
    step = (math.asin(math.sqrt(before)) - math.asin(math.sqrt(after))) * 2 * math.sqrt(runs)
    return _crossed(h, SELF_START * step, k, NAMED_WITHIN)


def runs_for(h: float, *, k: float = ALLOWANCE) -> int | None:
    """The fewest runs a night at which :func:`drop_named` reaches :data:`TARGET_NAMED`
    (``None``: not within 400)."""
    if drop_named(h, _MOST_RUNS, k=k) < TARGET_NAMED:
        return None
    low, high = 1, _MOST_RUNS
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if drop_named(h, mid, k=k) >= TARGET_NAMED else (mid + 1, high)
    return low
