"""Closed-form location tests of candidate against baseline: Welch's t and Brunner-Munzel.

Brunner-Munzel is computed from placements (how many runs of the other arm lie below a run),
which also give ``A = P(C > B) + P(C = B)/2``, its standard error and degrees of freedom exactly
as ``statsmodels.stats.nonparametric.rank_compare_2indep`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trajguard.stats._distributions import t_cdf, t_sf

__all__ = ["LocationTest", "brunner_munzel", "prob_superiority", "welch"]

FloatArray = npt.NDArray[np.float64]
# Stands in for an infinite statistic, as in trajguard.stats._permutation.
_BIG = 1e12


@dataclass(frozen=True, kw_only=True)
class LocationTest:
    """A closed-form location test of candidate against baseline.

    Attributes:
        statistic: positive when the candidate is larger.
        df: degrees of freedom of the reference t distribution.
        greater: p-value for "candidate larger".
        less: p-value for "candidate smaller".
        estimate: the effect on the test's scale (difference of means, or ``A``).
        se: standard error of ``estimate`` (0 for the rank test, whose CI comes elsewhere).
    """

    statistic: float
    df: float
    greater: float
    less: float
    estimate: float
    se: float


def welch(b: FloatArray, c: FloatArray) -> LocationTest:
    """Welch's unequal-variance t-test (both arms need 2 runs and some spread)."""
    var_b, var_c = b.var(ddof=1) / len(b), c.var(ddof=1) / len(c)
    se = math.sqrt(var_b + var_c)
    diff = float(c.mean() - b.mean())
    df = (var_b + var_c) ** 2 / (var_b**2 / (len(b) - 1) + var_c**2 / (len(c) - 1))
    t = diff / se
    return LocationTest(
        statistic=t, df=df, greater=t_sf(t, df), less=t_cdf(t, df), estimate=diff, se=se
    )


def _placements(b: FloatArray, c: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each run's count of runs of the other arm below it (ties count half)."""

    def place(values: FloatArray, among: FloatArray) -> FloatArray:
        ordered = np.sort(among)
        left = np.searchsorted(ordered, values, "left")
        return np.asarray(left + 0.5 * (np.searchsorted(ordered, values, "right") - left), float)

    return place(b, c), place(c, b)


def brunner_munzel(b: FloatArray, c: FloatArray) -> LocationTest:
    """Brunner-Munzel test with the t approximation; ``estimate`` is ``A`` and ``se`` its error.

    The same quantities as ``statsmodels.stats.nonparametric.rank_compare_2indep(c, b)``
    (``prob1``, ``sqrt(var / nobs)``, ``df``) and ``scipy.stats.brunnermunzel(b, c)``; both arms
    need 2 runs. Without spread in the placements (``se == 0``) there is no t reference: the
    p-values are 1.0 and callers must fall back to a permutation test.
    """
    n_b, n_c = len(b), len(c)
    place_b, place_c = _placements(b, c)
    var_b, var_c = float(place_b.var(ddof=1)), float(place_c.var(ddof=1))
    a = float(place_c.mean() / n_b)
    se = math.sqrt(var_c / (n_b**2 * n_c) + var_b / (n_c**2 * n_b))
    if se == 0:
        # No spread in either arm's placements (e.g. complete separation): no t reference.
        return LocationTest(
            statistic=math.copysign(_BIG, a - 0.5) if a != 0.5 else 0.0,
            df=0.0,
            greater=1.0,
            less=1.0,
            estimate=a,
            se=0.0,
        )
    spread = n_b * var_b + n_c * var_c
    df = spread**2 / ((n_b * var_b) ** 2 / (n_b - 1) + (n_c * var_c) ** 2 / (n_c - 1))
    w = (a - 0.5) / se
    return LocationTest(
        statistic=w, df=df, greater=t_sf(w, df), less=t_cdf(w, df), estimate=a, se=se
    )


def prob_superiority(b: FloatArray, c: FloatArray) -> float:
    """``A = P(C > B) + P(C = B) / 2`` estimated over all baseline-candidate pairs."""
    diff = c[:, None] - b[None, :]
    return float(np.mean((diff > 0) + 0.5 * (diff == 0)))
