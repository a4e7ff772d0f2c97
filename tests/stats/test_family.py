"""Combined tests and step-down min-p against scipy, statsmodels and exact enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from trajguard import stats as tstats


def _all_masks(n_b: int, n_c: int) -> np.ndarray:
    total = n_b + n_c
    rows = []
    for chosen in itertools.combinations(range(total), n_c):
        row = np.zeros(total, dtype=bool)
        row[list(chosen)] = True
        rows.append(row)
    return np.array(rows)


def test_rank_pvalues_are_the_share_at_least_as_extreme():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 6, size=(50, 3)).astype(float)  # ties on purpose
    got = tstats.rank_pvalues(scores)
    for j in range(3):
        for i in range(50):
            assert got[i, j] == np.mean(scores[:, j] >= scores[i, j])


def test_two_sided_rank_pvalues():
    scores = np.array([0.0, 1.0, -1.0, 2.0, -2.0, 0.5])
    got = tstats.two_sided_rank_pvalues(scores)
    for i, s in enumerate(scores):
        expected = min(1.0, 2 * min(np.mean(scores >= s), np.mean(scores <= s)))
        assert got[i] == pytest.approx(expected)


def test_fisher_combination_matches_scipy():
    p = np.array([[0.01, 0.2, 0.9], [1.0, 1.0, 1.0], [0.5, 0.03, 0.04]])
    for row, value in zip(p, tstats.fisher_combination(p), strict=True):
        assert 2 * value == pytest.approx(stats.combine_pvalues(row, method="fisher").statistic)


def test_stepdown_with_uniform_laws_is_holm_sidak():
    rng = np.random.default_rng(1)
    for m in (1, 2, 5, 40, 200):
        p = rng.uniform(0, 0.2, m)
        got = tstats.stepdown_independent(p, [tstats.NullLaw.uniform()] * m)
        ref = multipletests(p, method="holm-sidak")[1]
        assert got == pytest.approx(ref, rel=1e-9)


def test_critical_value_with_uniform_laws_is_sidak():
    for m in (1, 4, 200):
        got = tstats.critical_value(0.05, [tstats.NullLaw.uniform()] * m)
        assert got == pytest.approx(1 - 0.95 ** (1 / m), rel=1e-6)


def test_null_law_cdf():
    law = tstats.NullLaw(atoms=(0.1, 0.4, 1.0), floor=0.1)
    assert law.cdf(0.05) == 0.0
    assert law.cdf(0.1) == 0.1
    assert law.cdf(0.39) == 0.1
    assert law.cdf(0.4) == 0.4
    assert law.cdf(1.0) == 1.0
    assert tstats.NullLaw.uniform().cdf(0.03) == 0.03


def test_null_law_from_random_rows_is_uniform_unless_constant():
    # A minimum read off random arrangements may miss rarer, more extreme ones: not trusted.
    coarse = np.r_[np.full(100, 0.25), np.full(300, 1.0)]
    assert tstats.NullLaw.from_rows(coarse, exact=False) == tstats.NullLaw.uniform()
    assert tstats.NullLaw.from_rows(coarse, exact=True).floor == 0.25
    constant = np.ones(400)
    assert tstats.NullLaw.from_rows(constant, exact=False).cdf(0.5) == 0.0


def _exact_scenario(b: list[float], c: list[float]) -> np.ndarray:
    """Permutation p-value (candidate larger) of every arrangement, by enumeration."""
    values = np.array(b + c)
    masks = _all_masks(len(b), len(c))
    stat = np.array([values[m].mean() - values[~m].mean() for m in masks])
    return np.array([np.mean(stat >= s - 1e-12) for s in stat]), stat


SCENARIOS = [
    ([1, 2, 3], [4, 5, 6]),  # N = 3, separated
    ([0, 0, 1, 0], [1, 1, 0]),  # discrete
    ([2, 2, 2], [2, 2, 2]),  # constant: no p-value below 1
]


def test_stepdown_with_exact_laws_equals_enumerated_min_p():
    # Three independent scenarios, every arrangement enumerated: the first-step adjusted
    # p-value is P(min over scenarios of P_s <= p_obs) under the product of the exact laws.
    rows = [_exact_scenario(b, c)[0] for b, c in SCENARIOS]
    observed = [r[-1] for r in rows]  # candidates last: the last combination
    laws = [tstats.NullLaw.from_rows(r, exact=True) for r in rows]
    adjusted = tstats.stepdown_independent(observed, laws)
    first = int(np.argmin(observed))
    joint = itertools.product(*rows)
    truth = np.mean([min(combo) <= observed[first] + 1e-12 for combo in joint])
    assert adjusted[first] == pytest.approx(truth)
    # The constant scenario costs nothing: the same as the two others alone.
    alone = tstats.stepdown_independent(observed[:2], laws[:2])
    assert adjusted[first] == pytest.approx(alone[first])


def test_stepdown_size_by_exact_enumeration():
    # Complete null, every joint outcome of two exact scenarios: P(any adjusted p <= alpha).
    rows = [
        _exact_scenario([0, 1, 2, 3], [1, 2, 3, 4])[0],
        _exact_scenario([0, 0, 1], [1, 1, 0])[0],
    ]
    laws = [tstats.NullLaw.from_rows(r, exact=True) for r in rows]
    for alpha in (0.05, 0.1, 0.2):
        alarms = [
            (tstats.stepdown_independent([a, b], laws) <= alpha).any()
            for a, b in itertools.product(*rows)
        ]
        assert np.mean(alarms) <= alpha + 1e-12


def _wy_reference(table: np.ndarray) -> np.ndarray:
    observed = table[0]
    order = np.argsort(observed, kind="stable")
    out = np.empty(len(observed))
    running = 0.0
    for k, i in enumerate(order):
        rest = order[k:]
        share = np.mean([row[rest].min() <= observed[i] for row in table])
        running = max(running, share)
        out[i] = min(1.0, running)
    return out


def test_westfall_young_matches_its_definition():
    rng = np.random.default_rng(3)
    shared = rng.uniform(size=(500, 1))
    table = np.clip(shared + rng.normal(0, 0.1, size=(500, 4)), 0.001, 1)  # correlated tests
    table[0] = [0.002, 0.3, 0.01, 0.8]
    assert tstats.westfall_young(table) == pytest.approx(_wy_reference(table))


def test_westfall_young_on_one_test_is_its_permutation_p_value():
    rng = np.random.default_rng(4)
    scores = rng.normal(size=1000)
    p = tstats.rank_pvalues(scores)
    assert tstats.westfall_young(p[:, None])[0] == pytest.approx(p[0])


def test_westfall_young_with_perfectly_correlated_tests_pays_nothing():
    rng = np.random.default_rng(5)
    p = tstats.rank_pvalues(rng.normal(size=2000))
    table = np.column_stack([p, p, p])
    assert tstats.westfall_young(table) == pytest.approx([p[0]] * 3)


def test_tvd_statistic():
    counts = np.array([[2, 0, 1], [1, 1, 1], [0, 2, 1], [0, 0, 1]], float)
    masks = _all_masks(2, 2)
    got = tstats.tvd_statistic(counts)(masks)
    for m, value in zip(masks, got, strict=True):
        c, b = counts[m].sum(0), counts[~m].sum(0)
        assert value == pytest.approx(0.5 * np.abs(c / c.sum() - b / b.sum()).sum())


def test_statistics_accept_arrangements_of_varying_size():
    # A metric that leaves out runs without a value sees arms of varying size inside the
    # arrangements of all runs: each row must equal the statistic of its own two samples.
    rng = np.random.default_rng(6)
    values = rng.normal(size=12)
    masks = tstats.Arrangements(6, 6, rng).rows(0, 50)
    keep = np.array([True] * 10 + [False] * 2)
    sub = masks[:, keep]
    welch = tstats.welch_statistic(values[keep])(sub)
    bm = tstats.bm_statistic(values[keep])(sub)
    for row, w, b in zip(sub, welch, bm, strict=True):
        x, y = values[keep][~row], values[keep][row]
        assert w == pytest.approx(stats.ttest_ind(y, x, equal_var=False).statistic)
        ref = stats.brunnermunzel(x, y, distribution="normal").statistic
        assert b == pytest.approx(ref)


def test_statistic_of_an_empty_arm_is_zero():
    masks = np.array([[True, True, True], [False, False, False]])
    assert tstats.welch_statistic(np.array([1.0, 2.0, 3.0]))(masks) == pytest.approx([0, 0])
    assert tstats.bm_statistic(np.array([1.0, 2.0, 3.0]))(masks) == pytest.approx([0, 0])
    assert math.isfinite(float(tstats.tvd_statistic(np.ones((3, 2)))(masks)[0]))
