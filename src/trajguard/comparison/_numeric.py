"""Evaluators of rates (pass, crash), counts (steps) and positive quantities (tokens, latency)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from trajguard import stats as st
from trajguard.comparison._evaluation import (
    Evaluation,
    Resampling,
    Summary,
    design_min,
    is_constant,
    no_interval_note,
    number_summary,
    rank_equivalence,
    untestable,
)

__all__ = ["evaluate_rate", "evaluate_ratio", "evaluate_shift"]

FloatArray = npt.NDArray[np.float64]
_NEVER = 1 << 62  # closed_form_n that keeps a test on permutations


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
    base, cand = (
        Summary(n=n, mean=x / n if n else None, interval=st.wilson_interval(x, n) if n else None)
        for x, n in ((x_b, n_b), (x_c, n_c))
    )
    effect = f"difference in {label} (candidate - baseline)"
    if n_b == 0 or n_c == 0:
        return untestable(base, cand, effect, tost=True)
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
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=estimate,
        ci=st.newcombe_interval(x_c, n_c, x_b, n_b, 1 - alpha),
        test=test,
        harm=pvalue(x_b, n_b, x_c, n_c, harm_side),
        benefit=pvalue(x_b, n_b, x_c, n_c, benefit_side),
        min_harm=min_harm,
        min_benefit=min_benefit,
        tost=st.tost_rates(x_c, n_c, x_b, n_b, margin),
        outside=estimate < -margin if higher_is_better else estimate > margin,
        identical=x_b in (0, n_b) and x_c * n_b == x_b * n_c,
    )


@dataclass(frozen=True, kw_only=True)
class _Location:
    """Harm and benefit p-values of a location test, their minima, and the test's name."""

    harm: float
    benefit: float
    min_harm: float
    min_benefit: float
    test: str


def _location(
    b: FloatArray,
    c: FloatArray,
    rank: bool,
    rng: np.random.Generator,
    resampling: Resampling,
    closed_form_n: int,
) -> _Location:
    """The candidate being larger is harmful."""
    if min(b.size, c.size) >= closed_form_n and not (is_constant(b) or is_constant(c)):
        test = st.brunner_munzel(b, c) if rank else st.welch(b, c)
        # Zero spread of placements (complete separation) leaves no t reference: permute.
        if test.se > 0:
            name = "Brunner-Munzel (t)" if rank else "Welch t"
            return _Location(
                harm=test.greater, benefit=test.less, min_harm=0.0, min_benefit=0.0, test=name
            )
    values = np.r_[b, c]
    stat = st.bm_statistic(values) if rank else st.welch_statistic(values)
    res = st.permutation_test(stat, b.size, c.size, rng=rng, **vars(resampling))
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    name = "Brunner-Munzel" if rank else "Welch t"
    return _Location(
        harm=res.greater,
        benefit=res.less,
        min_harm=res.min_greater,
        min_benefit=res.min_less,
        test=f"{name} permutation ({kind})",
    )


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
    base, cand = number_summary(b), number_summary(c)
    effect = f"A = P(candidate > baseline) + P(tie)/2 for {label}"
    if b.size == 0 or c.size == 0:
        return untestable(base, cand, effect, tost=True)
    a = st.prob_superiority(b, c)
    if is_constant(b) and is_constant(c) and b[0] == c[0]:
        least = design_min(b.size, c.size)
        return Evaluation(
            baseline=base,
            candidate=cand,
            effect=effect,
            estimate=a,
            ci=None,
            test="none (identical)",
            harm=1.0,
            benefit=1.0,
            min_harm=least,
            min_benefit=least,
            tost=st.constant_shift_tost(b.size, c.size, margin),
            outside=False,
            identical=True,
            notes=(f"identical: every run has {label} {b[0]:g} in both batches",),
        )
    # The textbook method uses the t approximation from 10 runs; measured on A/A nights with
    # tie-heavy step counts (N=20) it gave p <= .001 three times too often, which BH's first
    # steps see.
    # The permutation distribution of the same statistic is exact at every N.
    tested = _location(b, c, True, rng, resampling, _NEVER)
    ci, tost = rank_equivalence(c, b, margin, alpha)
    return Evaluation(
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=a,
        ci=ci,
        tost=tost,
        outside=a > 0.5 + margin,
        notes=() if ci is not None else (no_interval_note(b, c, a),),
        **vars(tested),
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
        replace(number_summary(x), geometric_mean=float(np.exp(logs.mean())) if logs.size else None)
        for x, logs in ((b, lb), (c, lc))
    )
    effect = f"geometric-mean ratio of {label} (candidate / baseline)"
    if b.size == 0 or c.size == 0:
        return untestable(base, cand, effect, tost=True)
    ratio = float(np.exp(lc.mean() - lb.mean()))
    low, high = 1 / ratio_margin, ratio_margin
    if is_constant(lb) and is_constant(lc):
        tost = st.constant_median_tost(b.size, c.size, ratio, low, high)
        note = "equivalence of medians from constant batches"
        if lb[0] == lc[0]:
            least = design_min(b.size, c.size)
            return Evaluation(
                baseline=base,
                candidate=cand,
                effect=effect,
                estimate=1.0,
                ci=None,
                test="none (identical)",
                harm=1.0,
                benefit=1.0,
                min_harm=least,
                min_benefit=least,
                tost=tost,
                outside=False,
                identical=True,
                notes=(f"identical: every run has {label} {b[0]:g}; {note}",),
            )
        return Evaluation(
            baseline=base,
            candidate=cand,
            effect=effect,
            estimate=ratio,
            ci=None,
            tost=tost,
            outside=ratio > high,
            notes=(f"both batches constant; {note}",),
            **vars(_location(lb, lc, False, rng, resampling, 20)),
        )
    tested = _location(lb, lc, False, rng, resampling, 20)
    ci, tost = None, 1.0
    if b.size >= 2 and c.size >= 2:
        welch = st.welch(lb, lc)
        half = st.t_ppf(1 - alpha / 2, welch.df) * welch.se
        ci = (math.exp(welch.estimate - half), math.exp(welch.estimate + half))
        tost = max(
            st.t_sf((welch.estimate - math.log(low)) / welch.se, welch.df),
            st.t_cdf((welch.estimate - math.log(high)) / welch.se, welch.df),
        )
    return Evaluation(
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=ratio,
        ci=ci,
        tost=tost,
        outside=ratio > high,
        **vars(tested),
    )
