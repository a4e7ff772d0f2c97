"""Floors in words: what each bar's sentence says (the runs that would show it included), the
terminal summary and the report's section, with a hostile scenario name shown as text."""

from __future__ import annotations

import pandas as pd

from trajguard.comparison import FloorBars, FloorResult, check_floors
from trajguard.report import floor_words, floors_section, floors_summary
from trajguard.report._floors import bar_label
from trajguard.results import from_data, to_data


def result(passed: int, failed: int, bars: FloorBars, scenario: str = "s") -> FloorResult:
    table = pd.DataFrame(
        {
            "scenario": scenario,
            "status": "ok",
            "passed": [True] * passed + [False] * failed,
            "crashed": False,
            "cost_usd": None,
        }
    )
    return check_floors(table, {scenario: bars})


def words(passed: int, failed: int, bars: FloorBars) -> str:
    (check,) = result(passed, failed, bars).checks
    return floor_words(check)


def test_eight_of_ten_says_the_bound_and_that_no_run_count_shows_it():
    said = words(8, 2, FloorBars(min_pass_rate=0.8))
    assert said.startswith("8/10 passed (80%): the 95% lower bound 49.3% is below the floor 80%")
    assert "no number of runs would show it (the estimate is not above 80%)" in said


def test_ten_of_ten_names_the_runs_that_would_show_it():
    said = words(10, 0, FloorBars(min_pass_rate=0.8))
    assert "the 95% lower bound 74.1% is below the floor 80%" in said
    assert "about 14 runs would show it on 8 nights in 10" in said


def test_met_and_breached():
    assert words(20, 0, FloorBars(min_pass_rate=0.8)) == (
        "20/20 passed (100%): the 95% lower bound 86.1% reaches the floor 80%"
    )
    assert "even the 95% upper bound" in words(2, 18, FloorBars(min_pass_rate=0.8))


def test_a_crash_ceiling_reads_as_a_ceiling():
    said = words(20, 0, FloorBars(max_crash_rate=0.05))
    assert said.startswith("0/20 crashed (0%): the 95% upper bound 13.9% is above the ceiling 5%")
    assert "about 59 runs would show it" in said


def test_an_unknown_cost_says_so():
    said = words(20, 0, FloorBars(max_cost_usd_per_run=0.02))
    assert said == "cost unknown: 20 of 20 runs recorded no cost, so the ceiling cannot be shown"


def test_a_cost_ceiling_reads_as_a_share_of_runs():
    table = pd.DataFrame(
        {
            "scenario": "s",
            "status": "ok",
            "passed": True,
            "crashed": False,
            "cost_usd": [0.01] * 16 + [0.05] * 4,
        }
    )
    (check,) = check_floors(table, {"s": FloorBars(max_cost_usd_per_run=0.02)}).checks
    assert bar_label(check) == "cost per run ≤ $0.02 in ≥ 80% of runs"
    said = floor_words(check)
    assert said.startswith(
        "16/20 runs cost at most $0.02 (80%): the 95% lower bound of that share 59.9% is "
        "below 80%, so the ceiling is not shown; at this rate no number of runs would show it"
    )


def test_the_summary_lists_what_was_not_met():
    shown = floors_summary(result(8, 2, FloorBars(min_pass_rate=0.8, max_crash_rate=0.05)))
    first, *rest = shown.splitlines()
    assert first == "floors: 2 of 2 bars not met (exit 1)"
    assert rest[0].startswith("  s (base): 8/10 passed")
    assert floors_summary(result(20, 0, FloorBars(min_pass_rate=0.8))) == "floors: all 1 bar met"


def test_the_section_shows_a_hostile_name_as_text():
    found = result(8, 2, FloorBars(min_pass_rate=0.8), scenario="<img src=x>|`x`")
    section = "\n".join(floors_section(found, ab=True))
    assert "<img" not in section and "&lt;img src=x&gt;\\|\\`x\\`" in section
    assert "| scenario | variant | bar | result | what the runs show |" in section
    assert "**Floors: 1 of 1 bar not met** — the command exits 1." in section
    assert floors_section(None) == []


def test_the_result_survives_comparison_json():
    found = result(10, 0, FloorBars(min_pass_rate=0.8, max_cost_usd_per_run=0.01))
    assert from_data(FloorResult, to_data(found)) == found
