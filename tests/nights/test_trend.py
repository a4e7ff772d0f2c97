"""The trend's statistics on series whose truth is known: a drop named at its first night, steady
series left alone, flaky series named flaky, and the boiling-frog guard's anchor drift."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
from trajguard_testkit.nights import night

from trajguard.nights import (
    NightInput,
    change_scan,
    overdispersion,
    record_night,
    trend,
    wilson,
)
from trajguard.report import render_trend


def test_wilson_covers_the_rate_and_stays_in_0_1() -> None:
    low, high = wilson(0, 20)
    assert low == 0.0 and 0.1 < high < 0.2
    low, high = wilson(13, 20)
    assert low < 0.65 < high
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_scan_names_the_first_night_of_a_drop() -> None:
    rng = np.random.default_rng(7)
    runs = np.full(30, 20.0)
    passes = np.r_[rng.binomial(20, 0.7, 18), rng.binomial(20, 0.3, 12)].astype(float)
    scan = change_scan(passes, runs, rng=rng)
    assert scan.p_value < 0.01
    assert abs((scan.start or 0) - 18) <= 2  # night 16 drew 8 of 20 by chance
    assert scan.before is not None and scan.after is not None and scan.before > scan.after


def test_a_steady_series_rarely_alarms() -> None:
    rng = np.random.default_rng(11)
    runs = np.full(30, 20.0)
    alarms = sum(
        change_scan(rng.binomial(20, 0.5, 30).astype(float), runs, sims=199, rng=rng).p_value
        <= 0.05
        for _ in range(40)
    )
    assert alarms <= 6  # 5 % of 40 is 2; 6 would be p < 0.01 under a calibrated test


def test_overdispersed_nights_are_flaky_binomial_ones_are_not() -> None:
    rng = np.random.default_rng(3)
    runs = np.full(30, 20.0)
    steady = rng.binomial(20, 0.5, 30).astype(float)
    assert overdispersion(steady, runs, rng=rng).p_value > 0.05
    flaky = rng.binomial(20, rng.beta(1.5, 1.5, 30)).astype(float)
    spread = overdispersion(flaky, runs, rng=rng)
    assert spread.p_value < 0.01 and spread.ratio > 2


def test_flaky_scenarios_are_named_flaky_in_the_trend(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    for i in range(30):
        rate = float(rng.beta(2.0, 2.0))  # intra-night correlation 0.2: nights far apart
        record_night(
            tmp_path, night(f"n{i:02d}", date=f"2026-11-{i + 1:02d}", rates={"x": rate}, seed=i)
        )
    (x,) = trend(tmp_path).scenarios
    assert x.flaky  # its early nights may still alarm: bench_trend_calibration.py measures it
    assert x.dispersion is not None and x.dispersion.p_value < 0.01


def test_a_slow_slide_under_a_rolling_baseline_moves_beyond_the_pinned_anchor(
    tmp_path: Path,
) -> None:
    rate = 0.9
    for i in range(10):
        record_night(
            tmp_path,
            night(
                f"n{i:02d}",
                date=f"2026-11-{i + 1:02d}",
                rates={"x": rate - 0.04},
                baseline_rates={"x": rate},
                baseline_batch="anchor" if i == 0 else f"roll{i}",
                pinned=i == 0,
                runs=40,
                seed=i,
            ),
        )
        rate -= 0.04
    (x,) = trend(tmp_path).scenarios
    assert x.drift is not None and x.drift.batch == "roll9" and not x.drift.pinned
    assert x.drift.nights == 1
    assert x.anchor_drift is not None and x.anchor_drift.batch == "anchor"
    assert x.anchor_drift.pinned and x.anchor_drift.nights == 10
    assert x.anchor_drift.beyond_band and x.anchor_drift.difference < -0.1


def _judged_night(index: int, flip: float) -> NightInput:
    """A night whose scenario is judged 3 times per run by a judge flipping ``flip`` of its
    verdicts."""
    made = night(f"n{index}", date=f"2026-11-{index + 1:02d}", rates={"capital": 0.7}, seed=index)
    rng = np.random.default_rng(index)
    calls = []
    for passed in made.runs["passed"]:
        said = [bool(passed) != (rng.random() < flip) for _ in range(3)]
        samples = [{"verdict": "PASS" if v else "FAIL"} for v in said]
        calls.append(json.dumps([{"criterion": "judge", "samples_wanted": 3, "samples": samples}]))
    return replace(made, runs=made.runs.assign(judge_calls=calls))


def test_a_judge_drifting_shows_in_the_store_and_the_trend(tmp_path: Path) -> None:
    for i in range(6):
        record_night(tmp_path, _judged_night(i, 0.0 if i < 3 else 0.4))
    (capital,) = trend(tmp_path).scenarios
    shown = [p.judge_disagreement for p in capital.points]
    assert shown[:3] == [0.0, 0.0, 0.0]
    assert all(d is not None and d > 0.25 for d in shown[3:])  # 2 F (1 - F) = 0.48
    text = render_trend(trend(tmp_path))
    assert "judge disagreement |" in text and "| 0% |" in text
    record_night(tmp_path, night("n9", date="2026-11-20", rates={"capital": 0.7}, seed=9))
    assert trend(tmp_path).scenarios[0].points[-1].judge_disagreement is None  # no judge
