"""Sequential thresholds and decisions; the type I error of the whole rule by exact enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from trajguard.live import sequential as sq


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
    assert decide(0, 0.5, thresholds=th, candidate_no_worse=True) is \
        sq.Action.STOP_NO_REGRESSION
    assert decide(1, 0.3, thresholds=th, candidate_no_worse=False, can_still_regress=False) is \
        sq.Action.STOP_NO_REGRESSION
    assert decide(2, 0.03, thresholds=th, candidate_no_worse=False) is sq.Action.STOP_REGRESSED
    assert decide(2, 0.04, thresholds=th, candidate_no_worse=False) is \
        sq.Action.STOP_NO_REGRESSION


def test_combine():
    stop, go, done = sq.Action.STOP_REGRESSED, sq.Action.CONTINUE, sq.Action.STOP_NO_REGRESSION
    assert sq.combine([done, stop]) is stop
    assert sq.combine([done, go]) is go
    assert sq.combine([done, done]) is done
    assert sq.combine([]) is go


def test_curtailment_against_scipy():
    # Baseline 27/30; candidate 10/10 after the first look: even if all 20 remaining runs fail,
    # 10/30 vs 27/30 is a regression, so the rule must keep going.
    assert sq.rate_can_still_regress(27, 30, 10, 10, later_n_c=[20, 30],
                                     later_thresholds=[0.0157, 0.0336])
    # Baseline 5/30 (a weak scenario) and a candidate at 3/10: 3/30 vs 5/30 is never significant.
    p = stats.boschloo_exact([[5, 3], [25, 27]], alternative="greater").pvalue
    assert p > 0.0336
    assert not sq.rate_can_still_regress(5, 30, 3, 10, later_n_c=[20, 30],
                                         later_thresholds=[0.0157, 0.0336])
    # Crash rates: the harmful continuation is every remaining run crashing.
    assert sq.rate_can_still_regress(0, 30, 0, 10, later_n_c=[30], later_thresholds=[0.0336],
                                     higher_is_better=False)


def test_sequential_rule_type_one_error_by_enumeration():
    """P(stop regressed) under no change, summed exactly over every candidate path."""
    n_b, p, batch, looks = 20, 0.9, 5, 3
    th = sq.obf_thresholds(0.05, looks)
    reject = 0.0
    for x_b in range(n_b + 1):
        w_b = stats.binom.pmf(x_b, n_b, p)
        paths = {0: 1.0}  # candidate passes so far -> probability of still running
        for look in range(looks):
            n_c = batch * (look + 1)
            grown: dict[int, float] = {}
            for x, w in paths.items():
                for k in range(batch + 1):
                    grown[x + k] = grown.get(x + k, 0.0) + w * stats.binom.pmf(k, batch, p)
            paths = {}
            for x, w in grown.items():
                pv = stats.boschloo_exact([[x_b, x], [n_b - x_b, n_c - x]],
                                          alternative="greater").pvalue
                action = sq.sequential_decision(look, pv, thresholds=th,
                                                candidate_no_worse=x / n_c >= x_b / n_b)
                if action is sq.Action.STOP_REGRESSED:
                    reject += w_b * w
                elif action is sq.Action.CONTINUE:
                    paths[x] = w
    assert reject <= 0.05
