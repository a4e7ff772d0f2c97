"""`nightly --sequential` in-process with the looks faked (no agent runs): the headline, the
report, the JUnit file and the exit code all follow the sequential design."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.cli import main
from trajguard.comparison import Decision, LookRecord, SequentialDesign, SequentialOutcome, Stop
from trajguard.pipeline import _nightly as nightly_pipeline
from trajguard.stats import Action

SUITE = """
name: tiny
defaults: {runs: 12}
scenarios:
  - id: one
    agent: {kind: callable, function: "seq_never_run:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
"""


def _runset(path: Path, passes: int, runs: int) -> None:
    for index in range(runs):
        store.write_run(
            path,
            {
                "run_id": f"one/base/{index}",
                "batch_id": "b",
                "suite": "tiny",
                "scenario": "one",
                "variant": "base",
                "run_index": index,
                "model": "m",
                "seed": index,
                "started_at": datetime(2026, 11, 29, tzinfo=UTC),
                "duration_s": 1.0,
                "status": "ok",
                "passed": index < passes,
                "crashed": False,
                "step_count": 3,
                "tool_sequence": [],
                "tool_counts": {},
                "prompt_tokens": 100,
                "completion_tokens": 10,
                "total_tokens": 110,
                "final_output": "391",
                "trajectory": "{}",
                "config_hash": "abc",
                "git_sha": "f00",
            },
        )
    store.compact(path)
    store.write_manifest(path, {"suite": "tiny", "status": "finished", "models": ["m"]})


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "seq_never_run.py").write_text("async def agent(ctx):\n    return None\n")
    _runset(tmp_path / "baselines" / "tiny", 30, 30)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _fake(gate: Action, passes: int) -> Any:
    """The job runner with its looks faked: the candidate stopped after the first look, and
    the design's record says what its rule decided there."""

    def run_job(job: Any, **_: Any) -> None:
        assert isinstance(job.design, SequentialDesign)
        _runset(job.runset, passes, 10)
        metrics = ("pass_rate",) if gate is Action.STOP_REGRESSED else ()
        job.design.outcome = SequentialOutcome(
            max_runs=30,
            plan=(10, 20, 30),
            alpha=0.025,
            looks=(LookRecord(look=0, runs=10, decisions={"one": gate.value}),),
            stopped={"one": Stop(runs=10, decision=Decision(action=gate, metrics=metrics))},
        )

    return run_job


@pytest.mark.parametrize(
    ("gate", "passes", "code"),
    [
        # 6/10 against 30/30: fixed-sample Holm calls this regressed, the gate did not.
        (Action.STOP_NO_REGRESSION, 6, 0),
        # 10/10: nothing to see in fixed-sample terms, but the gate stopped regressed.
        (Action.STOP_REGRESSED, 10, 1),
    ],
)
def test_headline_junit_and_exit_code_follow_the_gate(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    gate: Action,
    passes: int,
    code: int,
) -> None:
    monkeypatch.setattr(nightly_pipeline, "run_job", _fake(gate, passes))
    args = ["nightly", "suite.yaml", "--sequential", "--no-plots", "--no-progress"]
    assert main([*args, "--reports", "r", "--junit", "j.xml"]) == code
    out = capsys.readouterr().out
    (day,) = (project / "r").iterdir()
    report = (day / "report.md").read_text()
    junit = ET.parse(project / "j.xml").getroot()
    if code:
        assert "verdict: regressed" in out
        assert report.splitlines()[2].startswith("**Verdict: 🔴 regressed**")
        assert "**Sequential gate: regressed.**" in report
        assert junit.get("failures") == "1"
    else:
        assert "regressed" not in out.split("→")[0]
        assert "regressed" not in report.splitlines()[2]
        assert "**Sequential gate: no regression detected.**" in report
        assert "sequential design, which decides here, did not" in report
        assert junit.get("failures") == "0"
