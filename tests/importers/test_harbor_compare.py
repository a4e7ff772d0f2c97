"""`trajguard compare` of two Harbor jobs (two system prompts of one agent, 2 tasks x 10
attempts each): the report's per-scenario pass rates are Harbor's own, as its job result.json
counts them (reward_stats: each reward value → the trials that got it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "harbor"
TERSE, RIDDLE = DATA / "terse", DATA / "riddle"


def harbor_pass_rates(job: Path) -> dict[str, float]:
    """Per task: trials Harbor counted with reward 1 over the trials it counted, read from the
    job's result.json (Harbor names each trial ``<task>__<id>``)."""
    stats = json.loads((job / "result.json").read_text())["stats"]["evals"]
    [evals] = stats.values()
    counted: dict[str, list[float]] = {}
    for value, trials in evals["reward_stats"]["reward"].items():
        for trial in trials:
            counted.setdefault(trial.rsplit("__", 1)[0], []).append(float(value))
    return {task: sum(v >= 1.0 for v in values) / len(values) for task, values in counted.items()}


def report_pass_rates(report: Path) -> dict[str, tuple[float | None, float | None]]:
    document = json.loads((report.parent / "comparison.json").read_text())
    rates = {}
    for scenario in document["comparison"]["scenarios"]:
        [metric] = [m for m in scenario["metrics"] if m["metric"] == "pass_rate"]
        rates[scenario["scenario"]] = (metric["baseline"]["mean"], metric["candidate"]["mean"])
    return rates


def check(report: Path) -> None:
    baseline, candidate = harbor_pass_rates(TERSE), harbor_pass_rates(RIDDLE)
    rates = report_pass_rates(report)
    assert rates.keys() == baseline.keys() == candidate.keys() == {"capital", "colour"}
    for task, (base, cand) in rates.items():
        assert base == pytest.approx(baseline[task]) and cand == pytest.approx(candidate[task])
    assert len(set(baseline.values()) | set(candidate.values())) > 1  # the figures differ


def test_compare_of_two_job_directories_reports_harbors_pass_rates(
    cli: Any, tmp_path: Path
) -> None:
    report = tmp_path / "report" / "report.md"
    done = cli("compare", str(TERSE), str(RIDDLE), "--report", str(report), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    check(report)
    assert "harbor" in report.read_text()


def test_compare_of_imported_run_sets_reports_the_same(cli: Any, tmp_path: Path) -> None:
    for name, job in (("a", TERSE), ("b", RIDDLE)):
        done = cli("import", "harbor", str(job), "--out", str(tmp_path / name), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    report = tmp_path / "report" / "report.md"
    done = cli("compare", "a", "b", "--report", str(report), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    check(report)
