"""A job `harbor run` wrote (Harbor 0.26.0, tests/importers/data/harbor/timeouts) with trials
that timed out after the agent wrote a graded answer (reward kept by Harbor) and trials whose
agent wrote no trajectory: Harbor's mean reward beside trajguard's pass rate, the difference
counted, and the trials without a trajectory missing from the tool metrics, not zero.

Harbor's figures are read from the job's own result.json, never typed in."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trajguard.importers import ImportOptions, headlines, read_logs
from trajguard.outcome import passed_row

JOB = Path(__file__).parent / "data" / "harbor" / "timeouts"


def _trials() -> dict[str, dict[str, Any]]:
    found = {}
    for result in sorted(JOB.glob("*__*/result.json")):
        found[result.parent.name] = json.loads(result.read_text())
    return found


def _harbor_mean() -> float:
    (stats,) = json.loads((JOB / "result.json").read_text())["stats"]["evals"].values()
    (metric,) = stats["metrics"]
    return float(metric["mean"])


def _reward(trial: dict[str, Any]) -> float:
    return float(((trial.get("verifier_result") or {}).get("rewards") or {}).get("reward", 0.0))


def test_the_job_holds_rewarded_timeouts_and_trials_without_trajectories() -> None:
    trials = _trials()
    timed_out = {n for n, t in trials.items() if (t.get("exception_info") or {}).get(
        "exception_type") == "AgentTimeoutError"}  # fmt: skip
    assert {n.split("__")[0] for n in timed_out} == {"late-capital"} and len(timed_out) == 4
    assert sum(_reward(trials[n]) >= 1 for n in timed_out) >= 1  # some carry reward 1
    silent = [n for n in trials if n.startswith("silent-capital__")]
    assert len(silent) == 4
    assert not any((JOB / n / "agent" / "trajectory.json").exists() for n in silent)


def test_harbors_mean_reward_beside_ours_with_the_timeouts_counted() -> None:
    trials = _trials()
    batch = read_logs("harbor", [JOB], ImportOptions())
    (headline,) = headlines(batch)
    rewarded_timeouts = sum(
        1 for t in trials.values()
        if (t.get("exception_info") or {}).get("exception_type") == "AgentTimeoutError"
        and _reward(t) > 0
    )  # fmt: skip
    passes = sum(1 for t in trials.values() if not t.get("exception_info") and _reward(t) >= 1)
    assert headline.value == pytest.approx(_harbor_mean())
    assert headline.value == pytest.approx(sum(map(_reward, trials.values())) / len(trials))
    assert len(trials) == 12
    assert (headline.passes, headline.judged) == (passes, 12)
    assert headline.reasons == (
        f"{rewarded_timeouts} trial(s) that timed out or crashed carry a reward: Harbor averages "
        "it, trajguard fails a crash (its status rule)",
    )
    # every reward is 0 or 1: Harbor's mean is trajguard's passes plus the rewarded timeouts
    assert (headline.passes + rewarded_timeouts) / headline.judged == pytest.approx(headline.value)
    timeouts = [r for r in batch.runs if r.status == "timeout"]
    assert len(timeouts) == 4  # failed runs in the run set whatever their reward
    assert not any(passed_row(r.status, r.crashed, r.passed) for r in timeouts)


def test_trials_without_a_trajectory_are_ok_runs_without_tool_data() -> None:
    batch = read_logs("harbor", [JOB], ImportOptions())
    silent = [r for r in batch.runs if r.scenario == "silent-capital"]
    assert len(silent) == 4
    assert all(r.trajectory is None and r.status == "ok" for r in silent)
    assert any("trajectory for 4 of 12 trials" in item for item in batch.lacks)


def test_the_report_leaves_them_out_of_the_tool_metrics(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    report = tmp_path / "r" / "report.md"
    done = cli("compare", str(JOB), str(JOB), "--report", str(report), "--no-plots", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    document = json.loads((report.parent / "comparison.json").read_text())
    metrics = {
        (s["scenario"], m["metric"]): m
        for s in document["comparison"]["scenarios"]
        for m in s["metrics"]
    }
    for name in ("tool_usage", "tool_sequence", "failing_paths"):
        assert metrics[("silent-capital", name)]["candidate"]["n"] == 0, name
        assert metrics[("late-capital", name)]["candidate"]["n"] == 4, name
    assert metrics[("silent-capital", "pass_rate")]["candidate"]["n"] == 4
    assert metrics[("late-capital", "crash_rate")]["candidate"]["mean"] == 1.0
