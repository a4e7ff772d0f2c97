"""One metric of one scenario: baseline runs against candidate runs, before multiplicity.

Each evaluator takes the two arms' values and returns an :class:`Evaluation`: summaries, the
effect with its interval, both one-sided p-values (harmful and beneficial direction), the
equivalence (TOST) p-value and the smallest p-value the design can produce. Verdicts are decided
later, once the whole report's p-values are adjusted together. No evaluator raises or returns NaN
on constant, tiny or empty arms; such cases carry a note instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from trajguard.live import resample
from trajguard.live import stats as st

__all__ = [
    "Evaluation",
    "Resampling",
    "Summary",
    "evaluate_rate",
    "evaluate_ratio",
    "evaluate_sequences",
    "evaluate_shift",
    "evaluate_tools",
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
    """

    n: int
    mean: float | None = None
    median: float | None = None
    sd: float | None = None
    q10: float | None = None
    q90: float | None = None
    interval: tuple[float, float] | None = None
    detail: tuple[tuple[str, float], ...] = ()


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
    return Evaluation(baseline, candidate, effect, None, None, "none", 1.0, 1.0, 1.0, 1.0,
                      1.0 if tost else None, False, testable=False,
                      notes=(f"no runs in the {side} batch: not tested",))


def _rank_equivalence(c: FloatArray, b: FloatArray, margin: float, alpha: float
                      ) -> tuple[tuple[float, float] | None, float]:
    """Interval for ``A`` and TOST p-value for ``|A - 1/2| < margin`` (statsmodels'
    ``rank_compare_2indep(c, b)`` method), or ``(None, 1.0)`` where they are undefined."""
    if c.size < 2 or b.size < 2:
        return None, 1.0
    with np.errstate(all="ignore"):
        res = resample.brunner_munzel(b, c)
    if not (res.se > 0 and math.isfinite(res.df)):
        return None, 1.0
    half = st.t_ppf(1 - alpha / 2, res.df) * res.se
    tost = max(st.t_sf((res.estimate - 0.5 + margin) / res.se, res.df),
               st.t_cdf((res.estimate - 0.5 - margin) / res.se, res.df))
    return (res.estimate - half, res.estimate + half), tost


def _constant(values: FloatArray) -> bool:
    return bool(values.min() == values.max())


def evaluate_rate(x_b: int, n_b: int, x_c: int, n_c: int, *, margin: float, alpha: float,
                  higher_is_better: bool, label: str) -> Evaluation:
    """A rate (pass, crash): Boschloo exact test, Newcombe interval, score TOST."""
    summaries = [Summary(n, x / n if n else None, interval=st.wilson_interval(x, n) if n else None)
                 for x, n in ((x_b, n_b), (x_c, n_c))]
    effect = f"difference in {label} (candidate - baseline)"
    if n_b == 0 or n_c == 0:
        return _untestable(summaries[0], summaries[1], effect, tost=True)
    harm_side: st.Alternative = "greater" if higher_is_better else "less"
    benefit_side: st.Alternative = "less" if higher_is_better else "greater"
    estimate = x_c / n_c - x_b / n_b
    return Evaluation(
        summaries[0], summaries[1], effect, estimate,
        st.newcombe_interval(x_c, n_c, x_b, n_b, 1 - alpha), "Boschloo exact",
        st.boschloo_pvalue(x_b, n_b, x_c, n_c, harm_side),
        st.boschloo_pvalue(x_b, n_b, x_c, n_c, benefit_side),
        st.boschloo_min_pvalue(n_b, n_c, harm_side), st.boschloo_min_pvalue(n_b, n_c, benefit_side),
        st.tost_rates(x_c, n_c, x_b, n_b, margin),
        estimate < -margin if higher_is_better else estimate > margin,
        identical=x_b in (0, n_b) and x_c * n_b == x_b * n_c,
    )


def _location(b: FloatArray, c: FloatArray, rank: bool, rng: np.random.Generator,
              resampling: Resampling, closed_form_n: int) -> tuple[float, float, float, float, str]:
    """Harm/benefit p-values and their minima; the candidate being larger is harmful."""
    if min(b.size, c.size) >= closed_form_n and not (_constant(b) or _constant(c)):
        test = resample.brunner_munzel(b, c) if rank else resample.welch(b, c)
        return test.greater, test.less, 0.0, 0.0, "Brunner-Munzel (t)" if rank else "Welch t"
    values = np.r_[b, c]
    stat = resample.bm_statistic(values) if rank else resample.welch_statistic(values)
    res = resample.permutation_test(stat, b.size, c.size, rng=rng, **vars(resampling))
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    name = "Brunner-Munzel" if rank else "Welch t"
    return res.greater, res.less, res.min_greater, res.min_less, f"{name} permutation ({kind})"


def evaluate_shift(b: FloatArray, c: FloatArray, *, margin: float, alpha: float,
                   rng: np.random.Generator, resampling: Resampling, label: str) -> Evaluation:
    """A count such as steps: Brunner-Munzel (permuted below 10 runs), ``A`` and its TOST."""
    base, cand = _numbers(b), _numbers(c)
    effect = f"A = P(candidate > baseline) + P(tie)/2 for {label}"
    if b.size == 0 or c.size == 0:
        return _untestable(base, cand, effect, tost=True)
    a = resample.prob_superiority(b, c)
    if _constant(b) and _constant(c) and b[0] == c[0]:
        return Evaluation(base, cand, effect, a, None, "none (identical)", 1.0, 1.0, 1.0, 1.0,
                          st.constant_shift_tost(b.size, c.size, margin), False, identical=True,
                          notes=(f"identical: every run has {label} {b[0]:g} in both batches",))
    harm, benefit, min_h, min_b, test = _location(b, c, True, rng, resampling, 10)
    ci, tost = _rank_equivalence(c, b, margin, alpha)
    notes = () if ci is not None else (
        "interval and equivalence undefined (a batch is constant or has one run)",)
    return Evaluation(base, cand, effect, a, ci, test, harm, benefit, min_h, min_b, tost,
                      a > 0.5 + margin, notes=notes)


def evaluate_ratio(b: FloatArray, c: FloatArray, *, ratio_margin: float, floor: float,
                   alpha: float, rng: np.random.Generator, resampling: Resampling,
                   label: str) -> Evaluation:
    """Tokens, latency: Welch t on logs (permuted below 20 runs), geometric-mean ratio, TOST."""
    base, cand = _numbers(b), _numbers(c)
    effect = f"geometric-mean ratio of {label} (candidate / baseline)"
    if b.size == 0 or c.size == 0:
        return _untestable(base, cand, effect, tost=True)
    lb, lc = np.log(np.maximum(b, floor)), np.log(np.maximum(c, floor))
    ratio = float(np.exp(lc.mean() - lb.mean()))
    low, high = 1 / ratio_margin, ratio_margin
    if _constant(lb) and _constant(lc):
        tost = st.constant_median_tost(b.size, c.size, ratio, low, high)
        note = "equivalence of medians from constant batches"
        if lb[0] == lc[0]:
            return Evaluation(base, cand, effect, 1.0, None, "none (identical)", 1.0, 1.0, 1.0,
                              1.0, tost, False, identical=True,
                              notes=(f"identical: every run has {label} {b[0]:g}; {note}",))
        harm, benefit, min_h, min_b, test = _location(lb, lc, False, rng, resampling, 20)
        return Evaluation(base, cand, effect, ratio, None, test, harm, benefit, min_h, min_b,
                          tost, ratio > high, notes=(f"both batches constant; {note}",))
    harm, benefit, min_h, min_b, test = _location(lb, lc, False, rng, resampling, 20)
    ci, tost = None, 1.0
    if b.size >= 2 and c.size >= 2:
        welch = resample.welch(lb, lc)
        half = st.t_ppf(1 - alpha / 2, welch.df) * welch.se
        ci = (math.exp(welch.estimate - half), math.exp(welch.estimate + half))
        tost = max(st.t_sf((welch.estimate - math.log(low)) / welch.se, welch.df),
                   st.t_cdf((welch.estimate - math.log(high)) / welch.se, welch.df))
    return Evaluation(base, cand, effect, ratio, ci, test, harm, benefit, min_h, min_b, tost,
                      ratio > high)


def _count_matrix(rows: Sequence[Mapping[str, int]], tools: Sequence[str]) -> FloatArray:
    return np.array([[float(row.get(t, 0)) for t in tools] for row in rows]).reshape(
        len(rows), len(tools))


def evaluate_tools(b: Sequence[Mapping[str, int]], c: Sequence[Mapping[str, int]], *,
                   margin: float, alpha: float,
                   rng: np.random.Generator | resample.Arrangements,
                   resampling: Resampling) -> Evaluation:
    """Tool multiset: run-level permutation of the G statistic; per-tool TOST on ``A``."""
    tools = sorted({t for row in (*b, *c) for t, k in row.items() if k})
    xb, xc = _count_matrix(b, tools), _count_matrix(c, tools)
    base, cand = (Summary(len(x), detail=tuple(zip(tools, (x.mean(axis=0) if len(x) else
                  np.zeros(len(tools))).tolist(), strict=True))) for x in (xb, xc))
    effect = "Cramer's V of the calls-by-tool table"
    if len(b) == 0 or len(c) == 0:
        return _untestable(base, cand, effect, tost=True)
    pooled = np.r_[xb, xc]
    if len(tools) == 0 or (np.all(pooled == pooled[0])):
        return Evaluation(base, cand, effect, 0.0, None, "none (identical)", 1.0, 1.0, 1.0, 1.0,
                          st.constant_shift_tost(len(b), len(c), margin), False, identical=True,
                          notes=("identical: every run made the same tool calls",))
    res = resample.permutation_test(resample.g_statistic(pooled), len(b), len(c), rng=rng,
                                    **vars(resampling))
    table = np.stack([xb.sum(axis=0), xc.sum(axis=0)])
    cramer = 0.0
    if table.sum(axis=1).all() and len(tools) > 1:
        expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
        cramer = math.sqrt(float(((table - expected) ** 2 / expected).sum()) / table.sum())
    tost, outside, shifts = 0.0, False, []
    for i, tool in enumerate(tools):
        tb, tc = xb[:, i], xc[:, i]
        a = resample.prob_superiority(tb, tc)
        outside = outside or abs(a - 0.5) > margin
        if _constant(tb) and _constant(tc):
            p = st.constant_shift_tost(len(b), len(c), margin) if tb[0] == tc[0] else 1.0
        else:
            p = _rank_equivalence(tc, tb, margin, alpha)[1]
        tost = max(tost, p)
        shifts.append((abs(tc.mean() - tb.mean()), f"{tool} {tc.mean() - tb.mean():+.2f}"))
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    notes = ["mean calls per run, candidate - baseline: "
             + ", ".join(s for _, s in sorted(shifts, reverse=True)[:3])]
    if len(tools) == 1:
        notes.append("one tool only: the multiset test has nothing to compare")
    return Evaluation(base, cand, effect, cramer, None, f"G permutation over runs ({kind})",
                      res.greater, 1.0, res.min_greater, 1.0, tost, outside, notes=tuple(notes))


def evaluate_sequences(b: Sequence[Sequence[str]], c: Sequence[Sequence[str]], *,
                       rng: np.random.Generator | resample.Arrangements,
                       resampling: Resampling) -> Evaluation:
    """Tool order: permutation of between-minus-within normalised Levenshtein distance."""
    names = {t: chr(0xE000 + i) for i, t in enumerate(sorted({t for s in (*b, *c) for t in s}))}
    encoded = ["".join(names[t] for t in seq) for seq in (*b, *c)]
    base, cand = (Summary(len(s), detail=(("distinct sequences", float(len(set(map(tuple, s))))),))
                  for s in (b, c))
    effect = "mean between - mean within normalised edit distance"
    if len(b) == 0 or len(c) == 0:
        return _untestable(base, cand, effect, tost=False)
    if len(set(encoded)) == 1:
        return Evaluation(base, cand, effect, 0.0, None, "none (identical)", 1.0, 1.0, 1.0, 1.0,
                          None, False, identical=True,
                          notes=("identical: every run called the same tools in the same order",))
    distances = process.cdist(encoded, encoded, scorer=Levenshtein.normalized_distance,
                              dtype=np.float64, workers=1)
    res = resample.permutation_test(resample.distance_statistic(np.asarray(distances)), len(b),
                                    len(c), rng=rng, **vars(resampling))
    seen = set(encoded[: len(b)])
    unseen = sum(s not in seen for s in encoded[len(b):]) / len(c)
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    return Evaluation(base, cand, effect, res.statistic, None, f"distance permutation ({kind})",
                      res.greater, 1.0, res.min_greater, 1.0, None, True,
                      notes=(f"{unseen:.0%} of candidate sequences unseen in the baseline",))
