"""What one metric's comparison yields before multiplicity, and the helpers every evaluator shares.

Each evaluator takes the two arms' values and returns an :class:`Evaluation`: summaries, the
effect with its interval, both one-sided p-values (harmful and beneficial direction), the
equivalence (TOST) p-value and the smallest p-value the design can produce. Verdicts are decided
later, once the whole report's p-values are adjusted together. No evaluator raises or returns NaN
on constant, tiny or empty arms; such cases carry a note instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trajguard import stats as st

__all__ = [
    "Evaluation",
    "Resampling",
    "Summary",
    "design_min",
    "is_constant",
    "no_interval_note",
    "number_summary",
    "one_sided_permutation",
    "rank_equivalence",
    "untestable",
]


FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, kw_only=True)
class Resampling:
    """Permutation settings; see :func:`trajguard.stats.permutation_test`."""

    n_resamples: int = 1999
    """random arrangements of a permutation test."""
    max_resamples: int = 19999
    """the most a test may draw when it refines a small p-value."""
    exact_limit: int = 50_000
    """up to this many arrangements a test enumerates them all."""


@dataclass(frozen=True, kw_only=True)
class Summary:
    """One batch's values of one metric (``None`` where undefined, never NaN)."""

    n: int
    """runs that entered the metric."""
    mean: float | None = None
    """the mean; for rates, the rate."""
    median: float | None = None
    """the median (``None`` for rates)."""
    sd: float | None = None
    """the sample standard deviation (``None`` below 2 runs or for rates)."""
    q10: float | None = None
    """the 10th percentile."""
    q90: float | None = None
    """the 90th percentile."""
    interval: tuple[float, float] | None = None
    """95% Wilson interval for rates."""
    detail: tuple[tuple[str, float], ...] = ()
    """named extras: mean calls per tool, or distinct sequences."""
    geometric_mean: float | None = None
    """geometric mean (tokens, latency; values below the floor count as the floor), what their
    effect, a ratio of geometric means, compares."""


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    """A metric compared before adjustment (see module docstring).

    Attributes:
        harm: p-value for a change in the harmful direction; for metrics without a direction, for
            any change.
        benefit: p-value for a change in the beneficial direction (1.0 without a direction).
        min_harm: smallest ``harm`` p-value this design can produce.
        min_benefit: smallest ``benefit`` p-value this design can produce.
        tost: equivalence p-value; ``None`` for report-only metrics.
        outside: the estimate lies beyond the tolerance band (on the harmful side if directional);
            always true for tool order, which has no band.
        identical: both batches are constant at the same value.
        testable: both batches had runs; otherwise every p-value is 1.0.
    """

    baseline: Summary
    candidate: Summary
    effect: str
    estimate: float | None
    ci: tuple[float, float] | None
    test: str
    harm: float
    benefit: float
    min_harm: float
    min_benefit: float
    tost: float | None
    outside: bool
    identical: bool = False
    testable: bool = True
    notes: tuple[str, ...] = ()


def number_summary(values: FloatArray) -> Summary:
    """Count, mean, median, spread and deciles of one batch's values."""
    if values.size == 0:
        return Summary(n=0)
    q10, median, q90 = np.quantile(values, [0.1, 0.5, 0.9])
    return Summary(
        n=values.size,
        mean=float(values.mean()),
        median=float(median),
        sd=float(values.std(ddof=1)) if values.size > 1 else None,
        q10=float(q10),
        q90=float(q90),
    )


def untestable(baseline: Summary, candidate: Summary, effect: str, *, tost: bool) -> Evaluation:
    """The evaluation of a metric one batch has no runs for: every p-value 1.0, with a note."""
    side = "baseline" if baseline.n == 0 else "candidate"
    return Evaluation(
        baseline=baseline,
        candidate=candidate,
        effect=effect,
        estimate=None,
        ci=None,
        test="none",
        harm=1.0,
        benefit=1.0,
        min_harm=1.0,
        min_benefit=1.0,
        tost=1.0 if tost else None,
        outside=False,
        testable=False,
        notes=(f"no runs in the {side} batch: not tested",),
    )


def one_sided_permutation(
    res: st.PermutationResult,
    *,
    test: str,
    baseline: Summary,
    candidate: Summary,
    effect: str,
    estimate: float,
    margin: float,
    tost: float | None,
    notes: tuple[str, ...],
) -> Evaluation:
    """The evaluation of a statistic that only grows with change (a distance, a rise): a large
    value is harm, nothing is benefit, and the effect is outside its band above ``margin``."""
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    return Evaluation(
        baseline=baseline,
        candidate=candidate,
        effect=effect,
        estimate=estimate,
        ci=None,
        test=f"{test} ({kind})",
        harm=res.greater,
        benefit=1.0,
        min_harm=res.min_greater,
        min_benefit=1.0,
        tost=tost,
        outside=estimate > margin,
        notes=notes,
    )


def rank_equivalence(
    c: FloatArray, b: FloatArray, margin: float, alpha: float
) -> tuple[tuple[float, float] | None, float]:
    """Interval for ``A`` and TOST p-value for ``|A - 1/2| < margin`` (statsmodels'
    ``rank_compare_2indep(c, b)`` method), or ``(None, 1.0)`` where they are undefined."""
    if c.size < 2 or b.size < 2:
        return None, 1.0
    with np.errstate(all="ignore"):
        res = st.brunner_munzel(b, c)
    if not res.se > 0:
        return None, 1.0
    half = st.t_ppf(1 - alpha / 2, res.df) * res.se
    tost = max(
        st.t_sf((res.estimate - 0.5 + margin) / res.se, res.df),
        st.t_cdf((res.estimate - 0.5 - margin) / res.se, res.df),
    )
    # A is a probability: the t interval can run past 0 or 1, the parameter cannot.
    return (max(0.0, res.estimate - half), min(1.0, res.estimate + half)), tost


def no_interval_note(b: FloatArray, c: FloatArray, a: float) -> str:
    """Why the rank interval and equivalence test are undefined."""
    if b.size < 2 or c.size < 2:
        why = "a batch has a single run"
    elif a in (0.0, 1.0):
        side = "above" if a == 1.0 else "below"
        why = f"the batches do not overlap (every candidate run {side} every baseline run)"
    else:
        why = "the rank placements have no spread"
    return f"interval and equivalence undefined: {why}, so the rank variance estimate is zero"


def is_constant(values: FloatArray) -> bool:
    """Every value is the same (the array is not empty)."""
    return bool(values.min() == values.max())


def design_min(n_b: int, n_c: int) -> float:
    """Smallest p-value of an exact permutation test with these arm sizes."""
    return 1 / math.comb(n_b + n_c, n_c)
