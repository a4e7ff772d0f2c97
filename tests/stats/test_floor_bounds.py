"""The one-sided bounds behind floors: exact (Clopper-Pearson) against scipy's exact interval,
the issue's two cases (8/10 does not reach 0.8, 20/20 does), and the runs that would show a
bar found by brute force over the bounds themselves."""

from __future__ import annotations

import pytest
from scipy import stats

from trajguard.stats import (
    POWER_TO_SHOW,
    lower_rate_bound,
    runs_to_show_rate_at_least,
    upper_rate_bound,
)


def test_eight_of_ten_does_not_reach_a_floor_of_eighty_percent():
    assert lower_rate_bound(8, 10, 0.95) == pytest.approx(0.4931, abs=1e-4)
    assert lower_rate_bound(8, 10, 0.95) < 0.8


def test_twenty_of_twenty_reaches_it():
    # the bound of n of n is (1 - confidence) ** (1 / n)
    assert lower_rate_bound(20, 20, 0.95) == pytest.approx(0.05 ** (1 / 20))
    assert lower_rate_bound(20, 20, 0.95) >= 0.8
    assert lower_rate_bound(13, 13, 0.95) < 0.8 <= lower_rate_bound(14, 14, 0.95)


@pytest.mark.parametrize(("k", "n"), [(0, 5), (1, 10), (8, 10), (17, 20), (33, 40), (40, 40)])
def test_the_bounds_are_scipys_exact_interval_one_sided(k: int, n: int):
    # a one-sided 95% bound is the end of the two-sided 90% exact interval
    exact = stats.binomtest(k, n).proportion_ci(confidence_level=0.90, method="exact")
    assert lower_rate_bound(k, n, 0.95) == pytest.approx(exact.low, abs=1e-9)
    assert upper_rate_bound(k, n, 0.95) == pytest.approx(exact.high, abs=1e-9)


def test_no_run_bounds_nothing():
    assert (lower_rate_bound(0, 0, 0.95), upper_rate_bound(0, 0, 0.95)) == (0.0, 1.0)


def test_a_crash_ceiling_of_five_percent_needs_fifty_nine_clean_runs():
    assert upper_rate_bound(0, 59, 0.95) <= 0.05 < upper_rate_bound(0, 58, 0.95)


def _power(n: int, rate: float, floor: float, confidence: float) -> float:
    shows = [k for k in range(n + 1) if lower_rate_bound(k, n, confidence) >= floor]
    return float(stats.binom.sf(shows[0] - 1, n, rate)) if shows else 0.0


@pytest.mark.parametrize(("rate", "floor"), [(1.0, 0.8), (0.95, 0.8), (0.9, 0.8), (0.7, 0.5)])
def test_runs_to_show_is_the_fewest_with_the_power(rate: float, floor: float):
    needed = runs_to_show_rate_at_least(rate, floor, 0.95)
    assert needed is not None
    assert _power(needed, rate, floor, 0.95) >= POWER_TO_SHOW
    assert all(_power(n, rate, floor, 0.95) < POWER_TO_SHOW for n in range(1, needed))


def test_a_rate_at_or_below_the_floor_is_never_shown():
    assert runs_to_show_rate_at_least(0.8, 0.8, 0.95) is None
    assert runs_to_show_rate_at_least(0.6, 0.8, 0.95) is None
