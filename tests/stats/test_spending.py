"""Sequential thresholds and decisions; the type I error of the whole rule by exact enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from trajguard import stats as sq
from trajguard import stats as st


def test_obf_thresholds_reproduce_statistics_md():
    thresholds = sq.obf_thresholds(0.05, 3)
    assert [round(t, 4) for t in thresholds] == [0.0007, 0.0157, 0.0336]
    assert sum(thresholds) == pytest.approx(0.05)


def test_obf_thresholds_by_hand_at_uneven_looks():
    fractions = [0.25, 0.6, 1.0]
    z = stats.norm.ppf(0.975)
    spent = [2 - 2 * stats.norm.cdf(z / np.sqrt(t)) for t in fractions]
    expected = [spent[0], spent[1] - spent[0], spent[2] - spent[1]]
    assert sq.obf_thresholds(0.05, fractions) == pytest.approx(expected)


@pytest.mark.parametrize("looks", [0, [0.5, 0.4, 1.0], [0.3, 0.6]])
def test_obf_thresholds_reject_bad_looks(looks):
    with pytest.raises(ValueError, match="look"):
        sq.obf_thresholds(0.05, looks)


def test_decision_table():
    th = sq.obf_thresholds(0.05, 3)
    decide = sq.sequential_decision
    assert decide(0, 0.0005, thresholds=th, candidate_no_worse=False) is sq.Action.STOP_REGRESSED
    assert decide(0, 0.01, thresholds=th, candidate_no_worse=False) is sq.Action.CONTINUE
    assert decide(0, 0.5, thresholds=th, candidate_no_worse=True) is sq.Action.STOP_NO_REGRESSION
    assert (
        decide(1, 0.3, thresholds=th, candidate_no_worse=False, can_still_regress=False)
        is sq.Action.STOP_NO_REGRESSION
    )
    assert decide(2, 0.03, thresholds=th, candidate_no_worse=False) is sq.Action.STOP_REGRESSED
    assert decide(2, 0.04, thresholds=th, candidate_no_worse=False) is sq.Action.STOP_NO_REGRESSION


def test_combine():
    stop, go, done = sq.Action.STOP_REGRESSED, sq.Action.CONTINUE, sq.Action.STOP_NO_REGRESSION
    assert sq.combine([done, stop]) is stop
    assert sq.combine([done, go]) is go
    assert sq.combine([done, done]) is done
    assert sq.combine([]) is go


def test_curtailment_against_scipy():
    # Baseline 27/30; candidate 10/10 after the first look: even if all 20 remaining runs fail,
    # 10/30 vs 27/30 is a regression, so the rule must keep going.
    assert sq.rate_can_still_regress(
        27, 30, 10, 10, later_n_c=[20, 30], later_thresholds=[0.0157, 0.0336]
    )
    # Baseline 5/30 (a weak scenario) and a candidate at 3/10: 3/30 vs 5/30 is never significant.
    p = stats.boschloo_exact([[5, 3], [25, 27]], alternative="greater").pvalue
    assert p > 0.0336
    assert not sq.rate_can_still_regress(
        5, 30, 3, 10, later_n_c=[20, 30], later_thresholds=[0.0157, 0.0336]
    )
    # Crash rates: the harmful continuation is every remaining run crashing.
    assert sq.rate_can_still_regress(
        0, 30, 0, 10, later_n_c=[30], later_thresholds=[0.0336], higher_is_better=False
    )


def _rule_by_enumeration(n_b, p_b, p_c, schedule, th):
    """P(stop regressed), summed over every path, with scipy's Boschloo p-values."""
    reject = 0.0
    for x_b in range(n_b + 1):
        w_b = stats.binom.pmf(x_b, n_b, p_b)
        paths = {0: 1.0}  # candidate passes so far -> probability of still running
        previous = 0
        for look, n_c in enumerate(schedule):
            grown: dict[int, float] = {}
            for x, w in paths.items():
                for k in range(n_c - previous + 1):
                    grown[x + k] = grown.get(x + k, 0.0) + w * stats.binom.pmf(
                        k, n_c - previous, p_c
                    )
            previous, paths = n_c, {}
            for x, w in grown.items():
                pv = stats.boschloo_exact(
                    [[x_b, x], [n_b - x_b, n_c - x]], alternative="greater"
                ).pvalue
                # Thresholds are attainable table p-values: absorb the grid's 1e-4 relative error.
                action = sq.sequential_decision(
                    look,
                    pv * (1 - 1e-4),
                    thresholds=th,
                    candidate_no_worse=x * n_b >= x_b * n_c,
                    can_still_regress=look == len(schedule) - 1
                    or sq.rate_can_still_regress(
                        x_b,
                        n_b,
                        x,
                        n_c,
                        later_n_c=schedule[look + 1 :],
                        later_thresholds=th[look + 1 :],
                    ),
                )
                if action is sq.Action.STOP_REGRESSED:
                    reject += w_b * w
                elif action is sq.Action.CONTINUE:
                    paths[x] = w
    return reject


def test_exact_stopping_probabilities_by_enumeration():
    n_b, schedule = 20, (5, 10, 15)
    th = sq.rate_thresholds(0.05, n_b, schedule)
    for p_b, p_c in ((0.9, 0.9), (0.9, 0.5)):
        expected = _rule_by_enumeration(n_b, p_b, p_c, schedule, th)
        got = sq.rate_stopping(n_b, schedule, th, [p_b], [p_c])[0][0]
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_calibrated_thresholds_keep_the_size():
    n_b, schedule = 30, (10, 20, 30)
    th = sq.rate_thresholds(0.05, n_b, schedule)
    canonical = sq.obf_thresholds(0.05, 3, method="canonical")
    assert th[:2] == pytest.approx(canonical[:2])
    assert canonical[2] <= th[2] <= 0.05
    grid = np.linspace(0.0025, 0.9975, 399)
    size = sq.rate_stopping(n_b, schedule, th, grid, futility=False)[0]
    assert size.max() <= 0.05
    # The next attainable final threshold would break the size: the calibration is tight.
    final = st.boschloo_pvalues(n_b, 30, "greater")
    above = final[final > th[2] * (1 + 1e-9)].min()
    looser = (*th[:2], float(above))
    assert sq.rate_stopping(n_b, schedule, looser, grid, futility=False)[0].max() > 0.05


def test_canonical_thresholds_match_published_and_multivariate_normal():
    # gsDesign sfLDOF, one-sided alpha .025, 3 equally spaced looks: 3.7103, 2.5114, 1.9930.
    z = stats.norm.isf(sq.obf_thresholds(0.025, 3, method="canonical"))
    assert z == pytest.approx([3.7103, 2.5114, 1.9930], abs=1e-4)
    t = np.array([0.25, 0.6, 1.0])
    c = stats.norm.isf(sq.obf_thresholds(0.05, t, method="canonical"))
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    below = stats.multivariate_normal.cdf(
        c, mean=np.zeros(3), cov=cov, abseps=1e-7, releps=1e-7, rng=np.random.default_rng(1)
    )
    assert 1 - below == pytest.approx(0.05, abs=2e-4)


def test_crossing_inside_the_tolerance_band_is_not_a_regression():
    th = sq.obf_thresholds(0.05, 3)
    decide = sq.sequential_decision
    inside = {"candidate_no_worse": False, "outside_tolerance": False}
    assert decide(0, 0.0001, thresholds=th, **inside) is sq.Action.CONTINUE
    assert decide(2, 0.001, thresholds=th, **inside) is sq.Action.STOP_WITHIN_TOLERANCE
    assert decide(2, 0.5, thresholds=th, **inside) is sq.Action.STOP_NO_REGRESSION


def test_canonical_thresholds_are_what_the_docstring_says():
    canonical = sq.obf_thresholds(0.05, 3, method="canonical")
    assert [round(t, 4) for t in canonical] == [0.0007, 0.0161, 0.0451]
    assert "0.0007, 0.0161, 0.0451 (canonical)" in " ".join(sq.obf_thresholds.__doc__.split())
