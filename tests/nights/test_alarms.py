"""The trend's alarms on series whose truth is known: a drift told as a drift, a rise, a
crash-rate rise, a moved tool mix and runs failing along one path worded apart, one false-alarm
rate per suite, and tomorrow's report keeping today's alarms."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from trajguard_testkit.nights import night

from trajguard.nights import (
    PATH_WEIGHT,
    RISE_WEIGHT,
    TARGET_ARL,
    monitor,
    record_night,
    stream_arl,
    threshold,
    trend,
)
from trajguard.nights._alarms import _best_fit
from trajguard.nights._monitor import MARGIN
from trajguard.nights._streams import RISE_EXCESS
from trajguard.report import render_trend
from trajguard.results import TrendPoint


def _nights(path: Path, multiply: list[float], *, runs: int = 20) -> Path:
    for i, rate in enumerate(multiply):
        record_night(
            path,
            night(
                f"n{i:02d}",
                date=f"2026-10-{i + 1:02d}",
                rates={"capital": 0.5, "multiply": rate},
                runs=runs,
                seed=i,
            ),
        )
    return path


def test_a_slide_is_told_as_a_drift_from_its_onset_with_its_slope(tmp_path: Path) -> None:
    slide = [0.9] * 12 + [0.9 - 0.03 * j for j in range(1, 19)]  # 3 points a night from n12
    facts = trend(_nights(tmp_path, slide, runs=40))
    multiply = next(s for s in facts.scenarios if s.scenario == "multiply")
    (alarm, *_) = multiply.alarms
    assert (alarm.direction, alarm.shape, alarm.harmful) == ("drop", "drift", True)
    assert abs(alarm.start_index - 12) <= 3 and alarm.raised_index > alarm.start_index
    assert alarm.slope is not None and -0.05 < alarm.slope < -0.015
    assert "**pass rate drifting down since about 2026-10-" in render_trend(facts)


def test_a_rise_is_worded_as_a_rise_and_is_not_harmful(tmp_path: Path) -> None:
    facts = trend(_nights(tmp_path, [0.2] * 8 + [0.9] * 4))
    multiply = next(s for s in facts.scenarios if s.scenario == "multiply")
    (alarm,) = multiply.alarms
    assert (alarm.direction, alarm.shape, alarm.harmful) == ("rise", "step", False)
    assert alarm.start_night_id == "n08"
    text = render_trend(facts)
    assert "### multiply (base): pass rate rose since 2026-10-09 (n08)" in text
    assert "**pass rate rose" not in text
    assert facts.alarmed_tonight == ()  # a rise gates nothing


def _point(i: int, *, crashes: int, runs: int = 20) -> TrendPoint:
    return TrendPoint(
        date=f"2026-10-{i + 1:02d}",
        night_id=f"n{i:02d}",
        runs=runs,
        passes=10,
        pass_rate=0.5,
        pass_low=0.3,
        pass_high=0.7,
        crash_rate=crashes / runs,
        crash_low=0.0,
        crash_high=1.0,
    )


def test_a_crash_rate_rise_alarms_on_the_crash_rate_and_a_fall_does_not() -> None:
    rising = [_point(i, crashes=0 if i < 8 else 6) for i in range(11)]
    falling = [_point(i, crashes=6 if i < 8 else 0) for i in range(11)]
    nights = [(p.date, p.night_id) for p in rising]
    figures, alarms = monitor([rising, falling], nights)
    assert figures.statistics == 6
    ((alarm,), none) = alarms
    assert (alarm.metric, alarm.direction, alarm.harmful) == ("crash_rate", "rise", True)
    assert alarm.start_index == 8
    assert none == ()  # the crash rate is watched for rises only


def test_one_threshold_per_suite_for_a_year_of_nights_between_false_alarms() -> None:
    four, twenty = threshold(12), threshold(60)
    assert 4.0 < four < twenty < 6.5
    # each statistic gets its share: the suite's false alarms add up to one per TARGET_ARL on
    # the line, and the threshold stands MARGIN above it (the line's ARL MARGIN units further)
    for statistics, h in ((12, four), (60, twenty)):
        assert abs(stream_arl(h - MARGIN) / (statistics * TARGET_ARL) - 1) < 1e-9
        assert stream_arl(h) > statistics * TARGET_ARL


def test_tomorrows_trend_keeps_todays_alarms(tmp_path: Path) -> None:
    rates = [0.9] * 6 + [0.2] * 6
    today = trend(_nights(tmp_path / "today", rates[:-1]))
    tomorrow = trend(_nights(tmp_path / "tomorrow", rates))
    for before, after in zip(today.scenarios, tomorrow.scenarios, strict=True):
        raised = [(a.metric, a.direction, a.raised_index, a.start_index) for a in before.alarms]
        kept = [(a.metric, a.direction, a.raised_index, a.start_index) for a in after.alarms]
        assert kept[: len(raised)] == raised
    assert any(s.alarms for s in today.scenarios)


def _mixed(path: Path, weather: list[float], *, fails_from: int = 99) -> Path:
    """Nights of a suite whose multiply sends a share of its runs down get_weather."""
    for i, share in enumerate(weather):
        record_night(
            path,
            night(
                f"n{i:02d}",
                date=f"2026-10-{i + 1:02d}",
                rates={"capital": 0.5, "multiply": 0.5},
                seed=i,
                weather={"multiply": share},
                weather_fails=i >= fails_from,
            ),
        )
    return path


def test_a_tool_mix_that_moved_is_worded_as_such_not_as_a_drop(tmp_path: Path) -> None:
    facts = trend(_mixed(tmp_path / "all", [0.4] * 8 + [0.0] * 3))  # get_weather gone from n08
    multiply = next(s for s in facts.scenarios if s.scenario == "multiply")
    (alarm,) = multiply.alarms
    assert (alarm.metric, alarm.direction, alarm.path, alarm.gained) == (
        "tool_usage",
        "moved",
        "get_weather",
        "calculator",
    )
    assert alarm.harmful and alarm.start_night_id == "n08" and alarm.after < 0.025
    text = render_trend(facts)
    assert (
        "### multiply (base): **the tool mix moved since 2026-10-09 (n08): get\\_weather gone "
        "(40% → 0% of the runs), calculator up" in text
    )
    assert alarm.raised_index in (8, 9)
    # the nightly gates on the tool mix: the night the alarm is raised fails --fail-on-change
    tonight = trend(_mixed(tmp_path / "cut", [0.4] * 8 + [0.0] * (alarm.raised_index - 7)))
    assert tonight.alarmed_tonight == ("multiply",)
    # capital's runs take one path: nothing of its tool mix to watch
    assert facts.monitoring is not None and facts.monitoring.path_statistics == 4
    capital = next(s for s in facts.scenarios if s.scenario == "capital")
    assert capital.alarms == () and capital.points[0].paths == {"calculator": 20}


def test_runs_failing_along_one_path_rise_while_the_pass_rate_holds(tmp_path: Path) -> None:
    # from n08 multiply's get_weather runs (half) fail and its calculator runs pass: its pass
    # rate stays at 50 %, its failures move onto get_weather (27 % -> 50 % of the runs: a path
    # statistic's threshold takes up to three flaky allowances, so it is raised on n16)
    facts = trend(_mixed(tmp_path, [0.5] * 18, fails_from=8))
    multiply = next(s for s in facts.scenarios if s.scenario == "multiply")
    (alarm,) = multiply.alarms
    assert alarm.metric == "failing_paths"
    assert (alarm.direction, alarm.path, alarm.harmful) == ("rise", "get_weather", True)
    assert alarm.start_night_id == "n08"
    assert multiply.points[-1].failing_paths is not None
    assert multiply.points[-1].failing_paths["get_weather"] == 10
    assert "**runs failing along get\\_weather rose since 2026-10-09 (n08)" in render_trend(facts)


def test_path_statistics_share_the_suites_false_alarm_rate() -> None:
    one = [_point(i, crashes=0) for i in range(4)]
    two = [
        replace(p, paths={"calculator": 12, "get_weather": 8}, failing_paths={"get_weather": 8})
        for p in one
    ]
    nights = [(p.date, p.night_id) for p in one]
    alone, _ = monitor([one, one], nights)
    watched, _ = monitor([one, two], nights)
    # per scenario a pass-rate drop (1), a rise and a crash-rate rise (a quarter each); 2 paths:
    # each path's share down and its failing share up, an eighth of a drop's part each
    assert (alone.statistics, watched.statistics, watched.path_statistics) == (6, 10, 4)
    suite = 2 * (1 + 2 * RISE_WEIGHT)
    assert alone.path_threshold is None and alone.threshold == threshold(suite)
    assert alone.rise_threshold == threshold(suite * RISE_EXCESS / RISE_WEIGHT)
    assert watched.threshold == threshold(suite + 4 * PATH_WEIGHT)
    assert watched.path_threshold == threshold((suite + 4 * PATH_WEIGHT) / PATH_WEIGHT)
    assert watched.rise_threshold is not None and watched.path_threshold is not None
    assert alone.threshold < watched.threshold < watched.rise_threshold < watched.path_threshold


def _best_fit_by_lstsq(r: np.ndarray, t: np.ndarray, w: np.ndarray) -> tuple[float, int, bool]:
    """The reference: one weighted least-squares fit per breakpoint (numpy's lstsq), the step
    first, a later shape winning only by more than 1e-12."""
    best: tuple[float, int, bool] | None = None
    sw = np.sqrt(w)
    shapes = [(j, False) for j in range(1, len(r))] + [(j, True) for j in range(len(r) - 2)]
    for j, drift in shapes:
        second = np.maximum(0.0, t - t[j]) if drift else (np.arange(len(r)) >= j).astype(float)
        design = np.c_[np.ones(len(r)), second]
        coef, *_ = np.linalg.lstsq(design * sw[:, None], r * sw, rcond=None)
        ss = float(np.sum(w * (r - design @ coef) ** 2))
        if best is None or ss < best[0] - 1e-12:
            best = (ss, j, drift)
    assert best is not None
    return best


def test_the_shapes_closed_form_fits_agree_with_least_squares_at_every_breakpoint() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        nights = int(rng.integers(2, 60))
        runs = rng.integers(1, 50, nights).astype(float)
        rate = np.clip(rng.uniform(0.1, 0.9) + np.cumsum(rng.normal(0, 0.03, nights)), 0, 1)
        r = rng.binomial(runs.astype(int), rate) / runs
        t = np.sort(rng.choice(np.arange(2 * nights), nights, replace=False)).astype(float)
        ss, j, drift, _ = _best_fit(r, t, runs)
        expected = _best_fit_by_lstsq(r, t, runs)
        assert (j, drift) == expected[1:]
        assert ss == pytest.approx(expected[0], rel=1e-9, abs=1e-12)
