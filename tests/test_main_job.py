"""The main job from ``import trajguard`` with flat keyword arguments (src/trajguard/_main_job.py):
the arguments reach the option objects the command line builds, the result is the typed outcome,
bad settings are refused before anything runs, and ``import trajguard`` stays cheap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import trajguard
from trajguard.comparison import CompareConfig
from trajguard.pipeline import ABOutcome, CompareOutcome, promote
from trajguard.runner import BatchResult
from trajguard.store import read_runs

AGENT = """
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    answer = "no idea" if ctx.params.get("careless") else "391"
    ctx.recorder.agent_step(LLMResponse(content=answer))
    return answer
"""

SUITE = """
name: front
defaults: {runs: 3, concurrency: 2}
variants:
  careless: {params: {careless: true}}
scenarios:
  - id: one
    agent: {kind: callable, function: "front_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
  - id: two
    agent: {kind: callable, function: "front_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "front_agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as the command line imports from its cwd
    return tmp_path


def test_run_compare_nightly_and_ab_from_the_front(project: Path) -> None:
    first = trajguard.run("suite.yaml", out="runs/first", runs=4, seed=1)
    assert isinstance(first, BatchResult) and first.passed == 8
    only = trajguard.run("suite.yaml", out="runs/only", scenarios=["two"], seed=2)
    assert read_runs(only.runset).groupby("scenario").size().to_dict() == {"two": 3}

    compared = trajguard.compare("runs/first", "runs/first", plots=False, html=False)
    assert isinstance(compared, CompareOutcome) and compared.exit_code == 0
    assert compared.report.is_file() and not (compared.report.parent / "report.html").exists()

    promote(project / "runs" / "first", baselines=project / "baselines")
    night = trajguard.nightly("suite.yaml", runs=2, plots=False, gate=["pass_rate"])
    assert isinstance(night, CompareOutcome) and not night.regressed
    assert night.comparison.config.gating == frozenset({"pass_rate"})
    assert night.runset is not None and len(read_runs(night.runset)) == 4

    answer = trajguard.ab("suite.yaml", "base", "careless", plots=False, html=False)
    assert isinstance(answer, ABOutcome)
    assert answer.result.answer.value == "hurt"  # the careless variant never passes


def test_bad_settings_are_refused_before_anything_runs(project: Path) -> None:
    with pytest.raises(trajguard.TrajguardError, match="alpha must be in"):
        trajguard.nightly("suite.yaml", alpha=2.0)
    with pytest.raises(trajguard.TrajguardError, match="--runs must be at least 1"):
        trajguard.run("suite.yaml", runs=0)
    with pytest.raises(trajguard.TrajguardError, match="unknown metric"):
        trajguard.compare("a", "b", gate=["speed"])
    assert not (project / "runs").exists() and not (project / "reports").exists()


def test_the_flat_settings_are_the_comparison_settings_the_command_builds() -> None:
    from trajguard._main_job import _config

    assert _config(alpha=0.01, tolerances={"pass_rate": 0.2}, gate=None) == CompareConfig(
        alpha=0.01, tolerances={"pass_rate": 0.2}
    )


def test_import_trajguard_stays_cheap_and_the_subpackages_keep_their_names() -> None:
    code = (
        "import sys, trajguard\n"
        "assert callable(trajguard.nightly) and callable(trajguard.ab)\n"
        "assert callable(trajguard.compare) and callable(trajguard.run)\n"
        "heavy = ('trajguard.pipeline', 'pandas', 'litellm')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "import trajguard.comparison as c, trajguard.runner as r\n"
        "print(c.__name__, r.__name__)\n"
        "import trajguard.pipeline\n"
        "assert trajguard.compare.__module__ == trajguard.run.__module__ == 'trajguard._main_job'\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["[]", "trajguard.comparison trajguard.runner"]
