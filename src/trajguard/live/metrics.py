"""One metric of one scenario: baseline runs against candidate runs, before multiplicity.

Each evaluator takes the two arms' values and returns an :class:`Evaluation`: summaries, the
effect with its interval, both one-sided p-values (harmful and beneficial direction), the
equivalence (TOST) p-value and the smallest p-value the design can produce. Verdicts are decided
later, once the whole report's p-values are adjusted together. No evaluator raises or returns NaN
on constant, tiny or empty arms; such cases carry a note instead. Tool multisets and tool order
are in :mod:`trajguard.live.tool_metrics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from trajguard.live import location, resample
from trajguard.live import stats as st

__all__ = [
    "Evaluation",
    "Resampling",
    "Summary",
    "evaluate_rate",
    "evaluate_ratio",
    "evaluate_shift",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Resampling:
    """Permutation settings; see :func:`trajguard.live.resample.permutation_test`."""

    n_resamples: int = 1999
    max_resamples: int = 19999
    exact_limit: int = 50_000


@dataclass(frozen=True)
class Summary:
    """One batch's values of one metric (``None`` where undefined, never NaN).

    Attributes:
        n: runs that entered the metric.
        mean: the mean; for rates, the rate.
        median: the median (``None`` for rates).
        sd: the sample standard deviation (``None`` below 2 runs or for rates).
        q10: the 10th percentile.
        q90: the 90th percentile.
        interval: 95% Wilson interval for rates.
        detail: named extras: mean calls per tool, or distinct sequences.
        geometric_mean: geometric mean (tokens, latency; values below the floor count as the
            floor), what their effect, a ratio of geometric means, compares.
    """

    n: int
    mean: float | None = None
    median: float | None = None
    sd: float | None = None
    q10: float | None = None
    q90: float | None = None
    interval: tuple[float, float] | None = None
    detail: tuple[tuple[str, float], ...] = ()
    geometric_mean: float | None = None


@dataclass(frozen=True)
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


def _numbers(values: FloatArray) -> Summary:
    if values.size == 0:
        return Summary(0)
    q10, median, q90 = np.quantile(values, [0.1, 0.5, 0.9])
    sd = float(values.std(ddof=1)) if values.size > 1 else None
    return Summary(values.size, float(values.mean()), float(median), sd, float(q10), float(q90))


def _untestable(baseline: Summary, candidate: Summary, effect: str, tost: bool) -> Evaluation:
    side = "baseline" if baseline.n == 0 else "candidate"
    return Evaluation(
        baseline,
        candidate,
        effect,
        None,
        None,
        "none",
        1.0,
        1.0,
        1.0,
        1.0,
        1.0 if tost else None,
        False,
        testable=False,
        notes=(f"no runs in the {side} batch: not tested",),
    )


def _rank_equivalence(
    c: FloatArray, b: FloatArray, margin: float, alpha: float
) -> tuple[tuple[float, float] | None, float]:
    """Interval for ``A`` and TOST p-value for ``|A - 1/2| < margin`` (statsmodels'
    ``rank_compare_2indep(c, b)`` method), or ``(None, 1.0)`` where they are undefined."""
    if c.size < 2 or b.size < 2:
        return None, 1.0
    with np.errstate(all="ignore"):
        res = location.brunner_munzel(b, c)
    if not res.se > 0:
        return None, 1.0
    half = st.t_ppf(1 - alpha / 2, res.df) * res.se
    tost = max(
        st.t_sf((res.estimate - 0.5 + margin) / res.se, res.df),
        st.t_cdf((res.estimate - 0.5 - margin) / res.se, res.df),
    )
    # A is a probability: the t interval can run past 0 or 1, the parameter cannot.
    return (max(0.0, res.estimate - half), min(1.0, res.estimate + half)), tost


def _no_interval_note(b: FloatArray, c: FloatArray, a: float) -> str:
    """Why the rank interval and equivalence test are undefined."""
    if b.size < 2 or c.size < 2:
        why = "a batch has a single run"
    elif a in (0.0, 1.0):
        side = "above" if a == 1.0 else "below"
        why = f"the batches do not overlap (every candidate run {side} every baseline run)"
    else:
        why = "the rank placements have no spread"
    return f"interval and equivalence undefined: {why}, so the rank variance estimate is zero"


def _constant(values: FloatArray) -> bool:
    return bool(values.min() == values.max())


_NEVER = 1 << 62  # closed_form_n that keeps a test on permutations


def _design_min(n_b: int, n_c: int) -> float:
    """Smallest p-value of an exact permutation test with these arm sizes."""
    return 1 / math.comb(n_b + n_c, n_c)


def evaluate_rate(
    x_b: int,
    n_b: int,
    x_c: int,
    n_c: int,
    *,
    margin: float,
    alpha: float,
    higher_is_better: bool,
    label: str,
) -> Evaluation:
    """A rate (pass, crash): Boschloo exact test, Newcombe interval, score TOST."""
    summaries = [
        Summary(n, x / n if n else None, interval=st.wilson_interval(x, n) if n else None)
        for x, n in ((x_b, n_b), (x_c, n_c))
    ]
    effect = f"difference in {label} (candidate - baseline)"
    if n_b == 0 or n_c == 0:
        return _untestable(summaries[0], summaries[1], effect, tost=True)
    harm_side: st.Alternative = "greater" if higher_is_better else "less"
    benefit_side: st.Alternative = "less" if higher_is_better else "greater"
    estimate = x_c / n_c - x_b / n_b
    if st.boschloo_feasible(n_b, n_c):
        test, pvalue = "Boschloo exact", st.boschloo_pvalue
        min_harm = st.boschloo_min_pvalue(n_b, n_c, harm_side)
        min_benefit = st.boschloo_min_pvalue(n_b, n_c, benefit_side)
    else:
        test, pvalue = "Fisher exact (too many runs for Boschloo's table)", st.fisher_pvalue
        min_harm = min_benefit = st.fisher_min_pvalue(n_b, n_c)
    return Evaluation(
        summaries[0],
        summaries[1],
        effect,
        estimate,
        st.newcombe_interval(x_c, n_c, x_b, n_b, 1 - alpha),
        test,
        pvalue(x_b, n_b, x_c, n_c, harm_side),
        pvalue(x_b, n_b, x_c, n_c, benefit_side),
        min_harm,
        min_benefit,
        st.tost_rates(x_c, n_c, x_b, n_b, margin),
        estimate < -margin if higher_is_better else estimate > margin,
        identical=x_b in (0, n_b) and x_c * n_b == x_b * n_c,
    )


def _location(
    b: FloatArray,
    c: FloatArray,
    rank: bool,
    rng: np.random.Generator,
    resampling: Resampling,
    closed_form_n: int,
) -> tuple[float, float, float, float, str]:
    """Harm/benefit p-values and their minima; the candidate being larger is harmful."""
    if min(b.size, c.size) >= closed_form_n and not (_constant(b) or _constant(c)):
        test = location.brunner_munzel(b, c) if rank else location.welch(b, c)
        # Zero spread of placements (complete separation) leaves no t reference: permute.
        if test.se > 0:
            return test.greater, test.less, 0.0, 0.0, "Brunner-Munzel (t)" if rank else "Welch t"
    values = np.r_[b, c]
    stat = resample.bm_statistic(values) if rank else resample.welch_statistic(values)
    res = resample.permutation_test(stat, b.size, c.size, rng=rng, **vars(resampling))
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    name = "Brunner-Munzel" if rank else "Welch t"
    return res.greater, res.less, res.min_greater, res.min_less, f"{name} permutation ({kind})"


def evaluate_shift(
    b: FloatArray,
    c: FloatArray,
    *,
    margin: float,
    alpha: float,
    rng: np.random.Generator,
    resampling: Resampling,
    label: str,
) -> Evaluation:
    """A count such as steps: permuted Brunner-Munzel statistic, ``A`` and its TOST."""
    base, cand = _numbers(b), _numbers(c)
    effect = f"A = P(candidate > baseline) + P(tie)/2 for {label}"
    if b.size == 0 or c.size == 0:
        return _untestable(base, cand, effect, tost=True)
    a = location.prob_superiority(b, c)
    if _constant(b) and _constant(c) and b[0] == c[0]:
        least = _design_min(b.size, c.size)
        return Evaluation(
            base,
            cand,
            effect,
            a,
            None,
            "none (identical)",
            1.0,
            1.0,
            least,
            least,
            st.constant_shift_tost(b.size, c.size, margin),
            False,
            identical=True,
            notes=(f"identical: every run has {label} {b[0]:g} in both batches",),
        )
    # statistics.md uses the t approximation from 10 runs; measured on A/A nights with tie-heavy
    # step counts (N=20) it gave p <= .001 three times too often, which BH's first steps see.
    # The permutation distribution of the same statistic is exact at every N.
    harm, benefit, min_h, min_b, test = _location(b, c, True, rng, resampling, _NEVER)
    ci, tost = _rank_equivalence(c, b, margin, alpha)
    notes = () if ci is not None else (_no_interval_note(b, c, a),)
    return Evaluation(
        base,
        cand,
        effect,
        a,
        ci,
        test,
        harm,
        benefit,
        min_h,
        min_b,
        tost,
        a > 0.5 + margin,
        notes=notes,
    )


def evaluate_ratio(
    b: FloatArray,
    c: FloatArray,
    *,
    ratio_margin: float,
    floor: float,
    alpha: float,
    rng: np.random.Generator,
    resampling: Resampling,
    label: str,
) -> Evaluation:
    """Tokens, latency: Welch t on logs (permuted below 20 runs), geometric-mean ratio, TOST."""
    lb, lc = np.log(np.maximum(b, floor)), np.log(np.maximum(c, floor))
    base, cand = (
        replace(_numbers(x), geometric_mean=float(np.exp(logs.mean())) if logs.size else None)
        for x, logs in ((b, lb), (c, lc))
    )
    effect = f"geometric-mean ratio of {label} (candidate / baseline)"
    if b.size == 0 or c.size == 0:
        return _untestable(base, cand, effect, tost=True)
    ratio = float(np.exp(lc.mean() - lb.mean()))
    low, high = 1 / ratio_margin, ratio_margin
    if _constant(lb) and _constant(lc):
        tost = st.constant_median_tost(b.size, c.size, ratio, low, high)
        note = "equivalence of medians from constant batches"
        if lb[0] == lc[0]:
            least = _design_min(b.size, c.size)
            return Evaluation(
                base,
                cand,
                effect,
                1.0,
                None,
                "none (identical)",
                1.0,
                1.0,
                least,
                least,
                tost,
                False,
                identical=True,
                notes=(f"identical: every run has {label} {b[0]:g}; {note}",),
            )
        harm, benefit, min_h, min_b, test = _location(lb, lc, False, rng, resampling, 20)
        return Evaluation(
            base,
            cand,
            effect,
            ratio,
            None,
            test,
            harm,
            benefit,
            min_h,
            min_b,
            tost,
            ratio > high,
            notes=(f"both batches constant; {note}",),
        )
    harm, benefit, min_h, min_b, test = _location(lb, lc, False, rng, resampling, 20)
    ci, tost = None, 1.0
    if b.size >= 2 and c.size >= 2:
        welch = location.welch(lb, lc)
        half = st.t_ppf(1 - alpha / 2, welch.df) * welch.se
        ci = (math.exp(welch.estimate - half), math.exp(welch.estimate + half))
        tost = max(
            st.t_sf((welch.estimate - math.log(low)) / welch.se, welch.df),
            st.t_cdf((welch.estimate - math.log(high)) / welch.se, welch.df),
        )
    return Evaluation(
        base, cand, effect, ratio, ci, test, harm, benefit, min_h, min_b, tost, ratio > high
    )
