"""What N would decide an inconclusive gating metric at the effect these runs observed.

"Decide" means the verdict the observed effect points to: a regression when the estimate lies
beyond the band on the harmful side, an improvement beyond it on the other side, "unchanged"
(the equivalence test) inside it. Pass and
crash rates use the exact power of Boschloo's test (regression) or the normal approximation
of the score TOST (equivalence); the other metrics extrapolate their own p-value: a test's z
grows as the square root of the runs, so N runs per side reach ``z_level + z_power`` at
``N * ((z_level + z_power) / z_observed)**2``. Either is a planning figure, not a promise: the
observed effect is itself uncertain at this N.
"""

from __future__ import annotations

import math

from trajguard import stats as st
from trajguard._text import counted
from trajguard.comparison._registry import metric
from trajguard.comparison._results import MetricResult

__all__ = ["decide_note", "runs_to_decide"]

_MAX = 100_000


def _extrapolate(p: float | None, n: int, level: float, power: float) -> int | None:
    if p is None or not 0 < p < 0.5:
        return None
    z_obs = st.norm_ppf(1 - p)
    if z_obs <= 0:  # p within rounding of 0.5: no evidence either way to extrapolate
        return None
    target = st.norm_ppf(1 - level) + st.norm_ppf(power)
    return max(n + 1, min(_MAX, math.ceil(n * (target / z_obs) ** 2)))


def _equivalent_rates(
    p_b: float, p_c: float, band: float, level: float, power: float
) -> int | None:
    gap = band - abs(p_c - p_b)
    if gap <= 0:
        return None
    spread = p_b * (1 - p_b) + p_c * (1 - p_c)
    z = st.norm_ppf(1 - level) + st.norm_ppf(1 - (1 - power) / 2)
    return max(2, min(_MAX, math.ceil(z * z * max(spread, 1e-4) / (gap * gap))))


def runs_to_decide(
    result: MetricResult, *, band: float | None, level: float, alpha: float, power: float
) -> tuple[int, str] | None:
    """(runs per side, what they would show) for an inconclusive metric; ``None`` when no N
    would (the observed effect is nil or points the other way).

    Args:
        result: the metric's result.
        band: its tolerance band.
        level: the level a regression must clear (the family's first step).
        alpha: the equivalence test's level.
        power: the power to plan for.
    """
    m = metric(result.metric)
    n = min(result.baseline.n, result.candidate.n)
    if n == 0 or result.estimate is None:
        return None
    harmful = _beyond_band(result, band)
    better = _beyond_band(result, band, beneficial=True)
    if m.kind == "rate" and band is not None:
        p_b, p_c = result.baseline.mean, result.candidate.mean
        if p_b is None or p_c is None:
            return None
        if harmful or better:
            # A drop of pass rate (or rise of crash rate) from the baseline; an improvement is
            # the same problem on the complementary rate.
            good_b, good_c = (p_b, p_c) if m.higher_is_better else (1 - p_b, 1 - p_c)
            base, change = (good_b, good_b - good_c) if harmful else (1 - good_b, good_c - good_b)
            needed = st.n_needed_pass_rate(base, change, alpha=level, power=power)
            what = "a regression" if harmful else "an improvement"
            return (needed, what) if needed else None
        needed = _equivalent_rates(p_b, p_c, band, alpha, power)
        return (needed, "it unchanged") if needed else None
    if harmful:
        needed = _extrapolate(result.p_value, n, level, power)
        return (needed, "a regression") if needed else None
    if better:
        needed = _extrapolate(result.p_benefit, n, alpha, power)
        return (needed, "an improvement") if needed else None
    needed = _extrapolate(result.p_tost, n, alpha, power)
    return (needed, "it unchanged") if needed else None


def _beyond_band(result: MetricResult, band: float | None, *, beneficial: bool = False) -> bool:
    m = metric(result.metric)
    estimate = result.estimate
    if estimate is None or band is None:
        return False
    if beneficial and not m.directional:
        return False
    sign = -1.0 if beneficial else 1.0
    if m.kind == "rate":
        return sign * (-estimate if m.higher_is_better else estimate) > band
    if m.kind == "shift":
        return sign * (estimate - 0.5) > band
    if m.kind == "ratio":
        return (estimate < 1 / band) if beneficial else estimate > band
    return estimate > band


def decide_note(
    result: MetricResult, *, band: float | None, level: float, alpha: float, power: float
) -> str | None:
    """The note an inconclusive gating metric carries: the N that would decide it."""
    found = runs_to_decide(result, band=band, level=level, alpha=alpha, power=power)
    effect = metric(result.metric).format_effect(result.estimate, None)[0]
    if found is None:
        return (
            f"inconclusive: at the observed effect ({effect}) more runs alone would not decide "
            "it (the effect is too small to show, or points away from the test's direction)"
        )
    needed, what = found
    return (
        f"inconclusive at N={min(result.baseline.n, result.candidate.n)}: at the observed "
        f"effect ({effect}) about {counted(needed, 'run')} per side would show {what} with "
        f"{100 * power:.0f}% power"
    )
