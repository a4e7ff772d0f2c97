"""Sequential mode: candidate runs in batches, stopping early at alpha-spending thresholds.

Efficacy thresholds are the increments of the Lan-DeMets O'Brien-Fleming spending function
``alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))``; testing look ``i`` at its increment keeps the
total type I error at most ``alpha`` for any valid p-value (union bound), so every test of
comparison test can be used. Stopping for futility ("no regression detected" when
the candidate is no worse than the baseline) is non-binding and cannot raise the type I error.
Across the gating tests of a night, pass ``alpha`` divided by the number of tests (Bonferroni):
Holm's step-down needs every p-value at once.

For pass and crash rates, :func:`rate_thresholds` calibrates the last look by exact enumeration
of the whole rule, which recovers most of the power the union bound gives away (see
benchmarks/bench_calibration.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from trajguard.stats import _rates as st

__all__ = [
    "Action",
    "combine",
    "obf_thresholds",
    "rate_can_still_regress",
    "rate_stopping",
    "rate_thresholds",
    "sequential_decision",
]


class Action(StrEnum):
    """What to do after a look.

    The first four belong to the regression gate (one-sided, nightly); the last two to A/B
    comparisons, which stop on a clear difference in either direction and have no futility rule.
    """

    CONTINUE = "continue"
    STOP_REGRESSED = "stop: regressed"
    STOP_WITHIN_TOLERANCE = "stop: changed within tolerance"
    STOP_NO_REGRESSION = "stop: no regression detected"
    STOP_DIFFERENT = "stop: different"
    STOP_NO_DIFFERENCE = "stop: no difference detected"


def _fractions(looks: int | Sequence[float]) -> npt.NDArray[np.float64]:
    fractions = (
        np.arange(1, looks + 1) / looks if isinstance(looks, int) else np.asarray(looks, float)
    )
    if fractions.size == 0 or np.any(np.diff(fractions) <= 0) or not fractions[0] > 0:
        raise ValueError("looks must be a positive count or increasing fractions in (0, 1]")
    if not np.isclose(fractions[-1], 1.0):
        raise ValueError("the last look must be at the maximum number of runs (fraction 1)")
    return fractions


def _canonical(
    fractions: npt.NDArray[np.float64], spend: npt.NDArray[np.float64]
) -> tuple[float, ...]:
    """Nominal thresholds that spend exactly ``spend`` per look under the canonical joint law.

    The score ``S(t) = Z(t) sqrt(t)`` is a Brownian motion; the sub-density of paths still
    running is carried on a Simpson grid ending at each boundary (Armitage-McPherson-Rowe), and
    each boundary is solved from the exact normal tails of that density.
    """
    from scipy import stats  # when thresholds are computed, not when records are read

    m = 1201
    points, mass = np.zeros(1), np.ones(1)  # all paths start at S(0) = 0
    previous = 0.0
    bounds = []
    for t, amount in zip(fractions, spend, strict=True):
        sd = math.sqrt(t - previous)

        def excess(
            b: float, x: Any = points, w: Any = mass, sd: float = sd, amount: float = float(amount)
        ) -> float:
            return float(np.sum(w * special.ndtr((x - b) / sd))) - amount

        low = float(points.min()) - 12 * sd
        b = float(optimize.brentq(excess, low, float(points.max()) + 12 * sd, xtol=1e-12))
        bounds.append(b / math.sqrt(t))
        grid = np.linspace(max(low, -12 * math.sqrt(t)), b, m)
        simpson = np.ones(m)
        simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
        simpson *= (grid[1] - grid[0]) / 3
        density = stats.norm.pdf((grid[:, None] - points[None, :]) / sd) / sd @ mass
        points, mass, previous = grid, density * simpson, t
    return tuple(float(special.ndtr(-c)) for c in bounds)


def obf_thresholds(
    alpha: float,
    looks: int | Sequence[float],
    *,
    method: Literal["bonferroni", "canonical"] = "bonferroni",
) -> tuple[float, ...]:
    """Per-look one-sided significance thresholds under O'Brien-Fleming-type spending.

    Args:
        alpha: total one-sided type I error.
        looks: number of equally spaced looks, or the information fractions of the looks
            (increasing, the last equal to 1), e.g. runs so far over maximum runs.
        method: ``"bonferroni"``: each look tests at its spending increment
            (docs/explanation/statistics.md §4;
            valid for any test by the union bound). ``"canonical"``: thresholds that spend
            exactly the increments when the looks' statistics have the canonical joint
            distribution of group-sequential theory (asymptotically true of every test here);
            less conservative at the last look.

    Returns:
        One threshold per look; for ``alpha=0.05`` and 3 looks: 0.0007, 0.0157, 0.0336
        (Bonferroni) or 0.0007, 0.0161, 0.0451 (canonical).
    """
    from scipy import stats  # when thresholds are computed, not when records are read

    fractions = _fractions(looks)
    z = stats.norm.ppf(1 - alpha / 2)
    spent = 2 - 2 * stats.norm.cdf(z / np.sqrt(fractions))
    increments = np.diff(np.r_[0.0, spent])
    if method == "canonical":
        return _canonical(fractions, increments)
    return tuple(float(x) for x in increments)


def sequential_decision(
    look: int,
    p_value: float,
    *,
    thresholds: Sequence[float],
    candidate_no_worse: bool,
    can_still_regress: bool = True,
    outside_tolerance: bool = True,
) -> Action:
    """The decision after look ``look`` (0-based) for one gating test.

    Args:
        look: index of the look just taken.
        p_value: the test's one-sided p-value (harmful direction) on all runs so far.
        thresholds: from :func:`obf_thresholds`.
        candidate_no_worse: the candidate's estimate is at least as good as the baseline's
            (the futility rule).
        can_still_regress: ``False`` when no outcome of the remaining runs could cross a later
            threshold (curtailment; see :func:`rate_can_still_regress`).
        outside_tolerance: the estimate lies beyond the tolerance band on the harmful side
            (docs/explanation/statistics.md §2: a significant change inside the band is not a
            regression).

    Returns:
        ``STOP_REGRESSED`` at or below the look's threshold with the estimate outside the band;
        at or below it inside the band, ``CONTINUE`` (more runs may still move the estimate out)
        or, at the last look, ``STOP_WITHIN_TOLERANCE``; ``STOP_NO_REGRESSION`` on futility,
        curtailment or at the last look; otherwise ``CONTINUE``. Withholding stops never adds
        rejections, so the type I error bound is unchanged.
    """
    last = look >= len(thresholds) - 1
    if p_value <= thresholds[look]:
        if outside_tolerance:
            return Action.STOP_REGRESSED
        return Action.STOP_WITHIN_TOLERANCE if last else Action.CONTINUE
    if candidate_no_worse or not can_still_regress or last:
        return Action.STOP_NO_REGRESSION
    return Action.CONTINUE


def rate_can_still_regress(
    x_b: int,
    n_b: int,
    x_c: int,
    n_c: int,
    *,
    later_n_c: Sequence[int],
    later_thresholds: Sequence[float],
    higher_is_better: bool = True,
) -> bool:
    """Whether some later look of a rate could still cross its threshold.

    The most harmful continuation (every remaining run fails, or crashes) gives the smallest
    Boschloo p-value at each later look; if even that misses every threshold, stop now.

    Args:
        x_b: baseline successes (passes, or crashes).
        n_b: baseline runs.
        x_c: candidate successes so far.
        n_c: candidate runs so far.
        later_n_c: candidate runs at each later look.
        later_thresholds: the thresholds of those looks.
        higher_is_better: ``True`` for pass rates, ``False`` for crash rates.
    """
    for n_later, threshold in zip(later_n_c, later_thresholds, strict=True):
        if higher_is_better:
            p = st.boschloo_pvalue(x_b, n_b, x_c, n_later, "greater")
        else:
            p = st.boschloo_pvalue(x_b, n_b, x_c + n_later - n_c, n_later, "less")
        if p <= threshold:
            return True
    return False


def rate_stopping(
    n_b: int,
    schedule: Sequence[int],
    thresholds: Sequence[float],
    p_b: npt.ArrayLike,
    p_c: npt.ArrayLike | None = None,
    *,
    futility: bool = True,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Exact probability of stopping "regressed", and expected candidate runs, for a pass rate.

    Enumerates every baseline outcome and candidate path of :func:`sequential_decision` with
    Boschloo p-values, futility (if ``futility``) and curtailment.

    Args:
        n_b: baseline runs.
        schedule: candidate runs so far at each look (increasing).
        thresholds: one per look.
        p_b: true baseline pass rates (one result per value).
        p_c: true candidate pass rates (``p_b`` if omitted: no change).
        futility: stop for futility when the candidate is no worse.
    """
    p_b = np.atleast_1d(np.asarray(p_b, float))
    p_c = p_b if p_c is None else np.broadcast_to(np.asarray(p_c, float), p_b.shape)
    tables = [st.boschloo_pvalues(n_b, n, "greater") for n in schedule]
    weight_b = st.binom_pmf(n_b, p_b)[:, :, None]
    paths = np.ones((p_b.size, n_b + 1, 1))  # candidate successes so far, per baseline outcome
    rejected, runs = np.zeros(p_b.size), np.zeros(p_b.size)
    x_b = np.arange(n_b + 1)[:, None]
    previous = 0
    for look, n in enumerate(schedule):
        step = st.binom_pmf(n - previous, p_c)
        grown = np.zeros((p_b.size, n_b + 1, n + 1))
        for k in range(n - previous + 1):
            grown[:, :, k : k + paths.shape[2]] += paths * step[:, None, k : k + 1]
        paths, previous = grown, n
        reject = tables[look] <= thresholds[look]
        stop = np.ones_like(reject)
        if look < len(schedule) - 1:
            alive = np.zeros_like(reject)
            for later in range(look + 1, len(schedule)):
                alive |= tables[later][:, : n + 1] <= thresholds[later]
            no_worse = np.arange(n + 1)[None, :] * n_b >= x_b * n
            stop = (no_worse if futility else np.zeros_like(reject)) | ~alive
        mass = paths * weight_b
        rejected += (mass * reject).sum(axis=(1, 2))
        runs += (mass * (reject | stop)).sum(axis=(1, 2)) * n
        paths = paths * (~reject & ~stop)
    return rejected, runs


@lru_cache(maxsize=64)
def rate_thresholds(alpha: float, n_b: int, schedule: tuple[int, ...]) -> tuple[float, ...]:
    """Thresholds for a pass or crash rate, calibrated by exact enumeration.

    Early looks use the canonical O'Brien-Fleming thresholds; the last look's threshold is
    raised to the largest attainable Boschloo p-value at which the rule's exact type I error,
    maximised over the common rate and computed *without* futility stops (so futility stays
    non-binding), is at most ``alpha``. The union bound spends alpha on paths that never
    happen with a discrete test; this gives it back (measured: 1.9 instead of 5.6 points of
    power lost at 30 baseline runs, 3 looks of 10). Crash rates use the same thresholds (the
    test is symmetric in success and failure). Beyond 150 runs: the canonical thresholds.

    Args:
        alpha: one-sided type I error.
        n_b: baseline runs.
        schedule: candidate runs at each look, the last being the maximum.
    """
    canonical = obf_thresholds(alpha, [n / schedule[-1] for n in schedule], method="canonical")
    if not st.boschloo_feasible(n_b, schedule[-1]):
        return canonical
    grid = np.linspace(0.0025, 0.9975, 399)
    final = st.boschloo_pvalues(n_b, schedule[-1], "greater")
    options = np.unique(final[(final >= canonical[-1]) & (final <= alpha)])
    best = canonical[-1]
    low, high = 0, len(options) - 1
    while low <= high:  # the type I error grows with the last threshold
        mid = (low + high) // 2
        trial = (*canonical[:-1], float(options[mid]))
        if rate_stopping(n_b, schedule, trial, grid, futility=False)[0].max() <= alpha:
            best, low = float(options[mid]), mid + 1
        else:
            high = mid - 1
    return (*canonical[:-1], best)


def combine(actions: Iterable[Action]) -> Action:
    """One scenario's action from its gating tests: any regression stops, all must be done
    (then "changed within tolerance" if some test ended so, else "no regression detected")."""
    seen = list(actions)
    if Action.STOP_REGRESSED in seen:
        return Action.STOP_REGRESSED
    done = {Action.STOP_NO_REGRESSION, Action.STOP_WITHIN_TOLERANCE}
    if seen and all(a in done for a in seen):
        if Action.STOP_WITHIN_TOLERANCE in seen:
            return Action.STOP_WITHIN_TOLERANCE
        return Action.STOP_NO_REGRESSION
    return Action.CONTINUE
