"""The one rule of how many runs a scenario gets: ``--runs N``, else its own ``runs:``, else the
suite's ``defaults.runs`` — and what counts as set (for the budgeted design's first look)."""

from __future__ import annotations

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import Suite, runs_per_scenario, set_runs

SUITE = Suite.model_validate(
    {
        "name": "rule",
        "defaults": {"runs": 6},
        "scenarios": [
            {"id": "own", "agent": {"kind": "builtin"}, "input": "x", "runs": 40},
            {"id": "plain", "agent": {"kind": "builtin"}, "input": "y"},
        ],
    }
)


def test_a_scenario_gets_its_own_runs_else_the_suite_default() -> None:
    assert runs_per_scenario(SUITE) == {"own": 40, "plain": 6}
    assert SUITE.resolve("own").runs == 40 and SUITE.resolve("plain").runs == 6


def test_the_command_s_runs_give_every_scenario_the_same_n() -> None:
    assert runs_per_scenario(SUITE, runs=3) == {"own": 3, "plain": 3}


def test_a_selection_keeps_its_order_and_an_unknown_scenario_is_named() -> None:
    assert runs_per_scenario(SUITE, scenarios=["plain", "own"]) == {"plain": 6, "own": 40}
    with pytest.raises(SuiteError, match="no scenario 'gone'"):
        runs_per_scenario(SUITE, scenarios=["gone"])


def test_only_runs_or_a_scenario_s_runs_count_as_set() -> None:
    assert set_runs(SUITE) == {"own": 40, "plain": None}
    assert set_runs(SUITE, runs=5) == {"own": 5, "plain": 5}
