import numpy as np

from trajguard.nights import drift_line, line_spread, newcombe, spread_ratio


def test_a_steady_slide_is_no_spread_around_the_fitted_line() -> None:
    runs = np.full(12, 40.0)
    passes = np.round(runs * np.linspace(0.9, 0.46, 12))
    assert spread_ratio(passes, runs) > 3  # around one rate the slide reads as spread
    phi, df = line_spread(passes, runs)
    assert phi < 1.5 and df == 9


def test_nights_scattered_beyond_binomial_noise_read_as_spread() -> None:
    runs = np.full(12, 40.0)
    passes = np.array([8, 32, 10, 30, 6, 34, 12, 28, 9, 33, 7, 31], np.float64)
    phi, df = line_spread(passes, runs)
    assert phi > 5 and df == 9


def test_few_nights_are_read_as_binomial() -> None:
    assert line_spread([1.0, 9.0, 2.0, 8.0], [10.0] * 4) == (1.0, 0)


def test_a_slide_far_below_the_baseline_night_moves_beyond_the_band() -> None:
    line = drift_line([0, 2, 1, 0, 0, 12], [20.0] * 6, 19.0, 20.0, band=0.10)
    assert line.beyond_band and line.difference < -0.5 and line.high < 0


def test_flaky_nights_around_the_baseline_rate_stay_within_the_band() -> None:
    passes = np.array([8, 32, 10, 30, 6, 34, 12, 28, 9, 33, 7, 31], np.float64) * 4
    # read as binomial, the pooled nights sit 15 points below the baseline night, beyond 0
    d, _, high = newcombe(passes.sum(), 160.0 * 12, 104.0, 160.0)
    assert abs(d) > 0.10 and high < 0
    line = drift_line(passes, [160.0] * 12, 104.0, 160.0, band=0.10)
    assert line.spread > 5 and line.low < 0 < line.high and not line.beyond_band


def test_nights_at_the_baseline_s_rate_differ_from_it_by_exactly_zero() -> None:
    """The difference is of the rates, not of counts divided by the spread: with the spread
    above 1, those left a last-digit difference (5.6e-17) that the report printed as "-0 pts"
    or "+0 pts" depending on the machine's rounding."""
    passes = [10, 3, 12, 13, 11, 6, 7, 3, 0, 16, 0, 5, 5, 4, 1, 3, 16, 3, 5, 17, 16, 11, 38, 2, 12]
    runs = [32, 22, 16, 38, 30, 25, 29, 28, 6, 18, 16, 28, 38, 7, 7, 20, 29, 7, 37, 29, 38, 32,
            39, 24, 17]  # fmt: skip
    line = drift_line(passes, runs, 657, 1836, band=0.1)  # 657/1836 = 219/612, the nights' rate
    assert line.spread > 1
    assert line.difference == 0.0
    assert line.recent_difference == 52 / 80 - 657 / 1836
