"""Exact rate tests, intervals, equivalence bounds, multiplicity and pass^k against independent
computations (scipy / statsmodels calls and exact enumeration)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep, tost_proportions_2indep

from trajguard import stats as st

# scipy maximises over the nuisance parameter with shgo, we use a 257-point grid refined by a
# parabola; measured agreement is 2.3e-5 relative up to 100 runs per arm, so 1e-4 has margin.
BOSCHLOO_RTOL = 1e-4

TABLES = [
    (0, 3, 0, 3),
    (3, 3, 0, 3),
    (3, 3, 3, 3),
    (2, 3, 1, 3),  # N = 3, incl. constant arms
    (10, 10, 10, 10),
    (0, 10, 0, 10),
    (10, 10, 6, 10),
    (9, 10, 9, 10),  # ties in Fisher p
    (19, 20, 12, 20),
    (20, 20, 17, 20),
    (5, 7, 1, 12),
    (1, 12, 5, 7),
    (27, 30, 20, 30),
    (45, 50, 40, 50),
    (0, 1, 1, 1),
    (1, 1, 0, 2),
]


@pytest.mark.parametrize(("x_b", "n_b", "x_c", "n_c"), TABLES)
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_boschloo_matches_scipy(x_b, n_b, x_c, n_c, alternative):
    table = [[x_b, x_c], [n_b - x_b, n_c - x_c]]
    expected = stats.boschloo_exact(table, alternative=alternative).pvalue
    got = st.boschloo_pvalue(x_b, n_b, x_c, n_c, alternative)
    assert got == pytest.approx(expected, rel=BOSCHLOO_RTOL, abs=1e-12)


def test_boschloo_greater_means_baseline_better():
    # 'greater' with columns = (baseline, candidate): small when the baseline passes more.
    assert st.boschloo_pvalue(20, 20, 10, 20, "greater") < 0.01
    assert st.boschloo_pvalue(10, 20, 20, 20, "greater") > 0.99


@pytest.mark.parametrize(("n_b", "n_c"), [(3, 3), (5, 5), (10, 10), (4, 9)])
def test_min_pvalue_is_the_extreme_table(n_b, n_c):
    extreme = stats.boschloo_exact([[n_b, 0], [0, n_c]], alternative="greater").pvalue
    assert st.boschloo_min_pvalue(n_b, n_c) == pytest.approx(extreme, rel=BOSCHLOO_RTOL)


def test_fisher_fallback_matches_scipy():
    for x_b, n_b, x_c, n_c in [(150, 200, 130, 210), (3, 10, 8, 10), (0, 5, 0, 5)]:
        table = [[x_b, x_c], [n_b - x_b, n_c - x_c]]
        for alt in ("greater", "less"):
            expected = stats.fisher_exact(table, alternative=alt).pvalue
            assert st.fisher_pvalue(x_b, n_b, x_c, n_c, alt) == pytest.approx(expected)
    assert st.fisher_min_pvalue(5, 5) == pytest.approx(
        stats.fisher_exact([[5, 0], [0, 5]], alternative="greater").pvalue
    )
    assert st.boschloo_feasible(150, 150)
    assert not st.boschloo_feasible(151, 151)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (0, 20), (20, 20), (7, 20), (33, 50)])
def test_wilson_matches_scipy(k, n):
    ci = stats.binomtest(k, n).proportion_ci(method="wilson")
    assert st.wilson_interval(k, n) == pytest.approx((ci.low, ci.high))


def test_wilson_without_runs_is_uninformative():
    assert st.wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("x_c", "n_c", "x_b", "n_b"), [(0, 20, 0, 20), (20, 20, 20, 20), (5, 20, 19, 20), (3, 3, 0, 3)]
)
def test_newcombe_matches_statsmodels(x_c, n_c, x_b, n_b):
    expected = confint_proportions_2indep(x_c, n_c, x_b, n_b, method="newcomb")
    assert st.newcombe_interval(x_c, n_c, x_b, n_b) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("x_c", "n_c", "x_b", "n_b"), [(50, 50, 50, 50), (0, 50, 0, 50), (40, 50, 45, 50), (2, 3, 3, 3)]
)
def test_tost_rates_matches_statsmodels(x_c, n_c, x_b, n_b):
    with np.errstate(all="ignore"):
        expected = tost_proportions_2indep(x_c, n_c, x_b, n_b, -0.1, 0.1, method="score").pvalue
    got = st.tost_rates(x_c, n_c, x_b, n_b, 0.1)
    assert got == pytest.approx(min(expected, 1.0))
    assert 0 <= got <= 1


def test_constant_bound_is_clopper_pearson():
    for n in (1, 3, 20, 50):
        u = st.constant_bound(n, 0.05)
        # P(no run differs | share u) = alpha / 2: the one-sided exact upper bound.
        assert stats.binom.pmf(0, n, u) == pytest.approx(0.025)
        assert stats.beta.ppf(0.975, 1, n) == pytest.approx(u)


def test_constant_shift_tost_solves_the_margin():
    # Equal arms: (1 - u) ** n = alpha / 2 at u = margin, so p = 2 (1 - margin) ** n.
    assert st.constant_shift_tost(50, 50, 0.1) == pytest.approx(2 * 0.9**50)
    p = st.constant_shift_tost(20, 35, 0.1)
    bounds = st.constant_bound(20, p) + st.constant_bound(35, p)
    assert bounds / 2 == pytest.approx(0.1)
    assert st.constant_shift_tost(3, 3, 0.1) == 1.0


def test_constant_median_tost():
    # At alpha = 2 * 0.5 ** n the bound reaches exactly one half.
    n = 6
    p = st.constant_median_tost(n, 9, 1.0, 1 / 1.15, 1.15)
    assert p == pytest.approx(2 * 0.5**n)
    assert st.constant_bound(n, p) == pytest.approx(0.5)
    assert st.constant_median_tost(n, n, 1.2, 1 / 1.15, 1.15) == 1.0


def _holm_by_hand(p, alpha):
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _bh_by_hand(p):
    order = np.argsort(p)[::-1]
    m = len(p)
    adjusted = np.empty(m)
    running = 1.0
    for rank, i in zip(range(m, 0, -1), order, strict=True):
        running = min(running, p[i] * m / rank)
        adjusted[i] = running
    return adjusted


def test_multiplicity_by_hand():
    p = np.array([0.001, 0.04, 0.03, 0.5, 0.0002, 0.04, 1.0])
    assert st.holm(p, 0.05) == pytest.approx(_holm_by_hand(p, 0.05))
    assert st.holm(p, 0.05) == pytest.approx(multipletests(p, method="holm")[1])
    assert st.bh(p) == pytest.approx(_bh_by_hand(p))
    assert st.holm([], 0.05).size == 0
    assert st.bh([]).size == 0


def test_pass_hat_k_by_enumeration():
    runs = [True, True, False, True, True, False, True, True]
    n, c = len(runs), sum(runs)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(runs, k))
        share = sum(all(s) for s in subsets) / len(subsets)
        assert st.pass_hat_k(c, n, k) == pytest.approx(share)


def test_pass_hat_k_is_unbiased_for_p_to_the_k():
    n, p = 10, 0.7
    for k in (1, 3, 8):
        mean = sum(stats.binom.pmf(c, n, p) * st.pass_hat_k(c, n, k) for c in range(n + 1))
        assert mean == pytest.approx(p**k)


def test_pass_k_interval_is_wilson_to_the_k():
    ci = stats.binomtest(14, 20).proportion_ci(method="wilson")
    assert st.pass_k_interval(14, 20, 3) == pytest.approx((ci.low**3, ci.high**3))


def test_fast_distributions_match_scipy():
    grid = np.array([0.0, 0.1, 0.5, 0.93, 1.0])
    assert st.binom_pmf(12, grid) == pytest.approx(
        stats.binom.pmf(np.arange(13), 12, grid[:, None])
    )
    assert st.t_sf(1.7, 9.3) == pytest.approx(stats.t.sf(1.7, 9.3))
    assert st.t_cdf(-0.4, 30) == pytest.approx(stats.t.cdf(-0.4, 30))
    assert st.t_ppf(0.975, 12.5) == pytest.approx(stats.t.ppf(0.975, 12.5))
    assert st.norm_ppf(0.9) == pytest.approx(stats.norm.ppf(0.9))
    assert math.isclose(st.binom_pmf(0, 0.3)[0, 0], 1.0)
