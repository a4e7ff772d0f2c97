"""Power, minimum detectable effects and runs needed, against statistics.md section 5,
exact enumeration with scipy's Boschloo test, and statsmodels' t-test power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower

from trajguard import stats as tstats
from trajguard.comparison import CompareConfig, plan_assumed, plan_runset
from trajguard.comparison._plan import plan_alphas

# statistics.md section 5: detectable drop in points, exact one-sided Boschloo, alpha .05, 80%.
TABLE = {10: (49, 50, 51, 55), 20: (26, 32, 35, 39), 30: (18, 24, 27, 31), 50: (11, 18, 20, 23)}
BASELINES = (1.0, 0.95, 0.90, 0.80)


@pytest.mark.parametrize("n", sorted(TABLE))
def test_mde_reproduces_the_section_5_table(n):
    # The table prints whole points rounded up (a drop of 25.9 points is listed as 26), so the
    # exact value must lie in (T - 1, T]: a tolerance of one printed unit, one-sided.
    for p_b, printed in zip(BASELINES, TABLE[n], strict=True):
        drop = 100 * tstats.mde_pass_rate(p_b, n, alpha=0.05)
        assert printed - 1 < drop <= printed, (n, p_b, drop)


def test_mde_at_alpha_01():
    assert math.ceil(100 * tstats.mde_pass_rate(0.9, 20, alpha=0.01)) == 45


@pytest.mark.parametrize(("n", "fails"), [(5, 3), (10, 4), (20, 4), (30, 4)])
def test_failures_needed_against_a_perfect_baseline(n, fails):
    # "Baseline n/n: candidate needs >= 3 fails (N=5), >= 4 (N=10-30) for p <= .05".
    def p(k):
        return stats.boschloo_exact([[n, n - k], [0, k]], alternative="greater").pvalue

    assert p(fails) <= 0.05 < p(fails - 1)


def _power_by_scipy(n, p_b, p_c, alpha):
    total = 0.0
    for x_b in range(n + 1):
        for x_c in range(n + 1):
            table = [[x_b, x_c], [n - x_b, n - x_c]]
            if stats.boschloo_exact(table, alternative="greater").pvalue <= alpha:
                total += stats.binom.pmf(x_b, n, p_b) * stats.binom.pmf(x_c, n, p_c)
    return total


def test_exact_power_by_enumeration_with_scipy():
    for p_b, p_c in ((0.9, 0.4), (1.0, 0.7)):
        expected = _power_by_scipy(6, p_b, p_c, 0.05)
        assert tstats.power_rates(p_b, p_c, 6, 6, alpha=0.05) == pytest.approx(expected, abs=1e-9)


def test_n_needed_is_the_first_n_with_enough_power():
    n = tstats.n_needed_pass_rate(0.9, 0.5, alpha=0.05)
    assert n is not None
    assert _power_by_scipy(n, 0.9, 0.4, 0.05) >= 0.8
    assert _power_by_scipy(n - 1, 0.9, 0.4, 0.05) < 0.8


def test_n_needed_beyond_exact_range_uses_normal_approximation():
    n = tstats.n_needed_pass_rate(0.9, 0.05, alpha=0.05)
    z_a, z_b = stats.norm.ppf(0.95), stats.norm.ppf(0.8)
    pooled = 0.875
    expected = (
        (z_a * np.sqrt(2 * pooled * (1 - pooled)) + z_b * np.sqrt(0.09 + 0.85 * 0.15)) / 0.05
    ) ** 2
    assert n == math.ceil(expected)
    assert tstats.n_needed_pass_rate(0.9, 0.0, alpha=0.05) is None
    assert tstats.n_needed_pass_rate(0.1, 0.2, alpha=0.05) is None


def test_mde_undetectable_and_large_n():
    assert tstats.mde_pass_rate(0.9, 2, alpha=0.0005) is None
    assert tstats.mde_pass_rate(0.9, 0, alpha=0.05) is None
    big = tstats.mde_pass_rate(0.9, 400, alpha=0.05)  # normal approximation beyond 150 per arm
    assert big is not None
    assert 0.04 < big < 0.07


# statistics.md section 5, tokens: CV .3 -> +48/31/24/18 %, CV .2 -> +30/20/16/12 %.
@pytest.mark.parametrize(("cv", "expected"), [(0.3, (48, 31, 24, 18)), (0.2, (30, 20, 16, 12))])
def test_token_mde_matches_section_5_and_statsmodels(cv, expected):
    sigma = tstats.cv_to_sigma(cv)
    for n, pct in zip((10, 20, 30, 50), expected, strict=True):
        ratio = tstats.mde_ratio(sigma, n, alpha=0.05, two_sided=True)
        effect = TTestIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=1)
        assert ratio == pytest.approx(np.exp(effect * sigma), rel=1e-6)
        assert round(100 * (ratio - 1)) == pytest.approx(pct, abs=1)


def test_token_power_and_n_needed_match_statsmodels():
    sigma = tstats.cv_to_sigma(0.3)
    d = np.log(1.2) / sigma
    ref = TTestIndPower().power(d, nobs1=20, alpha=0.05, alternative="larger")
    assert tstats.power_ratio(1.2, sigma, 20, alpha=0.05) == pytest.approx(ref)
    n_ref = TTestIndPower().solve_power(d, alpha=0.05, power=0.8, alternative="larger")
    assert tstats.n_needed_ratio(sigma, 1.2, alpha=0.05) == math.ceil(n_ref)
    assert tstats.n_needed_ratio(sigma, 1.0, alpha=0.05) is None


def test_steps_noether_matches_section_5():
    for n, a in ((10, 0.86), (20, 0.76), (30, 0.71), (50, 0.66)):
        assert tstats.mde_steps(n, alpha=0.05, two_sided=True) == pytest.approx(a, abs=0.005)
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    assert tstats.n_needed_steps(0.6, alpha=0.05) == math.ceil(z**2 / (6 * 0.01))


def test_plan_alphas_follow_the_first_step_of_each_family():
    # Default: Šidák over 20 scenarios at the scenarios' share (1 - 0.2) of alpha.
    alphas = plan_alphas(CompareConfig(), 20)
    share = 0.05 * (1 - CompareConfig().suite_share)
    assert alphas["pass_rate"] == pytest.approx(1 - (1 - share) ** (1 / 20))
    assert alphas["crash_rate"] == alphas["pass_rate"]
    # Holm: alpha over the gating tests (4 default gating metrics x 20 scenarios).
    holm = plan_alphas(CompareConfig(multiplicity="holm"), 20)
    assert holm["pass_rate"] == pytest.approx(0.05 / 80)
    # Diagnostic rows: the first BH step over 5 diagnostic metrics x 20 scenarios.
    assert alphas["prompt_tokens"] == pytest.approx(0.10 / (20 * 5))
    assert alphas["completion_tokens"] == pytest.approx(0.10 / (20 * 5))


def test_plan_assumed_rows_are_consistent():
    config = CompareConfig(
        alpha=0.1, multiplicity="holm", gating=frozenset({"pass_rate", "crash_rate"})
    )
    plan = plan_assumed(n=20, n_scenarios=1, pass_rate=0.9, config=config)
    rows = {r.metric: r for r in plan.rows}
    # Holm with 1 scenario and 2 gating tests: the level is 0.05 and the section 5 value applies.
    assert math.ceil(100 * rows["pass_rate"].mde) == 35
    needed = rows["pass_rate"].n_needed
    assert tstats.mde_pass_rate(0.9, needed, alpha=0.05) <= 0.1 + 1e-6
    assert rows["prompt_tokens"].n_needed is not None
    assert rows["completion_tokens"].mde == rows["prompt_tokens"].mde  # one assumed spread
    assert rows["step_count"].mde > 0.5


def test_plan_runset_uses_observed_rates():
    runs = [
        {
            "scenario": "s",
            "status": "ok",
            "passed": i % 4 != 0,
            "step_count": 3,
            "tool_sequence": [],
            "tool_counts": {},
            "prompt_tokens": 100 + 10 * i,
            "completion_tokens": 10,
            "duration_s": 1.0,
        }
        for i in range(20)
    ]
    import pandas as pd

    (plan,) = plan_runset(pd.DataFrame(runs), 30)
    rows = {r.metric: r for r in plan.rows}
    assert rows["pass_rate"].baseline == pytest.approx(0.75)
    assert rows["crash_rate"].baseline == 0.0


@pytest.mark.parametrize(("p", "drop"), [(0.8, 0.2), (0.95, 0.1), (0.99, 0.3)])
def test_n_needed_reaches_the_power_itself_and_keeps_it(p, drop):
    # The review's cases: the old search returned 68 (power .797) and 116 (.788).
    alpha = 0.05 if p < 0.99 else 0.05 / 8
    n = tstats.n_needed_pass_rate(p, drop, alpha=alpha)
    assert n is not None
    for k in range(n, n + 4):
        assert tstats.power_rates(p, p - drop, k, k, alpha=alpha) >= 0.8, k
    # And no later than needed: the N before it falls short.
    assert tstats.power_rates(p, p - drop, n - 1, n - 1, alpha=alpha) < 0.8


def test_mde_ratio_survives_a_spread_that_rounds_to_zero():
    assert tstats.mde_ratio(1e-15, 30, alpha=0.05) == pytest.approx(1.0)


def test_plan_rows_cover_prompt_and_completion_tokens():
    runs = [
        {
            "scenario": "s",
            "status": "ok",
            "passed": True,
            "step_count": 3,
            "tool_sequence": [],
            "tool_counts": {},
            "prompt_tokens": 100 + i,  # nearly constant
            "completion_tokens": float(np.exp(1.0 * (i % 5))),  # very noisy
            "duration_s": 1.0,
        }
        for i in range(20)
    ]
    import pandas as pd

    (plan,) = plan_runset(pd.DataFrame(runs), 20)
    rows = {r.metric: r for r in plan.rows}
    sd = np.log([float(np.exp(1.0 * (i % 5))) for i in range(20)]).std(ddof=1)
    assert rows["completion_tokens"].baseline == pytest.approx(sd)
    assert rows["completion_tokens"].mde > rows["prompt_tokens"].mde
