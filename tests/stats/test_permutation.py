"""Permutation engine and location tests against scipy, statsmodels and explicit enumeration."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein
from scipy import stats
from statsmodels.stats.nonparametric import rank_compare_2indep

from trajguard import stats as tstats
from trajguard.stats import _permutation


def _scipy_bm(x, y, axis=-1):
    # The clipped Brunner-Munzel statistic of statistics.md, computed by scipy.
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = stats.brunnermunzel(x, y, distribution="normal", axis=axis).statistic
    return np.clip(np.nan_to_num(s, nan=0.0, posinf=1e12, neginf=-1e12), -1e12, 1e12)


BM_CASES = [
    ([3, 3, 3], [4, 4, 4]),  # N = 3, both constant, different
    ([3, 4, 5], [3, 4, 5]),  # identical
    ([2, 3, 3, 4, 4, 4], [3, 4, 5, 5, 6]),  # ties
    ([5, 5, 5, 5, 5], [4, 5, 6, 7, 5, 5]),  # one arm constant
    ([1, 2, 3, 4, 5, 6, 7, 8], [2, 9, 9, 10, 3, 4, 4, 1]),
]


@pytest.mark.parametrize(("b", "c"), BM_CASES)
def test_bm_permutation_matches_scipy(b, c):
    b, c = np.asarray(b, float), np.asarray(c, float)
    res = tstats.permutation_test(
        tstats.bm_statistic(np.r_[b, c]), len(b), len(c), rng=np.random.default_rng(0)
    )
    assert res.exact
    for alternative, got in (("greater", res.greater), ("less", res.less)):
        ref = stats.permutation_test(
            (b, c), _scipy_bm, n_resamples=np.inf, vectorized=True, alternative=alternative
        )
        assert got == pytest.approx(ref.pvalue)
    assert res.statistic == pytest.approx(float(_scipy_bm(b, c)))


def test_tied_values_path_equals_the_general_path():
    values = np.array([3, 5, 5, 7, 3, 3, 5, 9, 7, 5, 3, 3], float)  # 4 distinct of 12: merged
    masks = tstats.Arrangements(5, 7, np.random.default_rng(0)).rows(0, 300)
    merged = tstats.bm_statistic(values)(masks)
    general = _permutation._bm_parts(_permutation._below(values), masks)[0]
    assert merged == pytest.approx(general)


def test_single_run_arm_is_still_an_exact_test():
    # scipy needs two runs per sample; with one baseline run there are 4 arrangements and the
    # observed one (the baseline run above every candidate run) is the only most extreme one.
    b, c = np.array([7.0]), np.array([1.0, 2.0, 3.0])
    res = tstats.permutation_test(
        tstats.bm_statistic(np.r_[b, c]), 1, 3, rng=np.random.default_rng(0)
    )
    assert res.exact
    assert res.resamples == 4
    assert res.less == pytest.approx(1 / 4)
    assert res.greater == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_welch_permutation_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    b, c = np.log(rng.lognormal(5, 0.3, 6)), np.log(rng.lognormal(5.1, 0.3, 5))
    res = tstats.permutation_test(tstats.welch_statistic(np.r_[b, c]), 6, 5, rng=rng)
    for alternative, got in (("greater", res.greater), ("less", res.less)):
        ref = stats.ttest_ind(
            c,
            b,
            equal_var=False,
            alternative=alternative,
            method=stats.PermutationMethod(n_resamples=np.inf),
        )
        assert got == pytest.approx(ref.pvalue)


def test_minimum_pvalue_of_exact_design():
    # Distinct values, 3 + 3 runs: only the observed-extreme arrangement reaches the minimum.
    res = tstats.permutation_test(
        tstats.welch_statistic(np.arange(6.0)), 3, 3, rng=np.random.default_rng(0)
    )
    assert res.min_greater == pytest.approx(1 / 20)
    assert res.greater == pytest.approx(1 / 20)


def _g_by_scipy(table):
    keep = table.sum(axis=0) > 0
    if table[:, keep].sum(axis=1).min() == 0:
        return 0.0
    return stats.chi2_contingency(
        table[:, keep], lambda_="log-likelihood", correction=False
    ).statistic


def test_g_statistic_and_permutation_by_enumeration():
    counts = np.array(
        [[3, 0, 1], [2, 1, 0], [4, 0, 0], [0, 3, 1], [1, 2, 2], [0, 4, 1], [1, 1, 1]], float
    )
    n_b, n_c = 3, 4
    stat = tstats.g_statistic(counts)
    observed = np.stack([counts[:n_b].sum(0), counts[n_b:].sum(0)])
    assert stat(_permutation._observed(n_b, n_c))[0] == pytest.approx(_g_by_scipy(observed))
    values = []
    for chosen in itertools.combinations(range(7), n_c):
        in_c = np.isin(np.arange(7), chosen)
        values.append(_g_by_scipy(np.stack([counts[~in_c].sum(0), counts[in_c].sum(0)])))
    values = np.array(values)
    res = tstats.permutation_test(stat, n_b, n_c, rng=np.random.default_rng(0))
    expected = np.mean(values >= _g_by_scipy(observed) * (1 - 1e-9))
    assert res.greater == pytest.approx(expected)


def _distance_stat_by_hand(seqs, in_c):
    def mean_pairs(pairs):
        return np.mean([Levenshtein.normalized_distance(a, b) for a, b in pairs])

    cand = [s for s, f in zip(seqs, in_c, strict=True) if f]
    base = [s for s, f in zip(seqs, in_c, strict=True) if not f]
    between = mean_pairs([(a, b) for a in base for b in cand])
    within_b = mean_pairs(list(itertools.combinations(base, 2)))
    within_c = mean_pairs(list(itertools.combinations(cand, 2)))
    return between - (within_b + within_c) / 2


@pytest.mark.parametrize("duplicates", [False, True])
def test_distance_statistic_by_hand(duplicates):
    seqs = [["a", "b"], ["a", "b", "c"], ["c"], ["b", "a"], ["a", "c", "c"], ["c", "c"]]
    if duplicates:  # enough repeats that identical runs are merged before the quadratic form
        seqs = [seqs[i % 2] for i in range(6)] + [["c"], ["c"]]
    n = len(seqs)
    d = np.array([[Levenshtein.normalized_distance(a, b) for b in seqs] for a in seqs])
    stat = tstats.distance_statistic(d)
    masks = np.array([np.isin(np.arange(n), ch) for ch in itertools.combinations(range(n), 3)])
    got = stat(masks)
    expected = [_distance_stat_by_hand(seqs, m) for m in masks]
    assert got == pytest.approx(expected)


def test_monte_carlo_agrees_with_exact_and_is_reproducible():
    rng = np.random.default_rng(5)
    values = np.r_[rng.normal(0, 1, 8), rng.normal(0.8, 1, 8)]
    stat = tstats.welch_statistic(values)
    exact = tstats.permutation_test(stat, 8, 8, rng=rng)
    runs = [
        tstats.permutation_test(
            stat, 8, 8, rng=np.random.default_rng(1), exact_limit=0, n_resamples=19999
        )
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert not runs[0].exact
    se = np.sqrt(exact.greater * (1 - exact.greater) / 19999)
    assert abs(runs[0].greater - exact.greater) < 4 * se + 1e-4


def test_monte_carlo_extends_small_pvalues():
    values = np.r_[np.zeros(15), np.ones(15)] + np.linspace(0, 0.1, 30)
    res = tstats.permutation_test(
        tstats.welch_statistic(values),
        15,
        15,
        rng=np.random.default_rng(0),
        n_resamples=999,
        max_resamples=9999,
    )
    assert res.resamples == 9999
    assert res.greater == pytest.approx(1 / 10000)
    quiet = tstats.permutation_test(
        tstats.welch_statistic(values[::-1].copy()),
        15,
        15,
        rng=np.random.default_rng(0),
        n_resamples=999,
        max_resamples=9999,
    )
    assert quiet.resamples == 9999  # the 'less' side is just as extreme
    flat = np.random.default_rng(3).normal(size=30)
    assert (
        tstats.permutation_test(
            tstats.welch_statistic(flat),
            15,
            15,
            rng=np.random.default_rng(0),
            n_resamples=999,
            max_resamples=9999,
        ).resamples
        == 999
    )


def test_shared_arrangements_have_the_right_sizes():
    shared = tstats.Arrangements(7, 5, np.random.default_rng(0))
    first = shared.rows(0, 100)
    assert first.shape == (100, 12)
    assert (first.sum(axis=1) == 5).all()
    assert np.array_equal(shared.rows(0, 100), first)
    assert shared.rows(100, 300).shape == (200, 12)


def test_arrangements_are_the_smallest_keys_of_each_row():
    # The bucketed preselection gives exactly the rule ``key <= k-th smallest key``.
    for n_b, n_c in ((250, 50), (20, 20), (3, 3), (1, 5)):
        shared = tstats.Arrangements(n_b, n_c, np.random.default_rng(8))
        keys = np.random.default_rng(8).random((3000, n_b + n_c))
        kth = np.partition(keys, n_c - 1, axis=1)[:, n_c - 1 : n_c]
        np.testing.assert_array_equal(shared.rows(0, 1000), (keys <= kth)[:1000])
        np.testing.assert_array_equal(shared.rows(0, 3000), keys <= kth)


def test_smallest_keys_redoes_rows_that_share_a_bucket():
    # 0.1 and 0.1 + 1e-6 share a 16-bit bucket: the row is decided on the keys themselves.
    keys = np.array([[0.1 + 1e-6, 0.1, 0.5], [0.3, 0.2, 0.1], [0.7, 0.7, 0.9]])
    masks = _permutation.smallest_keys(keys, 1)
    np.testing.assert_array_equal(
        masks, [[False, True, False], [False, False, True], [True, True, False]]
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_brunner_munzel_matches_scipy_and_statsmodels(seed):
    rng = np.random.default_rng(seed)
    b = rng.poisson(5, 14).astype(float)
    c = rng.poisson(6, 11).astype(float)
    got = tstats.brunner_munzel(b, c)
    assert got.greater == pytest.approx(stats.brunnermunzel(b, c, alternative="less").pvalue)
    assert got.less == pytest.approx(stats.brunnermunzel(b, c, alternative="greater").pvalue)
    assert got.statistic == pytest.approx(stats.brunnermunzel(b, c).statistic)
    ref = rank_compare_2indep(c, b)
    assert got.estimate == pytest.approx(ref.prob1)
    assert got.se == pytest.approx(np.sqrt(ref.var / ref.nobs))
    assert got.df == pytest.approx(ref.df)


def test_welch_matches_scipy():
    rng = np.random.default_rng(3)
    b, c = rng.normal(0, 1, 12), rng.normal(0.5, 2, 9)
    got = tstats.welch(b, c)
    ref = stats.ttest_ind(c, b, equal_var=False, alternative="greater")
    assert got.greater == pytest.approx(ref.pvalue)
    assert got.df == pytest.approx(ref.df)
    assert got.less == pytest.approx(1 - ref.pvalue)


def test_prob_superiority_by_enumeration():
    b, c = np.array([1.0, 2, 2, 5]), np.array([2.0, 3, 0])
    pairs = [(x, y) for x in b for y in c]
    expected = np.mean([(y > x) + 0.5 * (y == x) for x, y in pairs])
    assert tstats.prob_superiority(b, c) == pytest.approx(expected)
