"""`nightly --resume` and `ab --resume` finish an interrupted batch, compare, report beside it
and (nightly) append to the store, in one command; Ctrl-C's hint names that command."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trajguard import store

TRAJGUARD = [sys.executable, "-m", "trajguard.cli"]

# A command agent that brings its own model: with TG_GATE set it says it is in flight on that
# FIFO, then waits to be stopped; else it writes a one-step trajectory.
AGENT = """
import json, os, signal, sys
gate = os.environ.get("TG_GATE")
if gate:
    with open(gate, "w") as fifo:
        fifo.write("in flight\\n")
    signal.pause()
steps = [{"step_id": 1, "source": "user", "message": "hi"},
         {"step_id": 2, "source": "agent", "message": "answer"}]
json.dump({"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"},
           "steps": steps}, open(sys.argv[1], "w"))
"""


def _suite() -> str:
    argv = json.dumps([sys.executable, "agent.py", "{output}"])
    agent = f"{{kind: command, argv: {argv}, uses_model: false}}"
    return (
        "name: night\ndefaults: {runs: 4, concurrency: 1}\n"
        "variants: {terse: {params: {style: terse}}}\nscenarios:\n"
        f"  - id: s\n    input: hi\n    agent: {agent}\n"
        "    pass:\n      - final_output_contains: answer\n"
    )


@pytest.fixture
def project(tmp_path: Path, cli: Any) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(_suite())
    made = cli("run", "suite.yaml", "--out", "first", "--no-progress", "--seed", "1", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    promoted = cli("baseline", "promote", "first", cwd=tmp_path)
    assert promoted.returncode == 0, promoted.stderr
    return tmp_path


def _cut(runset: Path, keep: int) -> None:
    """As if the batch were killed after ``keep`` runs."""
    store.write_runs_table(runset / "runs.parquet", store.read_table(runset).slice(0, keep))
    manifest = store.read_manifest(runset)
    store.write_manifest(runset, {**manifest, "status": "running", "finished_at": None})


def test_nightly_resume_finishes_compares_reports_and_appends(project: Path, cli: Any) -> None:
    night = project / "reports" / "2026-01-02"
    made = cli("run", "suite.yaml", "--out", str(night / "runs"), "--no-progress", cwd=project)
    assert made.returncode == 0, made.stderr
    _cut(night / "runs", keep=1)
    resumed = cli(
        "nightly", "suite.yaml", "--resume", str(night / "runs"), "--store", "nights",
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: 1 of 4 runs already on disk" in resumed.stderr
    assert len(store.read_runs(night / "runs")) == 4, "the batch is finished"
    assert store.read_manifest(night / "runs")["status"] == "finished"
    assert (night / "report.md").is_file(), "the report is written beside the run set"
    assert (night / "comparison.json").is_file()
    assert list((project / "nights").rglob("*.parquet")), "the night is in the store"
    assert not [p for p in (project / "reports").iterdir() if p != night], "no second night"


def test_ab_resume_finishes_and_compares(project: Path, cli: Any) -> None:
    folder = project / "reports" / "2026-01-02-ab-base-terse"
    runs = folder / "runs"
    made = cli(
        "run", "suite.yaml", "--out", str(runs), "--variant", "base", "--variant", "terse",
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    _cut(runs, keep=3)
    resumed = cli(
        "ab", "suite.yaml", "--variant", "base", "--variant", "terse", "--resume", str(runs),
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert len(store.read_runs(runs)) == 8
    assert (folder / "ab.md").is_file()


def test_resume_of_a_folder_without_a_batch_is_refused(project: Path, cli: Any) -> None:
    result = cli("nightly", "suite.yaml", "--resume", "nowhere", "--no-progress", cwd=project)
    assert result.returncode == 2
    assert "no interrupted batch to resume here" in result.stderr


def _interrupt(project: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` until its first run is in flight, then press Ctrl-C (SIGINT)."""
    gate = project / "gate"
    os.mkfifo(gate)
    reader = os.open(gate, os.O_RDONLY | os.O_NONBLOCK)
    keep_open = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
    process = subprocess.Popen(
        [*TRAJGUARD, *command, "--no-progress"],
        cwd=project,
        env={**os.environ, "TG_GATE": str(gate)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        poller = select.poll()
        poller.register(reader, select.POLLIN)
        assert poller.poll(120_000), "a run in flight within 2 minutes"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        os.close(keep_open)
        os.close(reader)
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(command, process.returncode, out, err)


@pytest.mark.parametrize(
    ("command", "hint"),
    [
        (["nightly", "suite.yaml"], "trajguard nightly {suite} --resume reports/"),
        (
            ["ab", "suite.yaml", "--variant", "base", "--variant", "terse"],
            "trajguard ab {suite} --variant base --variant terse --resume reports/",
        ),
        (["run", "suite.yaml", "--out", "rs"], "trajguard run {suite} --resume rs"),
    ],
)
def test_ctrl_c_names_the_command_that_finishes_it(
    project: Path, command: list[str], hint: str
) -> None:
    stopped = _interrupt(project, command)
    assert stopped.returncode == 130, stopped.stderr
    said = f"resume with: {hint.format(suite=project / 'suite.yaml')}"
    assert said in stopped.stderr, stopped.stderr


def test_the_hinted_command_finishes_an_interrupted_night(project: Path, cli: Any) -> None:
    stopped = _interrupt(project, ["nightly", "suite.yaml"])
    assert stopped.returncode == 130, stopped.stderr
    hinted = stopped.stderr.split("resume with: ", 1)[1].split(" (with ", 1)[0].split()
    assert hinted[:2] == ["trajguard", "nightly"]
    runset = Path(hinted[hinted.index("--resume") + 1])
    assert store.read_manifest(project / runset)["status"] == "running"
    finished = cli(*hinted[1:], "--no-progress", cwd=project)
    assert finished.returncode == 0, finished.stderr
    assert len(store.read_runs(project / runset)) == 4
    assert (project / runset.parent / "report.md").is_file()
