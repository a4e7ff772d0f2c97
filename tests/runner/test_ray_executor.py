"""The Ray executor on a real multi-node Ray cluster (``ray start`` head and worker nodes on this
machine): command and callable agents travel to the workers and give the rows a local batch
gives; a worker that dies is a ``RunLost`` harness error that ``--resume`` redoes, or a run Ray
retries, once; a node killed mid-batch loses nothing; a cluster that can no longer run
anything stops the batch resumably. The agents here bring no model (``uses_model: false``), so
no model server runs; the embedded model on Ray is in ``test_ray_live.py``."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trajguard import store

pytestmark = pytest.mark.ray

# `python -m trajguard.cli` as a user's terminal starts it: Ctrl-C raises KeyboardInterrupt even
# when this session was started in the background with SIGINT ignored (children inherit that).
TRAJGUARD_INTERRUPTIBLE = [
    sys.executable,
    "-c",
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('trajguard.cli', run_name='__main__', alter_sys=True)",
]

# A command agent: a deterministic trajectory from its input and seed. It notes which node ran
# it (the raylet's pid, in every Ray worker's environment) in $EVENTS/<seed>, and acts on
# $KILL_WORKER_ONCE (kill the Ray worker running it, the first time only) and on $EVENTS_FIFO /
# $RELEASE (say it started, then wait until the test releases it).
AGENT = r"""
import json, os, signal, sys
from pathlib import Path

seed = os.environ["TRAJGUARD_SEED"]
raylet = os.environ.get("RAY_RAYLET_PID", "local")
if "EVENTS" in os.environ:
    Path(os.environ["EVENTS"], seed).write_text(raylet)
once = os.environ.get("KILL_WORKER_ONCE")
if once and os.environ["TRAJGUARD_INPUT"] == "doomed" and not Path(once).exists():
    Path(once).write_text(raylet)
    os.kill(os.getppid(), signal.SIGKILL)  # the worker process that started this command
    sys.exit(1)
if "EVENTS_FIFO" in os.environ:
    fd = os.open(os.environ["EVENTS_FIFO"], os.O_WRONLY)
    os.write(fd, f"{raylet} {seed} {os.getppid()}\n".encode())
    os.close(fd)
    try:
        with open(os.environ["RELEASE"]) as gate:
            gate.read()
    except FileNotFoundError:
        pass  # released already
answer = f"{os.environ['TRAJGUARD_INPUT']} {int(seed) % 97}"
trajectory = {
    "schema_version": "ATIF-v1.6",
    "session_id": "s-" + seed,
    "agent": {"name": "command-agent", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "user", "message": os.environ["TRAJGUARD_INPUT"]},
        {"step_id": 2, "source": "agent", "message": answer},
    ],
}
Path(sys.argv[1]).write_text(json.dumps(trajectory))
"""

SUITE = """
name: travel
defaults:
  runs: {runs}
  timeout_s: 120
  executor: {{kind: ray, address: "{address}"}}
scenarios:
  - id: first
    agent:
      kind: command
      argv: [{python}, agent.py, "{{output}}"]
      uses_model: false
      env: {env}
    input: {first}
    pass:
      - final_output_contains: "1"
  - id: second
    agent:
      kind: command
      argv: [{python}, agent.py, "{{output}}"]
      uses_model: false
      env: {env}
    input: two
"""

COMPARED = ["run_id", "seed", "config_hash", "status", "passed", "crashed", "content_hash",
            "final_output", "step_count"]  # fmt: skip


def _project(path: Path, address: str, *, runs: int = 6, first: str = "one", **env: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "agent.py").write_text(AGENT)
    (path / "suite.yaml").write_text(
        SUITE.format(
            runs=runs, address=address, python=sys.executable, first=first, env=dict(env) or "{}"
        )
    )
    return path


def _rows(runset: Path) -> pd.DataFrame:
    return store.read_runs(runset).set_index("run_id", drop=False).sort_index()


def test_command_agents_on_ray_give_the_rows_of_a_local_batch(
    tmp_path: Path, ray_cluster: Any, cli: Any
) -> None:
    events = tmp_path / "events"
    events.mkdir()
    project = _project(tmp_path / "p", ray_cluster.address, EVENTS=str(events))

    on_ray = cli("run", "suite.yaml", "--out", "ray", "--seed", "11", "--no-progress", cwd=project)
    assert on_ray.returncode == 0, on_ray.stderr
    ran_on = {path.read_text() for path in events.iterdir()}
    for path in events.iterdir():
        path.unlink()
    local = cli(
        "run", "suite.yaml", "--executor", "local", "--out", "local", "--seed", "11",
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert local.returncode == 0, local.stderr

    ray_rows, local_rows = _rows(project / "ray"), _rows(project / "local")
    assert len(ray_rows) == 12 and ray_rows["run_id"].is_unique
    pd.testing.assert_frame_equal(ray_rows[COMPARED], local_rows[COMPARED])
    assert (ray_rows["status"] == "ok").all()
    workers = {str(node.raylet_pid()) for node in ray_cluster.workers}
    assert ran_on <= workers and len(ran_on) == 2, "both worker nodes ran runs"
    assert {path.read_text() for path in events.iterdir()} == {"local"}

    manifest = store.read_manifest(project / "ray")
    (executor,) = manifest["executors"]
    assert executor["kind"] == "ray" and executor["resumed"] is False
    assert executor["settings"]["address"] == ray_cluster.address
    cluster = executor["cluster"]
    assert cluster["address"] == ray_cluster.address
    able = sorted(node["address"] for node in cluster["nodes"] if node["runs_here"])
    assert able == sorted(node.ip for node in ray_cluster.workers)
    assert store.read_manifest(project / "local")["executors"][0]["kind"] == "local"
    # the progress bar's lines and the summary read the same on both executors
    assert on_ray.stdout.split(" runs in ")[0] == local.stdout.split(" runs in ")[0] == "12"


def test_a_worker_that_dies_is_a_lost_run_that_resume_redoes(
    tmp_path: Path, ray_cluster: Any, cli: Any
) -> None:
    marker = tmp_path / "killed-once"
    project = _project(
        tmp_path / "p", ray_cluster.address, runs=3, first="doomed", KILL_WORKER_ONCE=str(marker)
    )
    first = cli(
        "run", "suite.yaml", "--out", "rs", "--ray-max-retries", "0", "--no-progress",
        cwd=project,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert marker.exists(), "a doomed run killed its worker"
    rows = _rows(project / "rs")
    lost = rows[rows["error_type"] == "RunLost"]
    assert len(rows) == 6 and len(lost) == 1, rows[["status", "error_message"]]
    assert set(lost["status"]) == {"harness_error"} and lost["passed"].isna().all()
    assert lost["run_id"].str.startswith("first/").all()
    for message in lost["error_message"]:
        assert message.startswith("the Ray worker running this run died (")
    assert "1 harness_error" in first.stdout
    kept = rows.loc[rows["status"] == "ok", "started_at"]

    resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    after = _rows(project / "rs")
    assert len(after) == 6 and after["run_id"].is_unique
    assert (after["status"] == "ok").all()
    assert list(after.loc[kept.index, "started_at"]) == list(kept), "finished runs kept"
    executors = store.read_manifest(project / "rs")["executors"]
    assert [e["resumed"] for e in executors] == [False, True]
    assert executors[1]["settings"]["max_retries"] == 0, "resumed with the options it started"


def test_a_run_ray_retries_after_its_worker_died_is_one_row(
    tmp_path: Path, ray_cluster: Any, cli: Any
) -> None:
    marker = tmp_path / "killed-once"
    project = _project(
        tmp_path / "p", ray_cluster.address, runs=2, first="doomed", KILL_WORKER_ONCE=str(marker)
    )
    result = cli(
        "run", "suite.yaml", "--out", "rs", "--ray-max-retries", "2", "--no-progress",
        cwd=project,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert marker.exists(), "the first attempt killed its worker"
    rows = _rows(project / "rs")
    assert len(rows) == 4 and rows["run_id"].is_unique
    assert (rows["status"] == "ok").all(), rows[["status", "error_message"]]
    assert len(list((project / "rs").glob("**/*.parquet"))) == 1, "parts compacted, no extras"


class GatedBatch:
    """A batch in a subprocess whose runs say when they start (the raylet of their node) and
    then wait at a gate the test opens; the test holds both ends of the events pipe, so runs
    never block on it and the test never spins on it."""

    def __init__(self, tmp_path: Path, address: str, args: list[str], runs: int = 4) -> None:
        events, self.release = tmp_path / "events.fifo", tmp_path / "release.fifo"
        os.mkfifo(events)
        os.mkfifo(self.release)
        self.project = _project(
            tmp_path / "p", address, runs=runs, EVENTS_FIFO=str(events), RELEASE=str(self.release)
        )
        self._reader = os.open(events, os.O_RDONLY | os.O_NONBLOCK)
        self._writer = os.open(events, os.O_WRONLY)
        self.process = subprocess.Popen(
            [*TRAJGUARD_INTERRUPTIBLE, "run", "suite.yaml", "--out", "rs", "--seed", "5",
             "--no-progress", *args],
            cwd=self.project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self.started: list[list[str]] = []  # [raylet pid, seed, worker pid] per run start

    def wait_for_a_run_on(self, node: Any) -> int:
        """Wait until a run waits at the gate on ``node``; the pid of its Ray worker."""
        raylet = str(node.raylet_pid())
        poller = select.poll()
        poller.register(self._reader, select.POLLIN)
        pending = ""
        while True:
            for pid, _, worker in self.started:
                if pid == raylet:
                    return int(worker)
            assert poller.poll(300_000), f"a run on node {node.ip} within 5 minutes"
            pending += os.read(self._reader, 4096).decode()
            *lines, pending = pending.split("\n")
            self.started += [line.split() for line in lines]
            assert self.process.poll() is None, self.process.communicate()[1]

    def open_gate(self) -> None:
        try:
            gate: int | None = os.open(self.release, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no run waits at the gate
            gate = None
        os.unlink(self.release)  # runs starting from now on pass
        if gate is not None:
            os.close(gate)  # the waiting runs read the end of the file and go on

    def finish(self) -> tuple[int, str]:
        _, stderr = self.process.communicate(timeout=900)
        return self.process.returncode, stderr

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self._writer)
        os.close(self._reader)


def _kill(node: Any, worker: int) -> None:
    """SIGKILL the node's raylet, and return once the node is gone: its ``ray start --block``
    stops the node's own processes and exits, and the Ray worker running a run there exits
    when it finds its raylet dead (until then it could still finish the run and send its
    row: the run would not be lost)."""
    worker_exit = os.pidfd_open(worker)
    os.kill(node.raylet_pid(), signal.SIGKILL)
    node.process.wait(120)
    poller = select.poll()
    poller.register(worker_exit, select.POLLIN)
    assert poller.poll(120_000), "the Ray worker of the killed node exits"
    os.close(worker_exit)


@pytest.mark.parametrize("retries", [0, 3])
def test_a_node_killed_mid_batch_loses_no_run_and_duplicates_none(
    tmp_path: Path, ray_cluster: Any, spare_nodes: list[Any], cli: Any, retries: int
) -> None:
    doomed = ray_cluster.add_node()
    spare_nodes.append(doomed)
    batch = GatedBatch(tmp_path, ray_cluster.address, ["--ray-max-retries", str(retries)])
    try:
        _kill(doomed, batch.wait_for_a_run_on(doomed))
        batch.open_gate()
        code, stderr = batch.finish()
        assert code == 0, stderr
        rows = _rows(batch.project / "rs")
        assert len(rows) == 8 and rows["run_id"].is_unique
        lost = rows[rows["error_type"] == "RunLost"]
        if retries:  # Ray reran the run on another node: the same run, one row
            assert lost.empty and (rows["status"] == "ok").all(), rows["error_message"]
            return
        seen = rows[["status", "error_type", "error_message", "duration_s"]]
        assert len(lost) == 1, f"the one run in flight on the killed node is lost:\n{seen}"
        assert (rows.drop(index=lost.index)["status"] == "ok").all()
        resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=batch.project)
        assert resumed.returncode == 0, resumed.stderr
        after = _rows(batch.project / "rs")
        assert len(after) == 8 and after["run_id"].is_unique
        assert (after["status"] == "ok").all()
        assert sorted(after["seed"]) == sorted(rows["seed"]), "the redone run has its seed"
    finally:
        batch.close()


def test_a_cluster_that_can_no_longer_run_stops_the_batch_resumably(
    tmp_path: Path, ray_cluster: Any, spare_nodes: list[Any], cli: Any
) -> None:
    doomed = ray_cluster.add_node(resources={"doomed_slot": 1})
    spare_nodes.append(doomed)
    args = ["--ray-resource", "doomed_slot=1", "--ray-max-retries", "0"]
    batch = GatedBatch(tmp_path, ray_cluster.address, args, runs=2)
    try:
        _kill(doomed, batch.wait_for_a_run_on(doomed))
        batch.open_gate()
        code, stderr = batch.finish()
        assert code == 3, stderr
        assert "no node of the Ray cluster can hold a run any more" in stderr
        assert "--resume" in stderr and "Traceback" not in stderr
        runset = batch.project / "rs"
        assert store.read_manifest(runset)["status"] == "running"
        before = _rows(runset)
        assert len(before) < 4

        replacement = ray_cluster.add_node(resources={"doomed_slot": 1})
        spare_nodes.append(replacement)
        resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=batch.project)
        assert resumed.returncode == 0, resumed.stderr
        after = _rows(runset)
        assert len(after) == 4 and after["run_id"].is_unique
        assert (after["status"] == "ok").all()
        assert store.read_manifest(runset)["status"] == "finished"
    finally:
        batch.close()


DRIVER = b"trajguard.runner._executors._ray_driver"


def _is_driver(pid: int) -> bool:
    try:
        return DRIVER in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # no such process (any more)
        return False


def _ray_drivers(batch: subprocess.Popen[str]) -> list[int]:
    """The Ray driver processes this batch started (its children: other sessions on this
    machine may run batches of their own)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):  # the process ended while being looked at
            continue
        if parent == batch.pid and _is_driver(int(stat.parent.name)):
            found.append(int(stat.parent.name))
    return found


def test_ctrl_c_stops_the_ray_driver_and_the_batch_resumes(
    tmp_path: Path, ray_cluster: Any, cli: Any
) -> None:
    batch = GatedBatch(tmp_path, ray_cluster.address, [], runs=2)
    try:
        batch.wait_for_a_run_on(ray_cluster.workers[0])
        drivers = _ray_drivers(batch.process)
        assert drivers, "the batch runs a Ray driver process"
        batch.process.send_signal(signal.SIGINT)
        code, stderr = batch.finish()
        assert code == 130, stderr
        assert "resume with: trajguard run" in stderr
        assert not any(map(_is_driver, drivers)), "the driver stopped with the batch"
        batch.open_gate()  # the agents Ray's cancelled workers had started may now end
        resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=batch.project)
        assert resumed.returncode == 0, resumed.stderr
        rows = _rows(batch.project / "rs")
        assert len(rows) == 4 and rows["run_id"].is_unique and (rows["status"] == "ok").all()
        assert store.read_manifest(batch.project / "rs")["interrupted_runs"], "cut off, redone"
    finally:
        batch.close()


def test_a_ray_driver_that_dies_stops_the_batch_resumably(
    tmp_path: Path, ray_cluster: Any, cli: Any
) -> None:
    batch = GatedBatch(tmp_path, ray_cluster.address, [], runs=2)
    try:
        batch.wait_for_a_run_on(ray_cluster.workers[0])
        (driver,) = _ray_drivers(batch.process)
        os.kill(driver, signal.SIGKILL)
        code, stderr = batch.finish()
        assert code == 3, stderr
        assert "the batch stopped: the Ray driver process exited" in stderr
        assert "--resume" in stderr and "Traceback" not in stderr
        batch.open_gate()
        resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=batch.project)
        assert resumed.returncode == 0, resumed.stderr
        rows = _rows(batch.project / "rs")
        assert len(rows) == 4 and rows["run_id"].is_unique and (rows["status"] == "ok").all()
    finally:
        batch.close()
