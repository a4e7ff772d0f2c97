"""One rule for passes, crashes and harness errors: `show`, `compare`, the plots, the progress bar
and the run summary all count a run table the same way."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from trajguard.comparison import compare_runsets, split_runs
from trajguard.outcome import (
    DEFAULT_CRASH_STATUSES,
    STATUS_TABLE,
    STATUSES,
    classify,
    crashed_flag,
    is_crash_row,
    passed_row,
    tally,
)
from trajguard.report import summarize
from trajguard.report.builders._document import _plot_samples


def row(status: str = "ok", passed: object = True, crashed: object = False) -> dict[str, object]:
    return {
        "scenario": "s",
        "variant": "base",
        "status": status,
        "passed": passed,
        "crashed": crashed,
        "step_count": 3,
        "tool_sequence": [],
        "tool_counts": {},
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "duration_s": 1.0,
    }


# A run set written before crashes counted as failures: two crashed runs stored as passed, a
# timeout stored unjudged, a harness error, and one honest pass. The rule says 1 of 4 passed.
OLD_RUN_SET = pd.DataFrame(
    [
        row(),
        row("agent_error", passed=True, crashed=True),
        row("ok", passed=True, crashed=True),
        row("timeout", passed=None),
        row("harness_error", passed=None),
    ]
)


def test_show_compare_plots_and_rows_agree_on_an_old_run_set() -> None:
    counts = tally(OLD_RUN_SET)
    assert (counts.runs, counts.harness_errors, counts.judged, counts.passed, counts.crashed) == (
        5,
        1,
        4,
        1,
        3,
    )
    (shown,) = summarize(OLD_RUN_SET)
    assert (shown.passed, shown.judged, shown.crashed) == (1, 4, 3)
    assert shown.pass_rate == counts.pass_rate == pytest.approx(0.25)
    comparison = compare_runsets(OLD_RUN_SET, OLD_RUN_SET)
    rate = comparison.scenario("s").metric("pass_rate")
    assert rate.candidate.mean == pytest.approx(0.25) and rate.candidate.n == 4
    crash = comparison.scenario("s").metric("crash_rate")
    assert crash.candidate.mean == pytest.approx(3 / 4)
    plot = _plot_samples(OLD_RUN_SET, ["s"])["s"]  # what the plot draws
    assert (plot.pass_rate, plot.crash_rate, plot.judged) == (
        pytest.approx(0.25),
        pytest.approx(0.75),
        4,
    )
    rows = OLD_RUN_SET.to_dict("records")
    assert sum(passed_row(r["status"], r["crashed"], r["passed"]) for r in rows) == 1
    assert sum(is_crash_row(r["status"], r["crashed"]) for r in rows) == 3


def test_harness_errors_never_count_as_crashes_or_judged_runs() -> None:
    table = pd.DataFrame([row("harness_error", passed=None, crashed=True)])
    outcomes = classify(table)
    assert not outcomes.behavioural.any() and not outcomes.crashed.any()
    assert not is_crash_row("harness_error", True)
    assert split_runs(table)["s"].harness_excluded == 1


def test_crash_statuses_are_configurable() -> None:
    assert classify(OLD_RUN_SET, crash_statuses={"agent_error"}).crashed.sum() == 2
    assert classify(OLD_RUN_SET).crashed.sum() == 3


def test_the_status_table_is_the_one_source() -> None:
    assert {s.name for s in STATUS_TABLE} == STATUSES
    assert {"crash", "agent_error", "timeout"} == DEFAULT_CRASH_STATUSES
    assert [s.name for s in STATUS_TABLE if not s.behavioural] == ["harness_error"]


@pytest.mark.parametrize(
    ("status", "raised", "flag"),
    [
        ("ok", False, False),
        ("ok", True, True),
        ("crash", False, True),
        ("agent_error", False, True),
        ("timeout", False, True),  # with steps or without: one rule
        ("harness_error", True, None),
    ],
)
def test_one_rule_sets_the_crashed_column(status: str, raised: bool, flag: bool | None) -> None:
    assert crashed_flag(status, raised) is flag
    if flag is not None:  # the column agrees with what the crash rate counts
        assert flag == is_crash_row(status, raised)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame([{"status": "ok"}]), "lacks column(s) passed"),
        (pd.DataFrame([{"status": "exploded", "passed": True}]), "unknown status value(s)"),
        (pd.DataFrame([{"status": "ok", "passed": "maybe"}]), "must hold true, false or null"),
    ],
)
def test_a_table_that_is_not_a_run_table_is_a_clear_error(frame: pd.DataFrame, message: str):
    from trajguard.errors import StoreError

    with pytest.raises(StoreError, match=re.escape(message)):
        classify(frame)
