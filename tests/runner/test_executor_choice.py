"""Choosing the executor, and Ray staying optional: the local executor is the default and never
imports Ray; ``--executor ray`` without Ray installed, or with a cluster that cannot be
reached, exits 3 having written nothing; Ray options are checked as a suite's are; jobs and
rows cross to the workers as JSON. (The Ray executor on a cluster: ``test_ray_executor.py``.)"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.errors import UsageError
from trajguard.runner import BatchOptions, ExecutorChoice, plan_batch, run_batch, run_faults
from trajguard.runner._executors._jobs import decode_job, decode_row, encode_job, encode_row
from trajguard.suite import load_suite

REPO = Path(__file__).resolve().parents[2]

AGENT = r"""
import json, os, sys
steps = [{"step_id": 1, "source": "user", "message": os.environ["TRAJGUARD_INPUT"]},
         {"step_id": 2, "source": "agent", "message": "done " + os.environ["TRAJGUARD_SEED"]}]
trajectory = {"schema_version": "ATIF-v1.6", "session_id": "s", "steps": steps,
              "agent": {"name": "a", "version": "1"}}
open(sys.argv[1], "w").write(json.dumps(trajectory))
"""

SUITE = """
name: choice
defaults:
  runs: 2
{executor}
scenarios:
  - id: only
    agent: {{kind: command, argv: [{python}, agent.py, "{{output}}"], uses_model: false}}
    input: hi
"""


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE.format(executor="", python=sys.executable))
    return tmp_path


def _in_a_fresh_process(project: Path, code: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def test_the_default_path_never_imports_ray(project: Path) -> None:
    """Ray is installed here (the tests use it), and still a batch on the local executor, the
    package and the command line import none of it."""
    answer = _in_a_fresh_process(
        project,
        "import json, sys\n"
        "import trajguard, trajguard.runner, trajguard.pipeline\n"
        "from trajguard.cli import main\n"
        "run = ['run', 'suite.yaml', '--no-progress']\n"
        "codes = [main([*run, '--out', 'rs']),\n"
        "         main([*run, '--executor', 'local', '--out', 'rs2']),\n"
        "         main([*run, '--executor', 'ray', '--dry-run'])]\n"
        "print(json.dumps({'codes': codes,\n"
        "                  'ray': sorted(m for m in sys.modules if m.split('.')[0] == 'ray')}))\n",
    )
    assert answer == {"codes": [0, 0, 0], "ray": []}
    assert len(store.read_runs(project / "rs")) == len(store.read_runs(project / "rs2")) == 2


def test_without_ray_the_ray_executor_exits_3_and_the_local_one_runs(project: Path) -> None:
    answer = _in_a_fresh_process(
        project,
        "import contextlib, io, json, sys\n"
        "sys.modules['ray'] = None  # as if Ray were not installed\n"
        "from trajguard.cli import main\n"
        "err = io.StringIO()\n"
        "with contextlib.redirect_stderr(err):\n"
        "    ray = main(['run', 'suite.yaml', '--executor', 'ray', '--out', 'rs'])\n"
        "local = main(['run', 'suite.yaml', '--out', 'local', '--no-progress'])\n"
        "print(json.dumps({'ray': ray, 'local': local, 'stderr': err.getvalue()}))\n",
    )
    assert answer["ray"] == 3 and answer["local"] == 0
    assert "--executor ray needs Ray" in answer["stderr"]
    assert "pip install 'trajguard[ray]'" in answer["stderr"]
    assert "Traceback" not in answer["stderr"]
    assert not (project / "rs").exists(), "nothing written"


def test_a_cluster_that_cannot_be_reached_exits_3_before_anything_is_written(
    project: Path, cli: Any
) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    result = cli(
        "run", "suite.yaml", "--executor", "ray", "--ray-address", address, "--out", "rs",
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert f"cannot reach the Ray cluster at {address}" in result.stderr
    assert "hint: start a cluster (`ray start --head`) or pass --ray-address" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "rs").exists()


def test_the_suites_executor_is_the_default_and_the_command_line_overrides_it(
    project: Path, cli: Any
) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    executor = f"  executor: {{kind: ray, address: '{address}', resources: {{endpoint: 1}}}}"
    (project / "suite.yaml").write_text(SUITE.format(executor=executor, python=sys.executable))

    planned = cli("run", "suite.yaml", "--dry-run", cwd=project)
    assert planned.returncode == 0, planned.stderr
    assert f"executor: ray at {address}; each run holds 1 CPU, 1 endpoint" in planned.stdout
    assert "as many at a time as the cluster holds" in planned.stdout
    on_ray = cli("run", "suite.yaml", "--out", "rs", "--no-progress", cwd=project)
    assert on_ray.returncode == 3 and address in on_ray.stderr, "it tried the suite's cluster"
    local = cli("run", "suite.yaml", "--executor", "local", "--out", "rs", cwd=project)
    assert local.returncode == 0, local.stderr
    assert [e["kind"] for e in store.read_manifest(project / "rs")["executors"]] == ["local"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ray-cpus", "2"], "--ray-cpus: Ray executor options, and this batch runs on the local"),
        (["--executor", "ray", "--ray-cpus", "0"], "--ray-cpus: Input should be greater than 0"),
        (["--executor", "ray", "--ray-resource", "CPU=1"], "declare CPUs with num_cpus"),
        (["--executor", "ray", "--ray-resource", "gpu"], "expected NAME=AMOUNT"),
        (["--executor", "ray", "--ray-max-retries", "-1"], "--ray-max-retries: Input should be"),
    ],
)
def test_ray_options_are_checked_before_anything_runs(
    project: Path, cli: Any, args: list[str], message: str
) -> None:
    result = cli("run", "suite.yaml", "--out", "rs", *args, cwd=project)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (project / "rs").exists()


@pytest.mark.parametrize(
    ("executor", "message"),
    [
        ("  executor: {kind: ray, resources: {CPU: 2}}", "declare CPUs with num_cpus"),
        ("  executor: {kind: ray, num_cpus: -1}", "num_cpus"),
        ("  executor: cluster", "executor"),
    ],
)
def test_a_suites_executor_is_checked_when_the_suite_loads(
    project: Path, cli: Any, executor: str, message: str
) -> None:
    (project / "suite.yaml").write_text(SUITE.format(executor=executor, python=sys.executable))
    result = cli("validate", "suite.yaml", cwd=project)
    assert result.returncode == 2
    assert "suite.yaml:5" in result.stderr and message in result.stderr


def test_a_model_built_in_this_process_cannot_travel_to_ray(project: Path) -> None:
    suite = load_suite(project / "suite.yaml")
    options = BatchOptions(executor=ExecutorChoice(kind="ray"))
    with pytest.raises(UsageError, match="works with the local executor only"):
        asyncio.run(run_batch(suite, project / "rs", options, make_model=lambda arm: None))  # type: ignore[arg-type,return-value]
    assert not (project / "rs").exists()


def test_jobs_and_rows_cross_to_the_workers_as_json_unchanged() -> None:
    suite = load_suite(REPO / "suites" / "demo.yaml")
    batch = {"batch_id": "b1", "suite": "demo", "git_sha": None, "trajguard_version": "x"}
    batch["batch_seed"] = 7
    options = BatchOptions(runs=1, variants=("base", "flaky_tools"))
    for spec, arm in plan_batch(suite, options, batch_seed=7):
        job = encode_job(spec, arm, {**batch, "manifest_only": 1})
        json.loads(job)  # plain JSON: no object of trajguard's is pickled
        assert decode_job(job) == (spec, arm, batch)
        assert decode_job(job)[1].config_hash() == spec.config_hash
        # a worker derives the same fault plan as this process would
        _, remote_arm, remote_batch = decode_job(job)
        here = run_faults(arm, batch_seed=7, run_index=spec.run_index)
        there = run_faults(
            remote_arm, batch_seed=remote_batch["batch_seed"], run_index=spec.run_index
        )
        assert (here and here.plan) == (there and there.plan)
        assert (here is None) == (arm.variant == "base")
    row = {"run_id": "a/base/0", "started_at": datetime(2026, 12, 1, 12, 0, 1, 5, tzinfo=UTC),
           "tool_counts": {"calculator": 2}, "passed": None, "cost_usd": 0.25}  # fmt: skip
    assert decode_row(encode_row(row)) == row
