"""Every test path of the metric evaluators against scipy / statsmodels / enumeration,
including ties, constant batches, N = 3, zero crashes and empty arms."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy import stats
from statsmodels.stats.nonparametric import rank_compare_2indep
from statsmodels.stats.weightstats import ttost_ind

from trajguard import comparison as mt
from trajguard import stats as st
from trajguard.comparison._numeric import evaluate_rate, evaluate_ratio, evaluate_shift
from trajguard.comparison._tools import evaluate_sequences, evaluate_tools, novelty

RES = mt.Resampling()


def rng():
    return np.random.default_rng(0)


def _floats(ev: mt.Evaluation):
    yield from (ev.harm, ev.benefit, ev.min_harm, ev.min_benefit)
    yield from (x for x in (ev.estimate, ev.tost) if x is not None)
    yield from (ev.ci or ())
    for s in (ev.baseline, ev.candidate):
        yield from (x for x in (s.mean, s.median, s.sd, s.q10, s.q90) if x is not None)
        yield from (s.interval or ())
        yield from (v for _, v in s.detail)


def _defined(ev: mt.Evaluation) -> None:
    assert all(math.isfinite(x) for x in _floats(ev)), ev
    assert 0 <= ev.harm <= 1
    assert 0 <= ev.benefit <= 1


# ---- rates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x_b", "n_b", "x_c", "n_c"), [(19, 20, 12, 20), (3, 3, 0, 3), (0, 20, 0, 20), (20, 20, 20, 20)]
)
def test_rate_pvalues_match_scipy(x_b, n_b, x_c, n_c):
    ev = evaluate_rate(
        x_b, n_b, x_c, n_c, margin=0.1, alpha=0.05, higher_is_better=True, label="pass rate"
    )
    table = [[x_b, x_c], [n_b - x_b, n_c - x_c]]
    assert ev.harm == pytest.approx(
        stats.boschloo_exact(table, alternative="greater").pvalue, rel=1e-4
    )
    assert ev.benefit == pytest.approx(
        stats.boschloo_exact(table, alternative="less").pvalue, rel=1e-4
    )
    assert ev.estimate == pytest.approx(x_c / n_c - x_b / n_b)
    _defined(ev)


def test_zero_crashes_in_both_batches():
    ev = evaluate_rate(
        0, 20, 0, 20, margin=0.05, alpha=0.05, higher_is_better=False, label="crash rate"
    )
    assert ev.harm == pytest.approx(1.0)
    assert ev.identical
    assert not ev.outside
    _defined(ev)


def test_crash_increase_is_harm():
    ev = evaluate_rate(
        0, 20, 8, 20, margin=0.05, alpha=0.05, higher_is_better=False, label="crash rate"
    )
    # More crashes in the candidate: the baseline's non-crash rate is higher.
    expected = stats.boschloo_exact([[0, 8], [20, 12]], alternative="less").pvalue
    assert ev.harm == pytest.approx(expected, rel=1e-4)
    assert ev.outside


def test_rate_with_an_empty_arm_is_untestable():
    ev = evaluate_rate(
        5, 10, 0, 0, margin=0.1, alpha=0.05, higher_is_better=True, label="pass rate"
    )
    assert not ev.testable
    assert ev.harm == 1.0
    assert "no runs in the candidate batch" in ev.notes[0]
    _defined(ev)


def test_rate_large_n_uses_fisher():
    ev = evaluate_rate(
        180, 200, 150, 200, margin=0.1, alpha=0.05, higher_is_better=True, label="pass rate"
    )
    assert ev.test.startswith("Fisher")
    expected = stats.fisher_exact([[180, 150], [20, 50]], alternative="greater").pvalue
    assert ev.harm == pytest.approx(expected)


# ---- steps -------------------------------------------------------------------------------------


def _bm_clipped(x, y, axis=-1):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = stats.brunnermunzel(x, y, distribution="normal", axis=axis).statistic
    return np.clip(np.nan_to_num(s, nan=0.0, posinf=1e12, neginf=-1e12), -1e12, 1e12)


def test_steps_large_n_permuted_brunner_munzel():
    r = np.random.default_rng(1)
    b, c = r.poisson(5, 12).astype(float), r.poisson(6, 15).astype(float)
    ev = evaluate_shift(b, c, margin=0.1, alpha=0.05, rng=rng(), resampling=RES, label="steps")
    assert ev.test == "Brunner-Munzel permutation (1999 resamples)"
    ref = stats.permutation_test(
        (b, c),
        _bm_clipped,
        n_resamples=99_999,
        vectorized=True,
        alternative="greater",
        rng=np.random.default_rng(2),
    ).pvalue
    assert abs(ev.harm - ref) < 4 * np.sqrt(ref * (1 - ref) / 1999)
    ref_ci = rank_compare_2indep(c, b)
    assert ev.estimate == pytest.approx(ref_ci.prob1)
    assert ev.ci == pytest.approx(ref_ci.conf_int(alpha=0.05))
    assert ev.tost == pytest.approx(ref_ci.tost_prob_superior(0.4, 0.6).pvalue)


@pytest.mark.parametrize(
    ("b", "c"),
    [
        ([3, 4, 4], [5, 5, 6]),  # N = 3
        ([2, 3, 3, 3, 4, 4], [3, 3, 4, 5, 5, 6, 6]),
    ],
)  # ties
def test_steps_small_n_exact_permutation(b, c):
    b, c = np.asarray(b, float), np.asarray(c, float)
    ev = evaluate_shift(b, c, margin=0.1, alpha=0.05, rng=rng(), resampling=RES, label="steps")
    assert "exact" in ev.test
    ref = stats.permutation_test(
        (b, c), _bm_clipped, n_resamples=np.inf, vectorized=True, alternative="greater"
    )
    assert ev.harm == pytest.approx(ref.pvalue)
    assert ev.min_harm == pytest.approx(1 / math.comb(len(b) + len(c), len(c)))
    _defined(ev)


def test_steps_one_constant_arm_at_large_n_is_permuted():
    b = np.full(12, 5.0)
    c = np.r_[np.full(8, 5.0), [6, 7, 7, 8]]
    ev = evaluate_shift(b, c, margin=0.1, alpha=0.05, rng=rng(), resampling=RES, label="steps")
    assert "permutation" in ev.test
    _defined(ev)


def test_steps_identical_constant_batches():
    b, c = np.full(50, 4.0), np.full(50, 4.0)
    ev = evaluate_shift(b, c, margin=0.1, alpha=0.05, rng=rng(), resampling=RES, label="steps")
    assert ev.identical
    assert ev.harm == 1.0
    # The equivalence bound: half the joint Clopper-Pearson bounds must fit inside 0.1.
    assert ev.tost == pytest.approx(2 * 0.9**50)
    assert ev.tost < 0.05
    small = evaluate_shift(
        np.full(3, 4.0),
        np.full(3, 4.0),
        margin=0.1,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="steps",
    )
    assert small.tost == 1.0
    _defined(small)


def test_steps_constant_but_different():
    ev = evaluate_shift(
        np.full(3, 3.0),
        np.full(3, 4.0),
        margin=0.1,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="steps",
    )
    assert ev.harm == pytest.approx(1 / 20)
    assert ev.estimate == 1.0
    assert ev.ci is None
    assert ev.tost == 1.0
    _defined(ev)


def test_steps_single_runs():
    ev = evaluate_shift(
        np.array([3.0]),
        np.array([5.0]),
        margin=0.1,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="steps",
    )
    assert ev.min_harm == pytest.approx(0.5)
    _defined(ev)


# ---- tokens and latency ------------------------------------------------------------------------


def test_ratio_large_n_welch_on_logs():
    r = np.random.default_rng(2)
    b, c = r.lognormal(7, 0.3, 25), r.lognormal(7.15, 0.3, 22)
    ev = evaluate_ratio(
        b,
        c,
        ratio_margin=1.15,
        floor=1.0,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="prompt tokens",
    )
    assert ev.test == "Welch t"
    ref = stats.ttest_ind(np.log(c), np.log(b), equal_var=False, alternative="greater")
    assert ev.harm == pytest.approx(ref.pvalue)
    ci = stats.ttest_ind(np.log(c), np.log(b), equal_var=False).confidence_interval(0.95)
    assert ev.ci == pytest.approx((np.exp(ci.low), np.exp(ci.high)))
    tost = ttost_ind(c, b, 1 / 1.15, 1.15, usevar="unequal", transform=np.log)[0]
    assert ev.tost == pytest.approx(tost)
    assert ev.estimate == pytest.approx(np.exp(np.log(c).mean() - np.log(b).mean()))


def test_ratio_small_n_permutation_matches_scipy():
    r = np.random.default_rng(3)
    b, c = r.lognormal(5, 0.3, 5), r.lognormal(5.5, 0.3, 5)
    ev = evaluate_ratio(
        b, c, ratio_margin=1.15, floor=1.0, alpha=0.05, rng=rng(), resampling=RES, label="latency"
    )
    ref = stats.ttest_ind(
        np.log(c),
        np.log(b),
        equal_var=False,
        alternative="greater",
        method=stats.PermutationMethod(n_resamples=np.inf),
    )
    assert ev.harm == pytest.approx(ref.pvalue)
    assert "exact" in ev.test


def test_ratio_identical_constant_batches_use_the_median_bound():
    ev = evaluate_ratio(
        np.full(8, 120.0),
        np.full(6, 120.0),
        ratio_margin=1.15,
        floor=1.0,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="prompt tokens",
    )
    assert ev.identical
    assert ev.tost == pytest.approx(2 * 0.5**6)
    _defined(ev)


def test_ratio_constant_different_batches():
    ev = evaluate_ratio(
        np.full(8, 100.0),
        np.full(8, 105.0),
        ratio_margin=1.15,
        floor=1.0,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="prompt tokens",
    )
    assert ev.estimate == pytest.approx(1.05)
    assert ev.harm == pytest.approx(1 / math.comb(16, 8))
    assert ev.tost == pytest.approx(2 * 0.5**8)  # medians 100 and 105 are inside the band
    _defined(ev)


def test_ratio_zero_tokens_use_the_floor():
    ev = evaluate_ratio(
        np.array([0.0, 10, 12]),
        np.array([0.0, 0, 11]),
        ratio_margin=1.15,
        floor=1.0,
        alpha=0.05,
        rng=rng(),
        resampling=RES,
        label="tokens",
    )
    _defined(ev)


# ---- tools -------------------------------------------------------------------------------------


def _tvd(rows, in_c):
    c, b = rows[in_c].sum(0), rows[~in_c].sum(0)
    return 0.5 * np.abs(c / c.sum() - b / b.sum()).sum()


def test_tools_tvd_permutation_by_enumeration():
    b = [{"calc": 2}, {"calc": 1, "search": 1}, {"calc": 3}, {"search": 1}]
    c = [{"search": 2}, {"search": 1, "calc": 1}, {"search": 3}, {"calc": 1, "search": 2}]
    ev = evaluate_tools(b, c, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES)
    # Calls per tool plus the end-of-run column (one per run), permuted over run indices.
    rows = np.array([[r.get("calc", 0), r.get("search", 0), 1] for r in b + c], float)
    observed = _tvd(rows, np.arange(8) >= 4)
    values = [_tvd(rows, np.isin(np.arange(8), ch)) for ch in itertools.combinations(range(8), 4)]
    assert ev.harm == pytest.approx(np.mean(np.array(values) >= observed * (1 - 1e-9)))
    assert ev.estimate == pytest.approx(observed)
    assert ev.outside == (observed > 0.1)
    # Per-tool TOST through statsmodels: the intersection-union p is the largest one.
    rows = rows[:, :2]
    tost = max(
        rank_compare_2indep(rows[4:, i], rows[:4, i]).tost_prob_superior(0.4, 0.6).pvalue
        for i in range(2)
    )
    assert ev.tost == pytest.approx(tost)
    _defined(ev)


def test_tool_mix_band_decides_outside():
    b = [{"calc": 1}] * 10
    c = [{"calc": 1}] * 9 + [{"search": 1}]
    # One call of 10 (and 10 run ends) moved: TVD = 1/20.
    for band, outside in ((0.04, True), (0.10, False)):
        ev = evaluate_tools(
            b, c, margin=band, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES
        )
        assert ev.estimate == pytest.approx(0.05)
        assert ev.outside is outside
    assert any("10% of candidate runs called a multiset" in n for n in ev.notes)


def test_tools_identical_and_absent():
    same = [{"calc": 1}] * 30
    ev = evaluate_tools(
        same, same, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES
    )
    assert ev.identical
    assert ev.tost == pytest.approx(2 * 0.9**30)
    none = evaluate_tools(
        [{}] * 3, [{}] * 3, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES
    )
    assert none.identical
    _defined(none)


def _tvd_by_enumeration(b, c, tools):
    """The TVD of the tools + end-of-run mix, every run-index split."""
    rows = np.array([[r.get(t, 0) for t in tools] + [1] for r in b + c], float)
    n_b, total = len(b), len(b) + len(c)
    observed = _tvd(rows, np.arange(total) >= n_b)
    values = [
        _tvd(rows, np.isin(np.arange(total), ch))
        for ch in itertools.combinations(range(total), len(c))
    ]
    return float(np.mean(np.array(values) >= observed * (1 - 1e-9)))


def test_tools_see_calls_per_run_with_one_tool():
    # The baseline never calls a tool, the candidate calls `a` in every run: a change in how
    # often tools are called, which a mix of tool calls without run ends cannot see.
    ev = evaluate_tools(
        [{}] * 5, [{"a": 1}] * 5, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES
    )
    assert ev.harm == pytest.approx(2 / math.comb(10, 5))  # the split and its mirror image
    assert ev.harm == pytest.approx(_tvd_by_enumeration([{}] * 5, [{"a": 1}] * 5, ["a"]))
    assert ev.estimate == pytest.approx(0.5)
    one_b = [{"calc": 1}] * 3 + [{"calc": 2}] * 2
    one_c = [{"calc": 3}] * 5
    ev = evaluate_tools(
        one_b, one_c, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES
    )
    assert ev.harm == pytest.approx(_tvd_by_enumeration(one_b, one_c, ["calc"]))
    assert ev.harm < 0.05
    _defined(ev)


def test_tools_see_counts_scaled_together():
    # Same mix of tools (1:1), twice as many calls per run: the mix of calls alone is unchanged.
    b = [{"calc": 1, "search": 1}] * 4
    c = [{"calc": 2, "search": 2}] * 4
    ev = evaluate_tools(b, c, margin=0.1, equivalence=0.1, alpha=0.05, rng=rng(), resampling=RES)
    assert ev.harm == pytest.approx(_tvd_by_enumeration(b, c, ["calc", "search"]))
    assert ev.harm == pytest.approx(2 / math.comb(8, 4))  # the split and its mirror image
    _defined(ev)


# ---- sequences ---------------------------------------------------------------------------------


def test_sequences_identical_and_changed():
    same = [("calc", "search")] * 5
    ev = evaluate_sequences(same, same, rng=rng(), resampling=RES)
    assert ev.identical
    assert ev.tost is None
    changed = evaluate_sequences(same, [("search", "calc", "calc")] * 5, rng=rng(), resampling=RES)
    assert changed.harm == pytest.approx(1 / math.comb(10, 5) * 2)  # the split and its mirror
    assert "100% of candidate sequences unseen in the baseline (0% expected" in changed.notes[0]
    assert changed.estimate == pytest.approx(1.0)
    assert changed.outside
    _defined(changed)


def test_sequence_novelty_is_net_of_the_baselines_own_new_sequences():
    # Baseline: 4 of 8 runs show a sequence that occurs once (Good-Turing: half of new runs
    # would look new); candidate: 6 of 8 unseen. Effect 0.75 - 0.5 = 0.25.
    b = [("a",)] * 4 + [("b",), ("c",), ("d",), ("e",)]
    c = [("a",)] * 2 + [("x",), ("y",), ("z",), ("w",), ("v",), ("u",)]
    assert novelty(b, c) == (0.75, 0.5)
    for band, outside in ((0.2, True), (0.3, False)):
        ev = evaluate_sequences(b, c, margin=band, rng=rng(), resampling=RES)
        assert ev.estimate == pytest.approx(0.25)
        assert ev.outside is outside


# ---- never NaN ---------------------------------------------------------------------------------

small_arrays = hst.lists(hst.integers(0, 4), min_size=0, max_size=6).map(
    lambda v: np.asarray(v, float)
)


@settings(max_examples=60, deadline=None)
@given(small_arrays, small_arrays)
def test_evaluators_never_return_nan(b, c):
    for ev in (
        evaluate_shift(b, c, margin=0.1, alpha=0.05, rng=rng(), resampling=RES, label="s"),
        evaluate_ratio(
            b, c, ratio_margin=1.15, floor=1.0, alpha=0.05, rng=rng(), resampling=RES, label="t"
        ),
        evaluate_rate(
            int((b > 1).sum()),
            b.size,
            int((c > 1).sum()),
            c.size,
            margin=0.1,
            alpha=0.05,
            higher_is_better=True,
            label="p",
        ),
        evaluate_tools(
            [{"x": int(v)} for v in b],
            [{"x": int(v), "y": 1} for v in c],
            margin=0.1,
            equivalence=0.1,
            alpha=0.05,
            rng=rng(),
            resampling=RES,
        ),
        evaluate_sequences(
            [("x",) * int(v) for v in b], [("y",) * int(v) for v in c], rng=rng(), resampling=RES
        ),
    ):
        _defined(ev)
        assert ev.testable == (b.size > 0 and c.size > 0)


def test_minimum_pvalue_matches_boschloo_table():
    ev = evaluate_rate(3, 3, 3, 3, margin=0.1, alpha=0.05, higher_is_better=True, label="pass rate")
    assert ev.min_harm == pytest.approx(st.boschloo_min_pvalue(3, 3))
    assert ev.min_harm == pytest.approx(
        stats.boschloo_exact([[3, 0], [0, 3]], alternative="greater").pvalue, rel=1e-4
    )
