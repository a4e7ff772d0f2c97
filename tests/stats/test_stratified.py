"""CMH scores against statsmodels; the homogeneity test against scipy and exact enumeration."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import StratifiedTable

from trajguard import stats as tstats


def _statsmodels_chi2(strata):
    tables = [np.array([[xb, nb - xb], [xc, nc - xc]]) for xb, nb, xc, nc in strata]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return StratifiedTable(tables).test_null_odds(correction=False).statistic


@pytest.mark.parametrize(
    "strata",
    [
        [(7, 20, 2, 20)],  # one scenario
        [(7, 20, 2, 20), (6, 20, 1, 20), (9, 20, 8, 20), (4, 20, 5, 20)],
        [(3, 3, 0, 3), (1, 3, 1, 3)],  # N = 3
        [(20, 20, 20, 20), (5, 20, 3, 20)],  # a constant stratum carries nothing
        [(9, 50, 2, 10)],  # unequal arms (a pooled history against one night)
    ],
)
def test_cmh_square_is_statsmodels_statistic(strata):
    x_c = [[xc for _, _, xc, _ in strata]]
    n_c = [nc for _, _, _, nc in strata]
    succ = [xb + xc for xb, _, xc, _ in strata]
    runs = [nb + nc for _, nb, _, nc in strata]
    z = tstats.cmh_scores(x_c, n_c, succ, runs)[0]
    assert z**2 == pytest.approx(_statsmodels_chi2(strata))
    # Sign: positive when the candidate passes less than the baseline.
    diff = sum(xc / nc - xb / nb for xb, nb, xc, nc in strata)
    if diff < 0:
        assert z > 0


def test_cmh_over_200_scenarios_matches_statsmodels():
    rng = np.random.default_rng(0)
    strata = []
    for _ in range(200):
        p = rng.uniform(0.2, 0.9)
        strata.append((int(rng.binomial(20, p)), 20, int(rng.binomial(20, p - 0.1)), 20))
    x_c = [[s[2] for s in strata]]
    z = tstats.cmh_scores(x_c, [20] * 200, [s[0] + s[2] for s in strata], [40] * 200)[0]
    assert z**2 == pytest.approx(_statsmodels_chi2(strata))


def test_cmh_all_constant_is_zero():
    assert tstats.cmh_scores([[3, 3]], [3, 3], [6, 6], [6, 6])[0] == 0.0


def test_homogeneity_statistic_is_scipy_g():
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(3), 30)
    passed = rng.random(90) < np.repeat([0.3, 0.5, 0.7], 30)
    counts = np.column_stack([passed, ~passed]).astype(float)
    res = tstats.homogeneity_test(counts, labels, rng=rng, resamples=4999)
    table = np.array([counts[labels == k].sum(0) for k in range(3)])
    ref = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert res.statistic == pytest.approx(ref.statistic)
    # Large counts: the permutation p-value is close to the asymptotic one.
    assert res.p_value == pytest.approx(ref.pvalue, abs=0.02)


def test_homogeneity_p_value_against_enumeration():
    # Two batches of 4 runs: every relabelling enumerated.
    counts = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1], [0, 1], [1, 0]], float)
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    res = tstats.homogeneity_test(counts, labels, rng=np.random.default_rng(2), resamples=40_000)

    def g(lab):
        table = np.array([counts[lab == k].sum(0) for k in (0, 1)])
        return stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic

    observed = g(labels)
    values = []
    for chosen in itertools.combinations(range(8), 4):
        lab = np.ones(8, int)
        lab[list(chosen)] = 0
        values.append(g(lab))
    exact = np.mean(np.array(values) >= observed - 1e-9)
    assert res.p_value == pytest.approx(exact, abs=0.01)


def test_homogeneity_one_batch_or_constant():
    rng = np.random.default_rng(3)
    one = tstats.homogeneity_test(np.ones((5, 2)), np.zeros(5, int), rng=rng)
    assert one.p_value == 1.0
    constant = tstats.homogeneity_test(np.ones((6, 2)), np.array([0, 0, 1, 1, 2, 2]), rng=rng)
    assert constant.p_value == 1.0


def _exact_rate_homogeneity_p(events, labels):
    """Every distinct relabelling of the runs enumerated; G from scipy; exact p-value."""

    def g(lab):
        table = np.array([[events[lab == k].sum(), (~events[lab == k]).sum()] for k in range(3)])
        table = table[:, table.sum(0) > 0]
        if table.shape[1] < 2:
            return 0.0
        return stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic

    observed = g(labels)
    values = [g(np.array(lab)) for lab in set(itertools.permutations(labels.tolist()))]
    return float(np.mean(np.array(values) >= observed - 1e-9)), observed


@pytest.mark.parametrize(
    ("events", "labels"),
    [
        # Three batches of 3, 2 and 3 runs: 560 distinct relabellings.
        ([1, 1, 1, 0, 0, 0, 0, 1], [0, 0, 0, 1, 1, 2, 2, 2]),
        ([1, 0, 1, 1, 0, 1, 0, 0], [0, 0, 0, 1, 1, 2, 2, 2]),
        # N = 3 per batch, one batch with every run passing.
        ([1, 1, 1, 0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 1, 1, 2, 2, 2]),
    ],
)
def test_rate_homogeneity_against_exact_enumeration(events, labels):
    events, labels = np.array(events, bool), np.array(labels)
    exact, observed = _exact_rate_homogeneity_p(events, labels)
    res = tstats.rate_homogeneity_test(
        events, labels, rng=np.random.default_rng(4), resamples=40_000
    )
    assert res.statistic == pytest.approx(observed)
    # Monte Carlo standard error at 40,000 draws is at most 0.0025: 4 of them.
    assert res.p_value == pytest.approx(exact, abs=0.01)


def test_rate_homogeneity_agrees_with_label_permutation():
    # Five batches of 50 (a 5-night history): the hypergeometric draws and the permuted labels
    # of the one-hot table are two samplers of one null law; their p-values differ by Monte
    # Carlo error only (standard error of each at most 0.0035 with 20,000 draws).
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(5), 50)
    for shift in (0.0, 0.1, 0.2):
        events = rng.random(250) < 0.5 + shift * (labels - 2) / 2
        onehot = np.column_stack([events, ~events]).astype(float)
        by_labels = tstats.homogeneity_test(onehot, labels, rng=rng, resamples=20_000)
        drawn = tstats.rate_homogeneity_test(events, labels, rng=rng, resamples=20_000)
        assert drawn.statistic == pytest.approx(by_labels.statistic)
        assert drawn.p_value == pytest.approx(by_labels.p_value, abs=0.02)


def test_rate_homogeneity_is_exact_in_size():
    # Under the null (one rate for every batch) the p-value is uniform up to its discreteness:
    # P(p <= a) <= a at every level (2,000 histories; binomial error of the share below 0.012).
    rng = np.random.default_rng(6)
    labels = np.repeat(np.arange(4), [10, 12, 8, 10])
    p = np.array(
        [
            tstats.rate_homogeneity_test(
                rng.random(40) < 0.3, labels, rng=rng, resamples=199
            ).p_value
            for _ in range(2000)
        ]
    )
    for level in (0.05, 0.1, 0.25, 0.5):
        assert np.mean(p <= level) <= level + 0.02


def test_rate_homogeneity_one_batch_constant_or_empty_batch():
    rng = np.random.default_rng(7)
    assert tstats.rate_homogeneity_test([1, 0, 1], [0, 0, 0], rng=rng).p_value == 1.0
    constant = tstats.rate_homogeneity_test([1] * 6, [0, 0, 1, 1, 2, 2], rng=rng)
    assert (constant.p_value, constant.statistic) == (1.0, 0.0)
    # Batch 1 holds no counted run (every run of it unjudged): the others are still compared.
    gap = tstats.rate_homogeneity_test([1, 1, 1, 0, 0, 0], [0, 0, 0, 2, 2, 2], rng=rng)
    assert gap.batches == 3
    assert gap.p_value == pytest.approx(0.1, abs=0.03)  # 2 of C(6, 3) = 20 splits are as extreme
