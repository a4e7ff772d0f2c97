"""`trajguard run` as a subprocess: resume after SIGKILL, exit 3 on an unreachable model,
bad input exits 2, and `show` / `baseline promote` on the result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from trajguard import store

TRAJGUARD = [sys.executable, "-m", "trajguard.cli"]

SLOW_AGENT = """
import asyncio
from trajguard.capture.types import LLMResponse, Usage

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    await asyncio.sleep(0.3)
    ctx.recorder.agent_step(LLMResponse(content=f"answer {ctx.seed % 7}", usage=Usage(10, 3)))
    return None
"""

SUITE = """
name: resumable
defaults:
  runs: 12
  concurrency: 2
scenarios:
  - id: first
    agent: {kind: callable, function: "slow_agent:agent"}
    input: one
    pass:
      - final_output_contains: answer
  - id: second
    agent: {kind: callable, function: "slow_agent:agent"}
    input: two
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    return tmp_path


def _run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRAJGUARD, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def _parts(runset: Path) -> list[Path]:
    return sorted((runset / "parts").glob("*.parquet")) if (runset / "parts").exists() else []


@pytest.mark.live
def test_resume_after_sigkill_keeps_every_run_exactly_once(project: Path) -> None:
    runset = project / "rs"
    process = subprocess.Popen(
        [*TRAJGUARD, "run", "suite.yaml", "--out", "rs", "--no-progress", "--seed", "7"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    while len(_parts(runset)) < 6 and time.monotonic() < deadline:
        assert process.poll() is None, "the batch ended before it could be killed"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = store.read_runs(runset)
    assert 6 <= len(before) < 24, "the kill must land mid-batch"
    assert store.read_manifest(runset)["status"] == "running"

    resumed = _run("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {len(before)} of 24 runs already on disk" in resumed.stderr
    interrupted = store.read_manifest(runset)["interrupted_runs"]
    assert 1 <= len(interrupted) <= 2, "the runs in flight at the kill are known, then redone"
    assert not set(interrupted) & set(before["run_id"])
    assert f"{len(interrupted)} interrupted mid-run, redone" in resumed.stderr
    after = store.read_runs(runset)
    assert len(after) == 24
    assert after["run_id"].is_unique
    assert sorted(after["run_id"]) == sorted(
        f"{s}/base/{i}" for s in ("first", "second") for i in range(12)
    )
    kept = after.set_index("run_id").loc[list(before["run_id"])]
    assert list(kept["started_at"]) == list(before["started_at"]), "finished runs are not redone"
    assert (after["status"] == "ok").all()
    assert store.read_manifest(runset)["status"] == "finished"
    assert not (runset / "parts").exists()


def test_unreachable_model_stops_the_batch_with_exit_3(project: Path) -> None:
    result = _run(
        "run",
        "suite.yaml",
        "--out",
        "rs",
        "--runs",
        "2",
        "--no-progress",
        "--model",
        "openai/nothing-here",
        "--api-base",
        "http://127.0.0.1:9/v1",
        cwd=project,
    )
    assert result.returncode == 3, result.stderr
    assert "openai/nothing-here" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "rs").exists(), "a failed start leaves nothing behind"
    again = _run(*result.args[len(TRAJGUARD) :], cwd=project)
    assert again.returncode == 3, "the same --out can be used again: no half-made run set"
    assert "not empty" not in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "missing.yaml"], "suite file not found"),
        (["run", "suite.yaml", "--scenario", "nope"], "no scenario 'nope'"),
        (["run", "suite.yaml", "--runs", "0"], "--runs must be at least 1"),
        (["run", "suite.yaml", "--variant", "nope"], "has no variant 'nope'"),
        (["show", "nowhere"], "not a run set"),
        (["baseline", "promote", "nowhere"], "manifest.json is missing"),
    ],
)
def test_bad_input_exits_2_without_traceback(project: Path, args: list[str], message: str) -> None:
    result = _run(*args, cwd=project)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "runs").exists(), "nothing is written for bad input"
