"""Floors checked on a run table: each bar's state, per variant arm, with harness errors left
out and a cost never passed when it is not recorded."""

from __future__ import annotations

import pandas as pd
import pytest

from trajguard.comparison import FloorBars, FloorState, check_floors


def runs(
    passed: int,
    failed: int = 0,
    *,
    crashed: int = 0,
    harness: int = 0,
    scenario: str = "s",
    variant: str = "base",
    cost: float | None = None,
) -> pd.DataFrame:
    rows = (
        [("ok", True, False)] * passed
        + [("ok", False, False)] * failed
        + [("crash", False, True)] * crashed
        + [("harness_error", None, None)] * harness
    )
    return pd.DataFrame(
        {
            "scenario": scenario,
            "variant": variant,
            "status": [r[0] for r in rows],
            "passed": pd.array([r[1] for r in rows], dtype="boolean"),
            "crashed": pd.array([r[2] for r in rows], dtype="boolean"),
            "cost_usd": pd.array([cost] * len(rows), dtype="Float64"),
        }
    )


FLOOR = {"s": FloorBars(min_pass_rate=0.8)}


def only(table: pd.DataFrame, bars: dict[str, FloorBars] = FLOOR):
    result = check_floors(table, bars)
    (check,) = result.checks
    return result, check


def test_eight_of_ten_is_not_shown_to_reach_eighty_percent():
    result, check = only(runs(8, 2))
    assert not result.met
    assert check.state is FloorState.NOT_SHOWN
    assert (check.count, check.runs, check.estimate) == (8, 10, 0.8)
    assert check.bound == pytest.approx(0.4931, abs=1e-4)
    assert check.runs_needed is None  # at 80 % no run count shows a floor of 80 %


def test_twenty_of_twenty_meets_it():
    result, check = only(runs(20))
    assert result.met and check.state is FloorState.MET
    assert check.runs_needed is None


def test_ten_of_ten_is_not_yet_shown_and_names_the_runs_that_would():
    _, check = only(runs(10))
    assert check.state is FloorState.NOT_SHOWN
    assert check.runs_needed == 14


def test_a_rate_clearly_below_the_floor_is_breached():
    _, check = only(runs(3, 17))
    assert check.state is FloorState.BREACHED
    assert check.other_bound is not None and check.other_bound < 0.8


def test_harness_errors_are_left_out_and_crashes_fail():
    _, check = only(runs(20, harness=5))
    assert check.runs == 20 and check.state is FloorState.MET
    _, check = only(runs(18, crashed=2))
    assert (check.count, check.runs) == (18, 20)
    assert check.state is FloorState.NOT_SHOWN


def test_a_crash_ceiling_is_an_upper_bound():
    bars = {"s": FloorBars(max_crash_rate=0.05)}
    _, check = only(runs(59), bars)
    assert check.state is FloorState.MET
    _, check = only(runs(20), bars)
    assert check.state is FloorState.NOT_SHOWN and check.runs_needed == 59  # runs in all, not more
    _, check = only(runs(10, crashed=10), bars)
    assert check.state is FloorState.BREACHED


COST = {"s": FloorBars(max_cost_usd_per_run=0.02)}


def test_a_cost_not_recorded_is_unknown_and_fails():
    result, check = only(runs(20), COST)
    assert check.state is FloorState.UNKNOWN and check.missing == 20
    assert not result.met


def test_one_missing_cost_makes_it_unknown():
    table = runs(20, cost=0.01)
    table.loc[3, "cost_usd"] = None
    _, check = only(table, COST)
    assert check.state is FloorState.UNKNOWN and check.missing == 1


def test_a_cost_ceiling_is_the_share_of_runs_within_it():
    table = runs(20, cost=0.01)
    _, check = only(table, COST)  # 20/20 within: the share's lower bound 86% reaches 80%
    assert check.state is FloorState.MET and (check.count, check.runs, check.share) == (20, 20, 0.8)
    table.loc[:3, "cost_usd"] = 0.05  # 4 of 20 above the ceiling: 16/20 within
    _, check = only(table, COST)
    assert check.state is FloorState.NOT_SHOWN and check.count == 16
    assert check.bound == pytest.approx(0.5990, abs=1e-4)
    table.loc[:, "cost_usd"] = 0.05
    _, check = only(table, COST)
    assert check.state is FloorState.BREACHED and check.count == 0


def test_a_cost_exactly_at_the_ceiling_is_within_it():
    _, check = only(runs(20, cost=0.02), COST)
    assert check.count == 20 and check.state is FloorState.MET


def test_the_share_within_the_cost_ceiling_is_the_bars_own():
    bars = {"s": FloorBars(max_cost_usd_per_run=0.02, share_within_cost=0.5)}
    table = runs(10, cost=0.01)
    table.loc[:1, "cost_usd"] = 0.05  # 8/10 within: the lower bound 49.3% misses 50%
    _, check = only(table, bars)
    assert check.state is FloorState.NOT_SHOWN and check.runs_needed is not None


def test_every_variant_arm_is_checked_on_its_own():
    table = pd.concat([runs(20, variant="a"), runs(8, 2, variant="b")], ignore_index=True)
    result = check_floors(table, FLOOR)
    states = {c.variant: c.state for c in result.checks}
    assert states == {"a": FloorState.MET, "b": FloorState.NOT_SHOWN}
    assert not result.met and [c.variant for c in result.failed] == ["b"]


def test_a_scenario_with_a_floor_but_no_run_fails():
    result = check_floors(runs(20), {**FLOOR, "gone": FloorBars(min_pass_rate=0.5)})
    assert result.unchecked == ("gone",) and not result.met


def test_scenarios_without_bars_are_not_checked():
    result = check_floors(runs(3, 7, scenario="other"), FLOOR)
    assert result.unchecked == ("s",)
    assert result.checks == ()


def test_confidence_is_the_bars_own():
    _, check = only(runs(19, 1), {"s": FloorBars(min_pass_rate=0.8, confidence=0.8)})
    assert check.state is FloorState.MET  # 19/20 reaches 0.8 at 80 % confidence
    _, check = only(runs(19, 1))
    assert check.state is FloorState.NOT_SHOWN  # but not at 95 %
