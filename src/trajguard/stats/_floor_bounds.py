"""One-sided bounds behind floors and ceilings: exact (Clopper-Pearson) bounds of a rate, and
the runs that would show a bar at an observed rate.

A floor is met when the one-sided lower bound of the rate clears it, so the chance of meeting a
floor the true rate only reaches (or misses) is at most ``1 - confidence`` for every N and every
rate: the Clopper-Pearson bound keeps that guarantee exactly, Wilson's does not (its coverage
dips below nominal at some N; docs/explanation/statistics.md, "Floors").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import special

__all__ = [
    "MAX_RUNS_TO_SHOW",
    "POWER_TO_SHOW",
    "lower_rate_bound",
    "runs_to_show_rate_at_least",
    "upper_rate_bound",
]

POWER_TO_SHOW = 0.8
"""The runs needed to show a bar are those that show it on 8 nights in 10 at the observed rate."""
MAX_RUNS_TO_SHOW = 10_000
"""Beyond this (a suite's largest ``runs``) no run count is named."""


def lower_rate_bound(k: int, n: int, confidence: float) -> float:
    """The exact one-sided lower bound of a rate from ``k`` of ``n`` (0 when ``k`` or ``n`` is
    0): the rate below which seeing ``k`` or more has chance at most ``1 - confidence``."""
    if k <= 0 or n <= 0:
        return 0.0
    return float(special.betaincinv(k, n - k + 1, 1 - confidence))


def upper_rate_bound(k: int, n: int, confidence: float) -> float:
    """The exact one-sided upper bound of a rate from ``k`` of ``n`` (1 when ``k == n``)."""
    if n <= 0 or k >= n:
        return 1.0
    return float(special.betaincinv(k + 1, n - k, confidence))


@lru_cache(maxsize=1024)
def runs_to_show_rate_at_least(rate: float, floor: float, confidence: float) -> int | None:
    """The fewest runs whose lower bound clears ``floor`` with chance :data:`POWER_TO_SHOW`
    when the true rate is ``rate``; ``None`` when the rate is not above the floor, or when more
    than :data:`MAX_RUNS_TO_SHOW` would be needed.

    For a ceiling on a rate (crashes), pass the complements: the non-crash rate and
    ``1 - ceiling``."""
    if not 0.0 < floor < 1.0 or rate <= floor:
        return None
    from scipy import stats  # when a floor is checked, not when its record is read

    n = np.arange(1, MAX_RUNS_TO_SHOW + 1)
    # the fewest passes whose bound clears the floor: P(X >= k | floor) <= 1 - confidence
    needed = stats.binom.ppf(confidence, n, floor) + 1
    shown = stats.binom.sf(needed - 1, n, rate) >= POWER_TO_SHOW
    shown &= needed <= n
    hits = np.flatnonzero(shown)
    return int(n[hits[0]]) if hits.size else None
