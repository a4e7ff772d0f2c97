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
