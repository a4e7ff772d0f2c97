"""Equivalence (TOST) p-values: for two rates, and bounds for batches that are constant."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

__all__ = ["constant_bound", "constant_median_tost", "constant_shift_tost", "tost_rates"]


def tost_rates(x_c: int, n_c: int, x_b: int, n_b: int, margin: float) -> float:
    """Equivalence p-value for ``|p_c - p_b| < margin`` (score TOST); 1.0 when undefined."""
    # imported here: statsmodels.stats.proportion costs about 0.4 s, and only this test needs it
    from statsmodels.stats.proportion import tost_proportions_2indep

    with np.errstate(all="ignore"):
        res = tost_proportions_2indep(x_c, n_c, x_b, n_b, -margin, margin, method="score")
    p = float(res.pvalue)
    return min(p, 1.0) if math.isfinite(p) else 1.0


def constant_bound(n: int, alpha: float) -> float:
    """Upper ``1 - alpha/2`` bound on the share of runs that differ from a value all ``n`` had.

    The Clopper-Pearson bound for 0 events in ``n``; the two arms' bounds hold jointly with
    probability at least ``1 - alpha`` (Bonferroni), which is what a level-``alpha`` equivalence
    claim needs.
    """
    return float(1.0 - (alpha / 2) ** (1.0 / n))


def constant_shift_tost(n_b: int, n_c: int, margin: float) -> float:
    """Equivalence p-value for ``|A - 1/2| < margin`` when both arms are constant and equal.

    ``A = P(C > B) + P(C = B)/2`` differs from 1/2 by at most half the chance that a run differs
    from the shared value, which :func:`constant_bound` bounds in each arm. The p-value is the
    smallest ``alpha`` at which the bound fits inside the margin.
    """

    def excess(alpha: float) -> float:
        return (constant_bound(n_b, alpha) + constant_bound(n_c, alpha)) / 2 - margin

    if excess(1.0) >= 0:
        return 1.0
    if excess(1e-300) < 0:
        return 1e-300
    return float(optimize.brentq(excess, 1e-300, 1.0, xtol=1e-12, rtol=1e-10))


def constant_median_tost(n_b: int, n_c: int, ratio: float, low: float, high: float) -> float:
    """Equivalence p-value for the ratio of medians when each arm is constant.

    If fewer than half of the runs can differ from an arm's constant, that constant is the arm's
    median; by :func:`constant_bound` this holds in both arms at every ``alpha > 2**(1 - n)``.
    """
    if not low < ratio < high:
        return 1.0
    return min(1.0, 2.0 ** (1 - min(n_b, n_c)))
