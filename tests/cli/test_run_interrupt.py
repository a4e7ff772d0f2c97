"""`trajguard run`: resume after SIGKILL (a subprocess: it is killed), exit 3 on an unreachable
model, bad input exits 2 (in-process), and `show` / `baseline promote` on the result."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trajguard import store

TRAJGUARD = [sys.executable, "-m", "trajguard.cli"]

GATED_AGENT = """
import asyncio, itertools, os
from trajguard.capture import LLMResponse, Usage

_calls = itertools.count(1)

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    gate = os.environ.get("TG_GATE")
    if gate and next(_calls) > 6:
        # Runs 7 and 8 (two workers) say they are in flight, then never finish: every run
        # before them has been written, and the kill lands with exactly these two cut off.
        with open(gate, "w") as fifo:
            fifo.write("in flight\\n")
        await asyncio.Event().wait()
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
    agent: {kind: callable, function: "gated_agent:agent"}
    input: one
    pass:
      - final_output_contains: answer
  - id: second
    agent: {kind: callable, function: "gated_agent:agent"}
    input: two
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "gated_agent.py").write_text(GATED_AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    return tmp_path


@pytest.mark.live
def test_resume_after_sigkill_keeps_every_run_exactly_once(project: Path, cli: Any) -> None:
    runset = project / "rs"
    gate = project / "gate"
    os.mkfifo(gate)
    reader = os.open(gate, os.O_RDONLY | os.O_NONBLOCK)  # before the writers open it
    # A writer of our own: without one, poll() reports a hang-up whenever no agent holds the
    # FIFO open, and the read finds nothing.
    keep_open = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
    process = subprocess.Popen(
        [*TRAJGUARD, "run", "suite.yaml", "--out", "rs", "--no-progress", "--seed", "7"],
        cwd=project,
        env={**os.environ, "TG_GATE": str(gate)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    servers: list[int] = []
    try:
        poller = select.poll()
        poller.register(reader, select.POLLIN)
        received = b""
        while received.count(b"\n") < 2:
            assert poller.poll(180_000), "two runs in flight within 3 minutes"
            received += os.read(reader, 1024)
            assert process.poll() is None, "the batch ended before it could be killed"
        servers = _embedded_servers(process.pid)
    finally:  # killed whatever happened: a failed wait must not leave the batch running
        os.close(keep_open)
        os.close(reader)
        process.kill()  # SIGKILL: no atexit, no finally in the batch
        process.wait()
    assert len(servers) == 2, "one embedded model server per run at once"
    gone = [_wait_gone(pid, timeout_s=10) for pid in servers]
    assert all(gone), "the batch's servers end within 10 s of its kill -9"
    before = store.read_runs(runset)
    assert len(before) == 6, "the kill lands after the sixth run, with two in flight"
    assert store.read_manifest(runset)["status"] == "running"

    resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {len(before)} of 24 runs already on disk" in resumed.stderr
    interrupted = store.read_manifest(runset)["interrupted_runs"]
    assert len(interrupted) == 2, "the runs in flight at the kill are known, then redone"
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


def _embedded_servers(parent: int) -> list[int]:
    """The embedded model servers ``parent`` started: its children running trajguard.local_model."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == parent and b"trajguard.local_model" in command:
            found.append(int(stat.parent.name))
    return found


def _wait_gone(pid: int, timeout_s: float) -> bool:
    """Whether ``pid`` ends within ``timeout_s``: a pidfd becomes readable when it does."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(timeout_s * 1000))
    finally:
        os.close(pidfd)


UNREACHABLE = (
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
)


def test_a_missing_api_key_stops_the_batch_with_exit_2_at_once(
    project: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli(*UNREACHABLE, cwd=project)
    assert result.returncode == 2, result.stderr
    assert "no API key is set for the provider" in result.stderr
    assert "unreachable" not in result.stderr
    assert not (project / "rs").exists()


def test_unreachable_model_stops_the_batch_with_exit_3(
    project: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-a-closed-port")
    args = UNREACHABLE
    result = cli(*args, cwd=project)
    assert result.returncode == 3, result.stderr
    assert "openai/nothing-here" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "rs").exists(), "a failed start leaves nothing behind"
    again = cli(*args, cwd=project)
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
def test_bad_input_exits_2_without_traceback(
    project: Path, args: list[str], message: str, cli: Any
) -> None:
    result = cli(*args, cwd=project)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "runs").exists(), "nothing is written for bad input"
