"""A/B's suite-level tests: each metric across every scenario, B against A, the scenario the
stratum — beside the nightly's suite-level tests (:mod:`._combined_tests`).

Pass and crash rates by the Cochran-Mantel-Haenszel test (``statsmodels`` ``StratifiedTable``),
Holm across the two; steps, tokens and latency by a permutation of variant labels within
scenarios (mean within-scenario difference, on logs for tokens and latency). They stay a method
of their own (docs/explanation/statistics.md §7): the nightly's suite tests are one-sided and
share the
gating family's alpha, A/B's answer is two-sided at the full alpha with the detectable
difference it states; unifying them would change the A/B figures measured with the real model.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trajguard import stats as st

__all__ = ["Overall", "cmh", "detectable", "stratified"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, kw_only=True)
class Overall:
    """One metric across all scenarios, B against A."""

    metric: str
    """the metric."""
    test: str
    """the stratified test used."""
    estimate: float | None
    """mean within-scenario difference B - A (rates, steps) or geometric-mean ratio B / A (tokens,
    latency); ``None`` when no scenario had both variants."""
    ci: tuple[float, float] | None
    """interval for ``estimate`` (rates only)."""
    odds_ratio: float | None
    """Mantel-Haenszel pooled odds ratio (rates only)."""
    p_value: float
    """two-sided p-value."""
    p_adjusted: float
    """Holm across pass and crash rate; BH across the other metrics."""
    better: bool | None
    """B is better on this metric's estimate (``None`` without a difference)."""
    scenarios: int
    """scenarios that contributed."""


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def cmh(
    metric: str, pairs: list[tuple[int, int, int, int]], alpha: float, higher_is_better: bool
) -> Overall:
    """Pairs are (x_a, n_a, x_b, n_b) per scenario with both arms non-empty."""
    if not pairs:
        return Overall(
            metric=metric,
            test="Cochran-Mantel-Haenszel",
            estimate=None,
            ci=None,
            odds_ratio=None,
            p_value=1.0,
            p_adjusted=1.0,
            better=None,
            scenarios=0,
        )
    # Imported here: 23 statsmodels modules, needed only when two variants are compared.
    from statsmodels.stats.contingency_tables import StratifiedTable

    tables = [np.array([[xb, nb - xb], [xa, na - xa]]) for xa, na, xb, nb in pairs]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        strat = StratifiedTable(tables)
        p = _finite(strat.test_null_odds(correction=False).pvalue)
        odds = _finite(strat.oddsratio_pooled)
    diffs = np.array([xb / nb - xa / na for xa, na, xb, nb in pairs])
    # Agresti-Caffo rates keep each scenario's variance positive at 0/n and n/n.
    var = (
        sum(
            ((xa + 1) / (na + 2)) * (1 - (xa + 1) / (na + 2)) / (na + 2)
            + ((xb + 1) / (nb + 2)) * (1 - (xb + 1) / (nb + 2)) / (nb + 2)
            for xa, na, xb, nb in pairs
        )
        / len(pairs) ** 2
    )
    half = st.norm_ppf(1 - alpha / 2) * math.sqrt(var)
    estimate = float(diffs.mean())
    better = None if estimate == 0 else (estimate > 0) == higher_is_better
    return Overall(
        metric=metric,
        test="Cochran-Mantel-Haenszel",
        estimate=estimate,
        ci=(estimate - half, estimate + half),
        odds_ratio=odds,
        p_value=1.0 if p is None else p,
        p_adjusted=1.0,
        better=better,
        scenarios=len(pairs),
    )


def stratified(
    metric: str,
    pairs: list[tuple[FloatArray, FloatArray]],
    floor: float | None,
    rng: np.random.Generator,
    resamples: int,
    level: float | None = None,
) -> Overall:
    """Permutation of variant labels within scenarios; statistic: mean of B - A means (of
    logs, values below ``floor`` counting as ``floor``, as in the per-scenario comparison;
    ``None``: no logs). With ``level`` (cost), also the interval of that mean: normal, its
    variance the sum of the scenarios' Welch variances over the number of scenarios squared
    (every scenario needs two runs a side, else no interval)."""
    log = floor is not None
    name = "stratified permutation"
    if not pairs:
        return Overall(
            metric=metric,
            test=name,
            estimate=None,
            ci=None,
            odds_ratio=None,
            p_value=1.0,
            p_adjusted=1.0,
            better=None,
            scenarios=0,
        )
    observed = 0.0
    permuted = np.zeros(resamples)
    for a, b in pairs:
        values = np.log(np.maximum(np.r_[a, b], floor)) if floor is not None else np.r_[a, b]
        masks = st.Arrangements(len(a), len(b), rng).rows(0, resamples)
        in_b = masks.astype(float) @ values
        permuted += in_b / len(b) - (values.sum() - in_b) / len(a)
        observed += float(values[len(a) :].mean() - values[: len(a)].mean())
    tol = 1e-9 * max(1.0, abs(observed))
    greater = (1 + int(np.sum(permuted >= observed - tol))) / (resamples + 1)
    less = (1 + int(np.sum(permuted <= observed + tol))) / (resamples + 1)
    mean = float(observed) / len(pairs)
    estimate = math.exp(mean) if log else mean
    better = None if mean == 0 else mean < 0
    ci = None
    if level is not None and all(min(len(a), len(b)) >= 2 for a, b in pairs):
        half = st.norm_ppf(0.5 + level / 2) * math.sqrt(_variance(pairs, floor))
        ci = (mean - half, mean + half)
        ci = (math.exp(ci[0]), math.exp(ci[1])) if log else ci
    return Overall(
        metric=metric,
        test=f"{name} ({resamples} resamples)",
        estimate=estimate,
        ci=ci,
        odds_ratio=None,
        p_value=min(1.0, 2 * min(greater, less)),
        p_adjusted=1.0,
        better=better,
        scenarios=len(pairs),
    )


def _variance(pairs: list[tuple[FloatArray, FloatArray]], floor: float | None) -> float:
    """The variance of the mean of the scenarios' B - A differences of means (of logs)."""
    total = 0.0
    for a, b in pairs:
        la, lb = (np.log(np.maximum(x, floor)) if floor is not None else x for x in (a, b))
        total += float(la.var(ddof=1)) / len(la) + float(lb.var(ddof=1)) / len(lb)
    return total / len(pairs) ** 2


def detectable(pairs: list[tuple[int, int, int, int]], alpha: float, power: float) -> float | None:
    """Average pass-rate difference detected with ``power`` (normal approximation)."""
    if not pairs:
        return None
    var = (
        sum(
            ((xa + xb + 1) / (na + nb + 2))
            * (1 - (xa + xb + 1) / (na + nb + 2))
            * (1 / na + 1 / nb)
            for xa, na, xb, nb in pairs
        )
        / len(pairs) ** 2
    )
    return (st.norm_ppf(1 - alpha / 2) + st.norm_ppf(power)) * math.sqrt(var)
