"""What N would decide an inconclusive metric: the extrapolation and the exact rate figure."""

from __future__ import annotations

import math

from scipy import stats

from trajguard import stats as tstats
from trajguard.comparison import Evidence, MetricResult, Summary, Verdict
from trajguard.comparison._runs_to_decide import runs_to_decide


def result(name, estimate, p, *, tost=0.5, b=None, c=None, n=20):
    return MetricResult(
        metric=name,
        kind="gating",
        baseline=b or Summary(n=n),
        candidate=c or Summary(n=n),
        effect="",
        estimate=estimate,
        ci=None,
        test="",
        p_value=p,
        p_adjusted=1.0,
        p_benefit=None,
        p_benefit_adjusted=None,
        p_tost=tost,
        min_p=0.0,
        reachable=True,
        identical=False,
        verdict=Verdict.INCONCLUSIVE,
        evidence=Evidence(),
    )


def test_extrapolated_n_reaches_the_planned_power_for_a_z_test():
    # A z statistic grows as sqrt(N): at the returned N, a one-sided z-test at the level has
    # 80 % power against the effect that gave the observed p at N = 20.
    p, level = 0.03, 0.01
    needed, what = runs_to_decide(
        result("tool_usage", 0.3, p), band=0.1, level=level, alpha=0.05, power=0.8
    )
    assert what == "a regression"
    z_at_n = stats.norm.isf(p) * math.sqrt(needed / 20)
    power = stats.norm.sf(stats.norm.isf(level) - z_at_n)
    assert 0.8 <= power < 0.81


def test_rate_regression_uses_the_exact_boschloo_n():
    b, c = Summary(n=20, mean=0.45), Summary(n=20, mean=0.15)
    needed, what = runs_to_decide(
        result("pass_rate", -0.3, 0.04, b=b, c=c), band=0.1, level=0.01, alpha=0.05, power=0.8
    )
    assert what == "a regression"
    assert needed == tstats.n_needed_pass_rate(0.45, 0.3, alpha=0.01, power=0.8)
    # Exact power of Boschloo's test at that N (and one below it falls short).
    assert tstats.power_rates(0.45, 0.15, needed, needed, alpha=0.01) >= 0.8
    assert tstats.power_rates(0.45, 0.15, needed - 1, needed - 1, alpha=0.01) < 0.8


def test_rate_inside_the_band_needs_the_equivalence_n():
    b, c = Summary(n=20, mean=0.5), Summary(n=20, mean=0.48)
    needed, what = runs_to_decide(
        result("pass_rate", -0.02, 0.4, b=b, c=c), band=0.1, level=0.01, alpha=0.05, power=0.8
    )
    assert what == "it unchanged"
    # Normal approximation of the TOST: z_(1-alpha) + z_(1-beta/2) standard errors inside.
    z = stats.norm.isf(0.05) + stats.norm.isf(0.1)
    expected = math.ceil(z**2 * (0.25 + 0.48 * 0.52) / 0.08**2)
    assert needed == expected


def test_no_n_when_the_effect_points_the_other_way():
    assert (
        runs_to_decide(
            result("tool_usage", 0.05, 0.7, tost=0.8),
            band=0.1,
            level=0.01,
            alpha=0.05,
            power=0.8,
        )
        is None
    )


def test_an_improvement_beyond_the_band_needs_the_improvement_n():
    b, c = Summary(n=20, mean=0.3), Summary(n=20, mean=0.6)
    needed, what = runs_to_decide(
        result("pass_rate", 0.3, 0.99, b=b, c=c), band=0.1, level=0.01, alpha=0.05, power=0.8
    )
    assert what == "an improvement"
    # The complementary problem: a failure rate of 70 % dropping to 40 %, at the level alpha.
    assert needed == tstats.n_needed_pass_rate(0.7, 0.3, alpha=0.01, power=0.8)
