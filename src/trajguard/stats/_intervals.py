"""Intervals for rates (Wilson, Jeffreys, Newcombe) and pass^k (the chance that k runs in a row
pass)."""

from __future__ import annotations

import math

from scipy import special

from trajguard.stats._distributions import norm_ppf

__all__ = [
    "jeffreys_interval",
    "newcombe_interval",
    "pass_hat_k",
    "pass_k_interval",
    "wilson_interval",
]


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials; ``(0, 1)`` when ``n == 0``."""
    if n == 0:
        return 0.0, 1.0
    z = norm_ppf(0.5 + confidence / 2)
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    # exact ends where the formula meets them (rounding leaves 1e-17 above 0 at k = 0)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def jeffreys_interval(k: int, n: int, confidence: float = 0.90) -> tuple[float, float]:
    """Jeffreys interval for ``k`` successes in ``n`` trials: the equal-tailed interval of the
    Beta(k + 1/2, n - k + 1/2) posterior, with 0 and 1 as the ends at ``k == 0`` and ``k == n``
    (Brown, Cai and DasGupta 2001); ``(0, 1)`` when ``n == 0``. It never collapses to a point:
    0 of 3 leaves rates up to 0.47 plausible at 90 %."""
    if n <= 0:
        return 0.0, 1.0
    tail = (1 - confidence) / 2
    low = 0.0 if k <= 0 else float(special.betaincinv(k + 0.5, n - k + 0.5, tail))
    high = 1.0 if k >= n else float(special.betaincinv(k + 0.5, n - k + 0.5, 1 - tail))
    return low, high


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


def pass_hat_k(c: int, n: int, k: int) -> float:
    """Unbiased pass^k of one scenario, ``C(c, k) / C(n, k)`` (tau-bench), for ``k <= n``."""
    return math.comb(c, k) / math.comb(n, k)


def pass_k_interval(c: int, n: int, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for ``p**k``: the Wilson endpoints for ``p`` raised to ``k``."""
    low, high = wilson_interval(c, n, confidence)
    return float(low**k), float(high**k)
