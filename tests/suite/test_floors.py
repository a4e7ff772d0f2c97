"""The suite's ``floor:``: words that say their direction, errors with file, line and field,
the default floor and a scenario's own, and the fields kept in step with what compare reads."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from trajguard.comparison import BAR_NAMES, FloorBars
from trajguard.errors import SuiteError
from trajguard.suite import Floor, load_suite, scenario_floors

SUITE = """name: floors
defaults:
  floor: {{min_pass_rate: 0.8, max_crash_rate: 0.05}}
scenarios:
  - id: one
    agent: {{kind: builtin}}
    input: hi
    floor: {own}
  - id: two
    agent: {{kind: builtin}}
    input: hi
"""


def load(tmp_path: Path, own: str) -> list[SuiteError]:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(own=own))
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    problems = getattr(caught.value, "problems", None) or [caught.value]
    return list(problems)


@pytest.mark.parametrize(
    ("own", "says"),
    [
        ("{pass_rate: 0.8}", "write min_pass_rate (a floor"),
        ("{crash_rate: 0.05}", "write max_crash_rate (a ceiling"),
        ("{cost_usd: 0.02}", "write max_cost_usd_per_run (a ceiling on one run's cost"),
        ("{max_mean_cost_usd: 0.02}", "which share_within_cost of the runs, 0.8 unless set"),
        ("{min_crash_rate: 0.05}", "crashes have a ceiling, not a floor"),
        ("{max_pass_rate: 0.8}", "the pass rate has a floor, not a ceiling"),
    ],
)
def test_a_word_that_could_be_misread_is_refused_with_the_one_to_write(
    tmp_path: Path, own: str, says: str
):
    (problem,) = load(tmp_path, own)
    assert says in problem.message
    assert problem.line == 8 and problem.path == "scenarios[0].floor"
    assert "scenario 'one'" in problem.message


@pytest.mark.parametrize(
    ("own", "field", "says"),
    [
        ("{min_pass_rat: 0.8}", "scenarios[0].floor.min_pass_rat", "did you mean 'min_pass_rate'"),
        ("{min_pass_rate: 1.0}", "scenarios[0].floor.min_pass_rate", "less than 1"),
        ("{min_pass_rate: 0}", "scenarios[0].floor.min_pass_rate", "greater than 0"),
        ("{max_crash_rate: -0.1}", "scenarios[0].floor.max_crash_rate", "greater than 0"),
        ("{max_cost_usd_per_run: .nan}", "scenarios[0].floor.max_cost_usd_per_run", "finite"),
        (
            "{min_pass_rate: 0.5, share_within_cost: 0.9}",
            "scenarios[0].floor",
            "share_within_cost applies to max_cost_usd_per_run",
        ),
        (
            "{max_cost_usd_per_run: 0.02, share_within_cost: 1}",
            "scenarios[0].floor.share_within_cost",
            "less than 1",
        ),
        ("{confidence: 0.3, min_pass_rate: 0.5}", "scenarios[0].floor.confidence", "0.5"),
        ("{}", "scenarios[0].floor", "floor sets no bar"),
        ("0.8", "scenarios[0].floor", "valid dictionary"),
    ],
)
def test_bad_floors_name_the_field(tmp_path: Path, own: str, field: str, says: str):
    (problem,) = load(tmp_path, own)
    assert problem.path == field and problem.line == 8
    assert says in problem.message


def test_a_scenarios_floor_replaces_the_default_whole(tmp_path: Path):
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(own="{min_pass_rate: 0.6}"))
    suite = load_suite(path)
    floors = scenario_floors(suite.defaults.floor, {s.id: s.floor for s in suite.scenarios})
    assert floors["one"]["min_pass_rate"] == 0.6 and floors["one"]["max_crash_rate"] is None
    assert floors["two"] == {
        "min_pass_rate": 0.8,
        "max_crash_rate": 0.05,
        "max_cost_usd_per_run": None,
        "share_within_cost": 0.8,
        "confidence": 0.95,
    }


def test_no_floor_records_nothing():
    assert scenario_floors(None, {"one": None}) == {}


def test_the_suite_model_mirrors_what_compare_reads():
    assert set(Floor.model_fields) == {f.name for f in dataclasses.fields(FloorBars)}
    assert set(BAR_NAMES) <= set(Floor.model_fields)
    recorded = Floor(min_pass_rate=0.8).model_dump()
    assert FloorBars(**recorded) == FloorBars(min_pass_rate=0.8)
