"""The blindness judgement's pieces: the Jeffreys interval and the least powerful plausible
baseline rate."""

from __future__ import annotations

import pytest
from scipy import stats as sp

from trajguard import stats as st


@pytest.mark.parametrize(("k", "n"), [(0, 3), (3, 3), (1, 5), (15, 30), (0, 60)])
def test_the_jeffreys_interval_is_the_beta_posteriors_equal_tails(k: int, n: int) -> None:
    low, high = st.jeffreys_interval(k, n, 0.90)
    posterior = sp.beta(k + 0.5, n - k + 0.5)
    assert low == (0.0 if k == 0 else pytest.approx(posterior.ppf(0.05)))
    assert high == (1.0 if k == n else pytest.approx(posterior.ppf(0.95)))
    assert low < high  # never a point, whatever the few runs showed
    assert st.jeffreys_interval(0, 0) == (0.0, 1.0)


def test_0_of_3_leaves_rates_a_band_can_drop_from_and_none_is_visible() -> None:
    worst = st.least_power_pass_rate(0, 3, 0.10, alpha=0.0114)
    assert worst is not None
    assert worst.low == 0.10 and worst.high == pytest.approx(0.444, abs=1e-3)
    assert worst.low <= worst.rate <= worst.high and worst.power < 0.8


def test_a_baseline_plainly_under_the_band_has_no_drop_of_it() -> None:
    assert st.least_power_pass_rate(0, 60, 0.10, alpha=0.0114) is None


def test_many_runs_see_the_band_from_every_plausible_rate() -> None:
    worst = st.least_power_pass_rate(500, 1000, 0.10, alpha=0.0114)
    assert worst is not None and worst.power >= 0.8
    # the least power is where the noise is widest, not at the observed rate by luck
    few = st.least_power_pass_rate(15, 30, 0.10, alpha=0.0114)
    assert few is not None
    at_observed = st.gate_power(0.5, 0.4, 30, 30, 0.0114, False)
    assert few.power <= at_observed + 1e-12
