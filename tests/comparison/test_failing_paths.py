"""Failing paths: the cells of the runs, the metric's own permutation test and its place in the
combined test, each against an independent computation (every arrangement enumerated)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from trajguard_testkit.exact import arrangements, boschloo_greater
from trajguard_testkit.rows import frame
from trajguard_testkit.rows import run_row as run

from trajguard.comparison import CompareConfig, Verdict, compare_runsets
from trajguard.comparison._paths import NO_TOOL, run_path

PATHS = ("failing_paths",)


def _rank(values):
    values = np.asarray(values, dtype=float)
    return np.array([np.mean(values >= v - 1e-9 * max(1.0, abs(v))) for v in values])


def _cell(r):
    """(path, passed) of a run row by hand, or None when it has no outcome."""
    crashed = r["status"] == "agent_error"
    if r["passed"] is None and not crashed:
        return None
    tools = r["tool_sequence"]
    path = min(set(tools), key=lambda t: (-tools.count(t), t)) if tools else NO_TOOL
    return path, bool(r["passed"]) and not crashed


def _max_rise(runs, in_c):
    """The largest two-sample z of a failing cell's share, computed run by run."""
    cells = [_cell(r) for r in runs]
    judged = [i for i, c in enumerate(cells) if c is not None]
    cand = [i for i in judged if in_c[i]]
    base = [i for i in judged if not in_c[i]]
    if not cand or not base:
        return -math.inf
    failing = sorted({cells[i] for i in judged if not cells[i][1]})
    best = -math.inf
    for key in failing:
        c_k = sum(cells[i] == key for i in cand)
        b_k = sum(cells[i] == key for i in base)
        s = (c_k + b_k) / len(judged)
        spread = math.sqrt(max(s * (1 - s), 1e-12) * (1 / len(cand) + 1 / len(base)))
        best = max(best, (c_k / len(cand) - b_k / len(base)) / spread)
    return best


def test_a_runs_path_is_its_most_called_tool_ties_to_the_first_name():
    assert run_path({"search": 2, "calc": 1}) == "search"
    assert run_path({"search": 1, "calc": 1}) == "calc"
    assert run_path({"search": 0}) == NO_TOOL
    assert run_path({}) == NO_TOOL


BASE = [
    run("a", passed=True, tools=("calc",)),
    run("a", passed=False, tools=("calc", "calc")),
    run("a", passed=True, tools=("calc", "weather")),
    run("a", passed=False, tools=()),
    run("a", passed=None, tools=("weather",)),  # unjudged: in no cell
]
CAND = [
    run("a", passed=False, tools=("weather",)),
    run("a", passed=False, tools=("weather", "weather", "calc")),
    run("a", passed=True, tools=("calc",)),
    run("a", passed=None, tools=("weather",), status="agent_error"),  # a crash is a failure
]


def test_the_metric_p_value_is_the_enumerated_permutation_law():
    config = CompareConfig(metrics=PATHS, gating=frozenset(), suite_share=0.0)
    result = compare_runsets(frame(BASE), frame(CAND), config=config).scenario("a")
    got = result.metric("failing_paths")
    runs = BASE + CAND
    stats = [_max_rise(runs, m) for m in arrangements(len(runs), len(CAND))]
    observed = _max_rise(runs, np.r_[np.zeros(len(BASE), bool), np.ones(len(CAND), bool)])
    expected = np.mean([s >= observed - 1e-9 for s in stats])
    assert got.p_value == pytest.approx(expected, rel=1e-9)
    # weather-then-fail: 0 of 4 judged baseline runs, 3 of 4 candidate runs (the crash included)
    assert got.estimate == pytest.approx(3 / 4 - 0 / 4)
    assert any("failed along weather: 0% → 75%" in note for note in got.notes)
    assert got.baseline.n == 4 and got.candidate.n == 4


def test_in_the_combined_test_it_is_one_more_column_of_the_fisher_combination():
    gating = ("pass_rate", "failing_paths")
    config = CompareConfig(metrics=gating, gating=frozenset(gating), suite_share=0.0)
    gate = compare_runsets(frame(BASE), frame(CAND), config=config).scenario("a").gate
    assert gate is not None and set(gate.metrics) == set(gating)
    runs = BASE + CAND
    judged = np.array([_cell(r) is not None for r in runs])
    passed = np.array([c is not None and c[1] for c in map(_cell, runs)])
    rows = []
    for m in arrangements(len(runs), len(CAND)):
        x_b, n_b = int(passed[~m & judged].sum()), int((~m & judged).sum())
        x_c, n_c = int(passed[m & judged].sum()), int((m & judged).sum())
        pass_p = boschloo_greater(x_b, n_b, x_c, n_c) if n_b and n_c else 1.0
        rows.append((pass_p, _max_rise(runs, m)))
    table = np.array(rows)
    combined = -np.log(table[:, 0]) - np.log(_rank(table[:, 1]))
    expected = np.mean(combined >= combined[-1] - 1e-9)  # candidates last: the last arrangement
    assert gate.p_value == pytest.approx(expected, rel=1e-6)


def test_a_break_down_one_wrong_path_fails_the_night_by_failing_paths():
    base = [
        run("a", passed=i % 2 == 0, tools=("calc",) if i % 3 else ("search",)) for i in range(20)
    ]
    cand = [run("a", passed=False, tools=("weather",)) for _ in range(10)] + [
        run("a", passed=i % 2 == 0, tools=("calc",)) for i in range(10)
    ]
    result = compare_runsets(frame(base), frame(cand)).scenario("a")
    paths = result.metric("failing_paths")
    assert paths.verdict is Verdict.REGRESSED and paths.estimate == pytest.approx(0.5)
    assert result.verdict is Verdict.REGRESSED


def test_nothing_can_rise_when_every_run_passes_so_it_leaves_the_combination():
    base = [run("a", passed=True, tools=("calc",) * (i % 3)) for i in range(6)]
    cand = [run("a", passed=True, tools=("search",)) for _ in range(6)]
    gating = ("pass_rate", "tool_usage", "failing_paths")
    config = CompareConfig(metrics=gating, gating=frozenset(gating), suite_share=0.0)
    result = compare_runsets(frame(base), frame(cand), config=config).scenario("a")
    paths = result.metric("failing_paths")
    assert paths.estimate == 0.0 and paths.p_value == 1.0
    assert result.gate is not None and result.gate.metrics == ("tool_usage",)


def test_without_judged_runs_on_one_side_it_is_not_tested():
    base = [run("a", passed=True) for _ in range(4)]
    cand = [run("a", passed=None) for _ in range(4)]
    config = CompareConfig(metrics=PATHS, gating=frozenset(PATHS), suite_share=0.0)
    paths = (
        compare_runsets(frame(base), frame(cand), config=config)
        .scenario("a")
        .metric("failing_paths")
    )
    assert paths.verdict is Verdict.INCONCLUSIVE and paths.p_value == 1.0
    assert any("no judged run in the candidate batch" in note for note in paths.notes)


def test_equal_failing_shares_at_a_large_n_read_unchanged():
    rows = [run("a", passed=i % 4 == 0, tools=("calc",) if i % 2 else ()) for i in range(400)]
    paths = compare_runsets(frame(rows), frame(rows)).scenario("a").metric("failing_paths")
    assert paths.verdict is Verdict.UNCHANGED


def test_it_is_in_the_default_gating_set_and_in_the_suite_tests():
    base = [run(s, passed=i % 2 == 0, tools=("calc",)) for s in "abc" for i in range(8)]
    cand = [run(s, passed=i % 2 == 0, tools=("calc",)) for s in "abc" for i in range(8)]
    comparison = compare_runsets(frame(base), frame(cand))
    assert "failing_paths" in comparison.config.gating
    assert comparison.family is not None
    assert "failing_paths" in {t.metric for t in comparison.family.suite}


def test_no_failure_at_all_is_unchanged_only_when_the_runs_are_enough_to_say_so():
    few = [run("a", passed=True) for _ in range(3)]
    many = [run("a", passed=True) for _ in range(400)]
    config = CompareConfig(metrics=PATHS, gating=frozenset(PATHS), suite_share=0.0)
    small = compare_runsets(frame(few), frame(few), config=config).scenario("a")
    large = compare_runsets(frame(many), frame(many), config=config).scenario("a")
    assert small.metric("failing_paths").verdict is Verdict.INCONCLUSIVE
    assert large.metric("failing_paths").verdict is Verdict.UNCHANGED
