"""What an experiment can detect: exact power, minimum detectable effects and runs needed.

Rates use the exact power of Boschloo's test (enumeration of every outcome against the cached
p-value table of :mod:`trajguard.stats._rates`); tokens and latency the noncentral t of a t-test on
log values; steps Noether's formula for rank tests. ``trajguard plan`` evaluates these at the
adjusted alpha a report will use: alpha over the number of tests in the family, the first Holm
step, which is what a single regression has to clear.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt
from scipy import optimize, special, stats

from trajguard.stats import _rates as st
from trajguard.stats._distributions import norm_ppf

__all__ = [
    "EXACT_MAX_N",
    "approx_n_pass_rate",
    "cv_to_sigma",
    "gate_power",
    "mde_crash_rate",
    "mde_pass_rate",
    "mde_ratio",
    "mde_steps",
    "n_needed_pass_rate",
    "n_needed_ratio",
    "n_needed_steps",
    "power_rates",
    "power_ratio",
]

FloatArray = npt.NDArray[np.float64]

# Largest runs per arm planned by exact enumeration; beyond, normal approximations.
EXACT_MAX_N = 150


@cache  # like the p-value tables it is read from, built once per process
def _rejects(n_b: int, n_c: int, alpha: float, alternative: st.Alternative) -> FloatArray:
    # The relative slack absorbs the grid error of the p-value table at the boundary.
    region = st.boschloo_pvalues(n_b, n_c, alternative) <= alpha * (1 + 1e-9)
    return region.astype(float)


def power_rates(
    p_b: float,
    p_c: float,
    n_b: int,
    n_c: int,
    *,
    alpha: float,
    alternative: st.Alternative = "greater",
) -> float:
    """Exact power of Boschloo's test at true rates ``p_b`` (baseline) and ``p_c`` (candidate)."""
    weights_b, weights_c = st.binom_pmf(n_b, p_b)[0], st.binom_pmf(n_c, p_c)[0]
    return float(weights_b @ _rejects(n_b, n_c, alpha, alternative) @ weights_c)


def mde_pass_rate(
    p_baseline: float,
    n_b: int,
    *,
    alpha: float,
    power: float = 0.8,
    n_c: int | None = None,
    two_sided: bool = False,
) -> float | None:
    """Smallest pass-rate drop (rate units) detected with probability ``power``.

    Args:
        p_baseline: the baseline pass rate.
        n_b: baseline runs.
        alpha: significance level of the test (already adjusted for multiplicity).
        power: required probability of detecting the drop.
        n_c: candidate runs (``n_b`` if omitted).
        two_sided: the test is two-sided (A/B), else one-sided.

    Returns:
        The drop, or ``None`` when not even a drop to 0 would be detected at this N. Beyond
        :data:`trajguard.stats.MAX_EXACT_TABLES` the normal approximation is used.
    """
    n_c = n_b if n_c is None else n_c
    if n_b < 1 or n_c < 1:
        return None

    def shortfall(p_c: float) -> float:
        return gate_power(p_baseline, p_c, n_b, n_c, alpha, two_sided) - power

    if shortfall(0.0) < 0:
        return None
    if shortfall(p_baseline) >= 0:
        return 0.0
    p_c = optimize.brentq(shortfall, 0.0, p_baseline, xtol=1e-6)
    return float(p_baseline - p_c)


def gate_power(p_b: float, p_c: float, n_b: int, n_c: int, alpha: float, two_sided: bool) -> float:
    """The pass-rate gate's power at true rates ``p_b`` (baseline) and ``p_c`` (candidate):
    Boschloo's exact test where its table is feasible, else the pooled z-test."""
    if not st.boschloo_feasible(n_b, n_c):
        return _approx_power(p_b, p_c, n_b, n_c, alpha, two_sided)
    side: st.Alternative = "two-sided" if two_sided else "greater"
    return power_rates(p_b, p_c, n_b, n_c, alpha=alpha, alternative=side)


def mde_crash_rate(
    crash_baseline: float,
    n_b: int,
    *,
    alpha: float,
    power: float = 0.8,
    n_c: int | None = None,
    two_sided: bool = False,
) -> float | None:
    """Smallest crash-rate increase detected with probability ``power`` (see mde_pass_rate)."""
    return mde_pass_rate(
        1 - crash_baseline, n_b, alpha=alpha, power=power, n_c=n_c, two_sided=two_sided
    )


def _approx_power(
    p_b: float, p_c: float, n_b: int, n_c: int, alpha: float, two_sided: bool
) -> float:
    """Power of the pooled z-test for two rates (normal approximation)."""
    z_a = norm_ppf(1 - (alpha / 2 if two_sided else alpha))
    pooled = (n_b * p_b + n_c * p_c) / (n_b + n_c)
    null_se = math.sqrt(pooled * (1 - pooled) * (1 / n_b + 1 / n_c))
    alt_se = math.sqrt(p_b * (1 - p_b) / n_b + p_c * (1 - p_c) / n_c)
    if alt_se == 0:
        return float(p_b - p_c > z_a * null_se)
    return float(special.ndtr((p_b - p_c - z_a * null_se) / alt_se))


def approx_n_pass_rate(
    p_baseline: float, drop: float, *, alpha: float, power: float = 0.8, two_sided: bool = False
) -> int | None:
    """Runs per arm that detect a pass-rate ``drop`` with ``power``, by the normal approximation
    (a planning figure, cheap for any N); ``None`` for a drop that leaves no rate."""
    if drop <= 0 or drop > p_baseline:
        return None
    return _approx_n(p_baseline, p_baseline - drop, alpha, power, two_sided)


def _approx_n(p_b: float, p_c: float, alpha: float, power: float, two_sided: bool) -> int:
    """Runs per arm for two rates by the normal approximation (pooled null variance)."""
    z_a, z_b = norm_ppf(1 - (alpha / 2 if two_sided else alpha)), norm_ppf(power)
    pooled = (p_b + p_c) / 2
    spread = z_a * math.sqrt(2 * pooled * (1 - pooled)) + z_b * math.sqrt(
        p_b * (1 - p_b) + p_c * (1 - p_c)
    )
    return max(2, math.ceil((spread / (p_b - p_c)) ** 2))


def n_needed_pass_rate(
    p_baseline: float, drop: float, *, alpha: float, power: float = 0.8, two_sided: bool = False
) -> int | None:
    """Smallest runs per arm whose exact power against ``drop`` reaches ``power``.

    Exact (Boschloo enumeration) up to ``EXACT_MAX_N`` runs per arm; beyond, the normal
    approximation (exact tables grow as N squared). Exact power is not monotone in N (discrete
    tests have a sawtooth); the answer is the first N that reaches the target together with the
    next three N (a plan that is one run short of its N keeps its power). If no N up to
    ``EXACT_MAX_N`` qualifies, ``EXACT_MAX_N + 1`` or the normal approximation, whichever is
    larger. ``None`` for a drop that leaves no rate (``drop > p_baseline``) or is not positive.
    """
    p_c = p_baseline - drop
    if drop <= 0 or p_c < 0:
        return None
    approx = _approx_n(p_baseline, p_c, alpha, power, two_sided)
    if approx > EXACT_MAX_N:
        return approx
    side: st.Alternative = "two-sided" if two_sided else "greater"

    @cache
    def enough(n: int) -> bool:
        return power_rates(p_baseline, p_c, n, n, alpha=alpha, alternative=side) >= power

    def settled(n: int) -> bool:
        return all(enough(k) for k in range(n, min(n + 4, EXACT_MAX_N + 1)))

    low, high = max(1, approx // 2), min(EXACT_MAX_N, 2 * approx + 5)
    while not enough(high) and high < EXACT_MAX_N:
        low, high = high, min(EXACT_MAX_N, 2 * high)
    if not enough(high):
        return max(approx, EXACT_MAX_N + 1)
    # Bisection to a crossing (enough(high), and low below it), then forward to a settled N.
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    while not settled(high):
        if high >= EXACT_MAX_N:
            return max(approx, EXACT_MAX_N + 1)
        high += 1
    return high


def cv_to_sigma(cv: float) -> float:
    """Standard deviation of log values of a log-normal with coefficient of variation ``cv``."""
    return math.sqrt(math.log1p(cv * cv))


def power_ratio(
    ratio: float,
    sigma: float,
    n_b: int,
    *,
    alpha: float,
    n_c: int | None = None,
    two_sided: bool = False,
) -> float:
    """Power of the t-test on log values against a geometric-mean ratio ``ratio`` (> 1)."""
    return _power_log_ratio(math.log(ratio), sigma, n_b, alpha, n_c, two_sided)


def _power_log_ratio(
    log_ratio: float, sigma: float, n_b: int, alpha: float, n_c: int | None, two_sided: bool
) -> float:
    n_c = n_b if n_c is None else n_c
    df = n_b + n_c - 2
    ncp = log_ratio / (sigma * math.sqrt(1 / n_b + 1 / n_c))
    crit = float(stats.t.ppf(1 - (alpha / 2 if two_sided else alpha), df))
    upper = float(stats.nct.sf(crit, df, ncp))
    return upper + (float(stats.nct.cdf(-crit, df, ncp)) if two_sided else 0.0)


def mde_ratio(
    sigma: float,
    n_b: int,
    *,
    alpha: float,
    power: float = 0.8,
    n_c: int | None = None,
    two_sided: bool = False,
) -> float | None:
    """Smallest geometric-mean ratio (> 1) of tokens or latency detected with ``power``.

    ``sigma`` is the standard deviation of the log values (:func:`cv_to_sigma`). Exact for
    log-normal data with equal spread (noncentral t); ``None`` below 2 runs per arm.
    """
    n_c = n_b if n_c is None else n_c
    if n_b + n_c < 3 or sigma <= 0:
        return None

    def shortfall(log_ratio: float) -> float:
        # On the log scale: exp then log would lose a tiny sigma's ratios to rounding.
        return _power_log_ratio(log_ratio, sigma, n_b, alpha, n_c, two_sided) - power

    if shortfall(0.0) >= 0:  # a power at or below the test's level: any ratio
        return 1.0
    high = sigma
    while shortfall(high) < 0:
        high *= 2
    return math.exp(optimize.brentq(shortfall, 0.0, high, xtol=min(1e-10, sigma * 1e-6)))


def n_needed_ratio(
    sigma: float,
    ratio: float,
    *,
    alpha: float,
    power: float = 0.8,
    two_sided: bool = False,
    max_n: int = 100_000,
) -> int | None:
    """Smallest runs per arm whose t-test on logs detects ``ratio`` with ``power``."""
    if ratio <= 1 or sigma <= 0:
        return None
    n = 2
    while power_ratio(ratio, sigma, n, alpha=alpha, two_sided=two_sided) < power:
        if n >= max_n:
            return None
        n = min(max_n, n + max(1, n // 8))
    while n > 2 and power_ratio(ratio, sigma, n - 1, alpha=alpha, two_sided=two_sided) >= power:
        n -= 1
    return n


def _z_sum(alpha: float, power: float, two_sided: bool) -> float:
    return float(stats.norm.ppf(1 - (alpha / 2 if two_sided else alpha)) + stats.norm.ppf(power))


def mde_steps(
    n_b: int, *, alpha: float, power: float = 0.8, n_c: int | None = None, two_sided: bool = False
) -> float:
    """Smallest ``A = P(C > B) + P(tie)/2`` detected with ``power`` (Noether's formula)."""
    n_c = n_b if n_c is None else n_c
    total = n_b + n_c
    share = n_b / total
    return min(
        1.0, 0.5 + _z_sum(alpha, power, two_sided) / math.sqrt(12 * share * (1 - share) * total)
    )


def n_needed_steps(a: float, *, alpha: float, power: float = 0.8, two_sided: bool = False) -> int:
    """Runs per arm for a rank test to detect ``A`` (Noether's formula), at least 2."""
    return max(2, math.ceil(_z_sum(alpha, power, two_sided) ** 2 / (6 * (a - 0.5) ** 2)))
