"""A run whose tool use is unknown (imported without a trajectory: no tool_sequence) is missing
from every tool metric, never counted as a run that called no tool (issue 41): a rise in such
runs is no tool-mix drift, no new failing path and no change of order, and each tool metric's
n counts only the runs that record their tools."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from trajguard_testkit.rows import run_row

from trajguard.comparison import Verdict, compare_runsets
from trajguard.comparison._arms import split_runs


def _unknown(row: dict[str, Any]) -> dict[str, Any]:
    return row | {"tool_sequence": None, "tool_counts": None, "step_count": None}


def _sides() -> tuple[pd.DataFrame, pd.DataFrame]:
    # the baseline: 40 runs, each one search then an answer, 30 pass; the candidate: the same
    # behaviour in 20 runs, and 20 runs imported without a trajectory that failed
    recorded = [run_row("s", i % 4 != 0, ("search", "answer")) for i in range(40)]
    half = [run_row("s", i % 4 != 0, ("search", "answer")) for i in range(20)]
    unknown = [_unknown(run_row("s", False, ())) for _ in range(20)]
    return pd.DataFrame(recorded), pd.DataFrame(half + unknown)


def test_runs_without_tool_records_are_missing_from_the_arm() -> None:
    _, candidate = _sides()
    arm = split_runs(candidate)["s"]
    assert arm.runs == 40 and int(arm.tools_mask().sum()) == 20
    assert len(arm.known_tool_counts()) == 20
    assert all(counts == {"search": 1, "answer": 1} for counts in arm.known_tool_counts())


def test_tool_metrics_count_only_the_runs_that_record_their_tools() -> None:
    baseline, candidate = _sides()
    scenario = compare_runsets(baseline, candidate).scenario("s")
    usage = scenario.metric("tool_usage")
    assert (usage.baseline.n, usage.candidate.n) == (40, 20)
    assert usage.identical
    order = scenario.metric("tool_sequence")
    assert (order.baseline.n, order.candidate.n) == (40, 20)
    paths = scenario.metric("failing_paths")
    # the 20 unknown runs failed, but on no known path: only the 20 recorded runs are in a cell
    assert (paths.baseline.n, paths.candidate.n) == (40, 20)
    assert not {m.verdict for m in (usage, order, paths)} & {Verdict.REGRESSED, Verdict.CHANGED}
    # the pass rate still sees every judged run: the failures are not hidden
    assert scenario.metric("pass_rate").candidate.n == 40


def test_the_old_reading_would_have_invented_a_tool_mix_drift() -> None:
    # the same candidate with its unknown runs read as runs that called no tool
    baseline, candidate = _sides()
    invented = candidate.assign(
        tool_sequence=[s if s is not None else [] for s in candidate["tool_sequence"]],
        tool_counts=[c if c is not None else {} for c in candidate["tool_counts"]],
    )
    usage = compare_runsets(baseline, invented).scenario("s").metric("tool_usage")
    assert usage.candidate.n == 40 and not usage.identical
    assert np.isclose(dict(usage.candidate.detail)["search"], 0.5)
