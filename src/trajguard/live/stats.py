"""Exact tests and intervals for rates, equivalence bounds, multiplicity and pass^k.

Pure functions over counts and arrays. Rates are compared with Boschloo's exact test: the p-values
of every outcome of an ``n_b`` x ``n_c`` experiment are computed at once and cached, so the p-value
of an observed table, its minimum attainable value and the exact power of the test
(:mod:`trajguard.live.power`) all come from one table.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import optimize, special, stats
from statsmodels.stats.proportion import tost_proportions_2indep

__all__ = [
    "MAX_EXACT_TABLES",
    "Alternative",
    "bh",
    "binom_pmf",
    "boschloo_feasible",
    "boschloo_min_pvalue",
    "boschloo_pvalue",
    "boschloo_pvalues",
    "constant_bound",
    "constant_median_tost",
    "constant_shift_tost",
    "fisher_min_pvalue",
    "fisher_pvalue",
    "holm",
    "newcombe_interval",
    "norm_ppf",
    "pass_hat_k",
    "pass_k_interval",
    "t_cdf",
    "t_ppf",
    "t_sf",
    "tost_rates",
    "wilson_interval",
]

Alternative = Literal["greater", "less", "two-sided"]
FloatArray = npt.NDArray[np.float64]

# Nuisance-parameter grid for the Boschloo supremum. With parabolic refinement of the grid maximum
# the p-values agree with scipy.stats.boschloo_exact (shgo) to 2.3e-5 relative at n <= 100 per arm.
_GRID = 257
_CHUNK = 32
# Tables above this size (about 150 runs per arm) cost too much memory; Fisher's test is used.
MAX_EXACT_TABLES = 151 * 151


def binom_pmf(n: int, p: npt.ArrayLike) -> FloatArray:
    """Binomial probabilities of 0..n successes, one row per probability in ``p``.

    Same values as ``scipy.stats.binom.pmf`` without its per-call overhead, which dominated the
    p-value tables and the power search.
    """
    k = np.arange(n + 1)
    pi = np.atleast_1d(np.asarray(p, dtype=float))[:, None]
    log_choose = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return np.asarray(
        np.exp(log_choose + special.xlogy(k, pi) + special.xlogy(n - k, 1 - pi)), dtype=float
    )


@lru_cache(maxsize=64)
def _boschloo_greater(n_b: int, n_c: int) -> FloatArray:
    """One-sided Boschloo p-values of every outcome, H1: baseline rate > candidate rate.

    Entry ``[x_b, x_c]`` is ``scipy.stats.boschloo_exact([[x_b, x_c], [n_b - x_b, n_c - x_c]],
    alternative="greater").pvalue``: the supremum over the common success probability of the
    probability of a Fisher one-sided p-value at most the observed one.
    """
    x_b = np.arange(n_b + 1)
    x_c = np.arange(n_c + 1)
    fisher = stats.hypergeom.sf(x_b[:, None] - 1, n_b + n_c, x_b[:, None] + x_c[None, :], n_b)
    flat = fisher.ravel()
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    # Tables whose Fisher p-values tie (relative 1e-13, as scipy) share the tail that includes them.
    last = np.r_[ordered[1:] > ordered[:-1] * (1 + 1e-13), True]
    idx = np.where(last, np.arange(ordered.size), ordered.size)
    group_end = np.minimum.accumulate(idx[::-1])[::-1]
    grid = np.linspace(0.0, 1.0, _GRID)
    pmf_b, pmf_c = binom_pmf(n_b, grid), binom_pmf(n_c, grid)
    tails = np.empty((_GRID, ordered.size))
    for start in range(0, _GRID, _CHUNK):
        rows = slice(start, start + _CHUNK)
        joint = pmf_b[rows, :, None] * pmf_c[rows, None, :]
        tails[rows] = np.cumsum(joint.reshape(len(joint), -1)[:, order], axis=1)[:, group_end]
    cols = np.arange(ordered.size)
    best = tails.argmax(axis=0)
    mid = np.clip(best, 1, _GRID - 2)
    left, centre, right = tails[mid - 1, cols], tails[mid, cols], tails[mid + 1, cols]
    curvature = left - 2 * centre + right
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = np.where(curvature < 0, centre - (left - right) ** 2 / (8 * curvature), centre)
    pvalues = np.empty(ordered.size)
    pvalues[order] = np.minimum(np.maximum(tails[best, cols], vertex), 1.0)
    result = pvalues.reshape(n_b + 1, n_c + 1)
    result.flags.writeable = False
    return result


def boschloo_pvalues(n_b: int, n_c: int, alternative: Alternative = "greater") -> FloatArray:
    """Boschloo p-values of every outcome ``[x_b, x_c]`` of ``n_b`` and ``n_c`` trials.

    Args:
        n_b: baseline trials (at least 1).
        n_c: candidate trials (at least 1).
        alternative: ``"greater"``: the baseline rate is higher; ``"less"``: the candidate rate is
            higher; ``"two-sided"``: twice the smaller one-sided p-value, at most 1 (as scipy).

    Returns:
        A read-only ``(n_b + 1, n_c + 1)`` array.
    """
    greater = _boschloo_greater(n_b, n_c)
    if alternative == "greater":
        return greater
    # Swapping success and failure turns "baseline higher" into "candidate higher".
    less = greater[::-1, ::-1]
    if alternative == "less":
        return less
    return np.asarray(np.minimum(2 * np.minimum(greater, less), 1.0), dtype=float)


def boschloo_pvalue(x_b: int, n_b: int, x_c: int, n_c: int, alternative: Alternative) -> float:
    """Boschloo's exact test of ``x_b``/``n_b`` (baseline) against ``x_c``/``n_c`` (candidate)."""
    return float(boschloo_pvalues(n_b, n_c, alternative)[x_b, x_c])


def boschloo_feasible(n_b: int, n_c: int) -> bool:
    """Whether the p-value table is small enough to compute (up to 150 runs per arm)."""
    return (n_b + 1) * (n_c + 1) <= MAX_EXACT_TABLES


def fisher_pvalue(x_b: int, n_b: int, x_c: int, n_c: int, alternative: Alternative) -> float:
    """Fisher's exact test (two-sided: twice the smaller one-sided p-value, at most 1).

    Valid at any size and close to Boschloo's test when the arms are large; used where
    Boschloo's table would be too large.
    """
    total, successes = n_b + n_c, x_b + x_c
    greater = float(stats.hypergeom.sf(x_b - 1, total, successes, n_b))
    less = float(stats.hypergeom.cdf(x_b, total, successes, n_b))
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2 * min(greater, less))


def fisher_min_pvalue(n_b: int, n_c: int) -> float:
    """The smallest one-sided p-value of Fisher's test: ``1 / C(n_b + n_c, n_b)``."""
    return 1.0 / math.comb(n_b + n_c, n_b)


def boschloo_min_pvalue(n_b: int, n_c: int, alternative: Alternative = "greater") -> float:
    """The smallest p-value Boschloo's test can return with these sample sizes."""
    return float(boschloo_pvalues(n_b, n_c, alternative).min())


def t_sf(x: float, df: float) -> float:
    """Student t survival function (``scipy.stats.t.sf`` without its per-call overhead)."""
    return float(special.stdtr(df, -x))


def t_cdf(x: float, df: float) -> float:
    """Student t distribution function."""
    return float(special.stdtr(df, x))


def t_ppf(q: float, df: float) -> float:
    """Student t quantile."""
    return float(special.stdtrit(df, q))


def norm_ppf(q: float) -> float:
    """Standard normal quantile."""
    return float(special.ndtri(q))


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials; ``(0, 1)`` when ``n == 0``."""
    if n == 0:
        return 0.0, 1.0
    z = norm_ppf(0.5 + confidence / 2)
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    x_c: int, n_c: int, x_b: int, n_b: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe hybrid-score interval for ``x_c/n_c - x_b/n_b`` (both ``n`` at least 1)."""
    p_c, p_b = x_c / n_c, x_b / n_b
    l_c, u_c = wilson_interval(x_c, n_c, confidence)
    l_b, u_b = wilson_interval(x_b, n_b, confidence)
    diff = p_c - p_b
    return (
        diff - math.sqrt((p_c - l_c) ** 2 + (u_b - p_b) ** 2),
        diff + math.sqrt((u_c - p_c) ** 2 + (p_b - l_b) ** 2),
    )


def tost_rates(x_c: int, n_c: int, x_b: int, n_b: int, margin: float) -> float:
    """Equivalence p-value for ``|p_c - p_b| < margin`` (score TOST); 1.0 when undefined."""
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


def holm(pvalues: npt.ArrayLike, alpha: float = 0.05) -> FloatArray:
    """Holm-adjusted p-values (family-wise error control); empty in, empty out.

    The values of ``statsmodels.stats.multitest.multipletests(p, method="holm")`` (which also
    runs a full garbage collection on every call, 50 ms). ``alpha`` does not change them.
    """
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    steps = (p.size - np.arange(p.size)) * p[order]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


def bh(pvalues: npt.ArrayLike) -> FloatArray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate); empty in, empty out."""
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=float)


def pass_hat_k(c: int, n: int, k: int) -> float:
    """Unbiased pass^k of one scenario, ``C(c, k) / C(n, k)`` (tau-bench), for ``k <= n``."""
    return math.comb(c, k) / math.comb(n, k)


def pass_k_interval(c: int, n: int, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for ``p**k``: the Wilson endpoints for ``p`` raised to ``k``."""
    low, high = wilson_interval(c, n, confidence)
    return float(low**k), float(high**k)
