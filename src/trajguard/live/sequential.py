"""Sequential mode: candidate runs in batches, stopping early at alpha-spending thresholds.

Efficacy thresholds are the increments of the Lan-DeMets O'Brien-Fleming spending function
``alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))``; testing look ``i`` at its increment keeps the
total type I error at most ``alpha`` for any valid p-value (union bound), so every test of
:mod:`trajguard.live.metrics` can be used. Stopping for futility ("no regression detected" when
the candidate is no worse than the baseline) is non-binding and cannot raise the type I error.
Across the gating tests of a night, pass ``alpha`` divided by the number of tests (Bonferroni):
Holm's step-down needs every p-value at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

import numpy as np
from scipy import stats

from trajguard.live import stats as st

__all__ = [
    "Action",
    "combine",
    "obf_thresholds",
    "rate_can_still_regress",
    "sequential_decision",
]


class Action(StrEnum):
    """What to do after a look."""

    CONTINUE = "continue"
    STOP_REGRESSED = "stop: regressed"
    STOP_NO_REGRESSION = "stop: no regression detected"


def obf_thresholds(alpha: float, looks: int | Sequence[float]) -> tuple[float, ...]:
    """Per-look one-sided significance thresholds under O'Brien-Fleming-type spending.

    Args:
        alpha: total one-sided type I error.
        looks: number of equally spaced looks, or the information fractions of the looks
            (increasing, the last equal to 1), e.g. runs so far over maximum runs.

    Returns:
        One threshold per look; for ``alpha=0.05`` and 3 looks: 0.0007, 0.0157, 0.0336.
    """
    fractions = (
        np.arange(1, looks + 1) / looks if isinstance(looks, int) else np.asarray(looks, float)
    )
    if fractions.size == 0 or np.any(np.diff(fractions) <= 0) or not fractions[0] > 0:
        raise ValueError("looks must be a positive count or increasing fractions in (0, 1]")
    if not np.isclose(fractions[-1], 1.0):
        raise ValueError("the last look must be at the maximum number of runs (fraction 1)")
    z = stats.norm.ppf(1 - alpha / 2)
    spent = 2 - 2 * stats.norm.cdf(z / np.sqrt(fractions))
    return tuple(float(x) for x in np.diff(np.r_[0.0, spent]))


def sequential_decision(look: int, p_value: float, *, thresholds: Sequence[float],
                        candidate_no_worse: bool, can_still_regress: bool = True) -> Action:
    """The decision after look ``look`` (0-based) for one gating test.

    Args:
        look: index of the look just taken.
        p_value: the test's one-sided p-value (harmful direction) on all runs so far.
        thresholds: from :func:`obf_thresholds`.
        candidate_no_worse: the candidate's estimate is at least as good as the baseline's
            (the futility rule).
        can_still_regress: ``False`` when no outcome of the remaining runs could cross a later
            threshold (curtailment; see :func:`rate_can_still_regress`).

    Returns:
        ``STOP_REGRESSED`` at or below the look's threshold; ``STOP_NO_REGRESSION`` on futility,
        curtailment or at the last look; otherwise ``CONTINUE``.
    """
    if p_value <= thresholds[look]:
        return Action.STOP_REGRESSED
    if candidate_no_worse or not can_still_regress or look >= len(thresholds) - 1:
        return Action.STOP_NO_REGRESSION
    return Action.CONTINUE


def rate_can_still_regress(x_b: int, n_b: int, x_c: int, n_c: int, *,
                           later_n_c: Sequence[int], later_thresholds: Sequence[float],
                           higher_is_better: bool = True) -> bool:
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


def combine(actions: Iterable[Action]) -> Action:
    """One scenario's action from its gating tests: any regression stops, all must be done."""
    seen = list(actions)
    if Action.STOP_REGRESSED in seen:
        return Action.STOP_REGRESSED
    if seen and all(a is Action.STOP_NO_REGRESSION for a in seen):
        return Action.STOP_NO_REGRESSION
    return Action.CONTINUE
