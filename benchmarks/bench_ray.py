"""Benchmark: the Ray executor against the local one, on a real Ray cluster on this machine.

1. ``demo``: the demo suite on the embedded model, ``--runs N`` per scenario and the same batch
   seed, on the local executor (2 runs at a time, a model server for each) and on Ray with one
   worker node (1 CPU: one run at a time) and with two (two at a time, a model server on each), the
   configurations alternating, repeated. Per batch: wall time (the executor's start included),
   and per run the executor's overhead: the time from the run's dispatch (its journal line) to
   its row reaching the batch (the progress observer), minus the run's own ``duration_s``
   (measured around the agent on whichever process ran it). Also how many runs' trajectories
   are identical to the local batch's, and pass rates.
2. ``fake``: one batch of ``--fake-runs`` runs of a command agent that only copies a fixed
   trajectory (``cp``: no model, no Python start), on the local executor and on Ray with
   ``--ray-cpus 0.5`` (two runs at a time per 1-CPU node). Runs per second at the driver from
   the first row to the last (the executor's start apart), and the CPU time the batch's process
   spends per run (its imports warmed first), and on Ray the Ray driver process's (a child of
   the batch; its own start included).

The cluster (``_ray_cluster.py``): head (no CPUs) and two 1-CPU worker nodes, each its own
``ray start``; the one-node configuration routes runs to the first worker node with a custom
resource only it offers.

Run: python benchmarks/bench_ray.py [--demo-runs 3] [--repeat 3] [--fake-runs 1000]
     [--only demo|fake]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ray_cluster import LocalRayCluster

from trajguard import store
from trajguard.runner import BatchOptions, ExecutorChoice, execute
from trajguard.suite import load_suite

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "suites" / "demo.yaml"
SEED = 20261201

TRAJECTORY = """{"schema_version": "ATIF-v1.6", "session_id": "s",
 "agent": {"name": "fake", "version": "1"},
 "steps": [{"step_id": 1, "source": "user", "message": "go"},
           {"step_id": 2, "source": "agent", "message": "done"}]}
"""
FAKE_SUITE = """
name: fake
defaults: {{runs: {runs}, timeout_s: 60}}
scenarios:
  - id: copy
    agent: {{kind: command, argv: [cp, trajectory.json, "{{output}}"], uses_model: false}}
    input: go
    pass:
      - final_output_contains: done
"""


class Arrivals:
    """The progress observer: when each row reached the batch."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def start(self, total: int, skipped: int, interrupted: int) -> None:
        pass

    def update(self, row: Mapping[str, Any]) -> None:
        self.at[str(row["run_id"])] = time.time()


def _observe(arrivals: Arrivals) -> Any:
    @contextlib.contextmanager
    def observe(label: str) -> Iterator[Arrivals]:
        yield arrivals

    return observe


def batch(suite_path: Path, out: Path, options: BatchOptions) -> dict[str, Any]:
    """One batch through the library (what ``trajguard run`` calls), measured."""
    suite = load_suite(suite_path)
    arrivals = Arrivals()
    cpu, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, began = time.perf_counter(), time.time()
    result = execute(suite, out, options, observe=_observe(arrivals))
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    rows = store.read_runs(out)
    journal = store.read_journal(out)
    dispatched = {run: datetime.fromisoformat(at).timestamp() for run, at in journal.items()}
    overheads = [
        arrivals.at[row.run_id] - dispatched[row.run_id] - row.duration_s
        for row in rows.itertuples()
    ]
    first, last = min(arrivals.at.values()), max(arrivals.at.values())
    return {
        "wall_s": wall,
        "open_s": min(dispatched.values()) - began,
        "steady_runs_per_s": (len(rows) - 1) / (last - first) if last > first else float("nan"),
        "ray_driver_cpu_s": child_cpu,
        "runs": len(rows),
        "statuses": rows["status"].value_counts().to_dict(),
        "overhead_ms": 1000 * statistics.median(overheads),
        "driver_cpu_ms": 1000 * (time.process_time() - cpu) / len(rows),
        "ray_driver_cpu_ms": 1000 * child_cpu / len(rows),
        "rows": rows.set_index("run_id"),
        "counts": dict(result.counts),
        "load": os.getloadavg()[0],
    }


def bench_demo(cluster: LocalRayCluster, work: Path, runs: int, repeat: int) -> None:
    on_ray = {"ray, 1 worker node": {"resources": {"one": 1.0}}, "ray, 2 worker nodes": {}}
    configs: dict[str, ExecutorChoice] = {"local": ExecutorChoice(kind="local")}
    for name, extra in on_ray.items():
        configs[name] = ExecutorChoice(kind="ray", ray={"address": cluster.address, **extra})
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    for index in range(repeat):
        for name, choice in configs.items():
            out = work / f"demo-{index}-{name.replace(' ', '_').replace(',', '')}"
            options = BatchOptions(runs=runs, seed=SEED, timeout_s=900, executor=choice)
            measured = batch(DEMO, out, options)
            results[name].append(measured)
            print(
                f"  {name:22s} repeat {index + 1}: {measured['wall_s']:6.1f} s wall, "
                f"overhead {measured['overhead_ms']:6.1f} ms/run, {measured['statuses']}, "
                f"load {measured['load']:.1f}",
                flush=True,
            )
    reference = results["local"][0]["rows"]
    print(f"\ndemo suite, {runs} runs per scenario ({4 * runs} runs), seed {SEED}, "
          f"{repeat} repeats; load {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| executor | wall (median) | repeats | runs/s | overhead per run (median) | load |")
    print("|---|---:|---|---:|---:|---|")
    for name, measured in results.items():
        walls = [m["wall_s"] for m in measured]
        wall = statistics.median(walls)
        overhead = statistics.median(m["overhead_ms"] for m in measured)
        loads = [m["load"] for m in measured]
        print(
            f"| {name} | {wall:.1f} s | {', '.join(f'{w:.1f}' for w in walls)} | "
            f"{4 * runs / wall:.3f} | {overhead:.0f} ms | "
            f"{', '.join(f'{load:.1f}' for load in loads)} |"
        )
    print("\n| executor | identical trajectories to the first local batch | pass rate |")
    print("|---|---:|---:|")
    for name, measured in results.items():
        same = [
            int((m["rows"]["content_hash"] == reference.loc[m["rows"].index, "content_hash"]).sum())
            for m in measured
        ]
        passed = [float(m["rows"]["passed"].mean()) for m in measured]
        print(
            f"| {name} | {', '.join(f'{s}/{4 * runs}' for s in same)} | "
            f"{', '.join(f'{p:.0%}' for p in passed)} |"
        )


def bench_fake(cluster: LocalRayCluster, work: Path, runs: int) -> None:
    project = work / "fake"
    project.mkdir()
    (project / "trajectory.json").write_text(TRAJECTORY)
    (project / "suite.yaml").write_text(FAKE_SUITE.format(runs=runs))
    configs = {
        "local (2 at a time)": ExecutorChoice(kind="local"),
        "ray, 2 worker nodes, 0.5 CPU per run": ExecutorChoice(
            kind="ray", ray={"address": cluster.address, "num_cpus": 0.5}
        ),
    }
    print(f"\n{runs} runs of `cp` as the agent; load {os.getloadavg()[0]:.1f}")
    print("| executor | wall | start (to the first dispatch) | runs/s at the driver, first to "
          "last row | batch process CPU per run | Ray driver process CPU (its start included) "
          "| overhead per run (median) | statuses | load after |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for name, choice in configs.items():
        out = project / name.split(" ")[0]
        measured = batch(project / "suite.yaml", out, BatchOptions(seed=SEED, executor=choice))
        print(
            f"| {name} | {measured['wall_s']:.1f} s | {measured['open_s']:.1f} s | "
            f"{measured['steady_runs_per_s']:.0f} | {measured['driver_cpu_ms']:.1f} ms | "
            f"{measured['ray_driver_cpu_s']:.1f} s ({measured['ray_driver_cpu_ms']:.1f} ms/run) | "
            f"{measured['overhead_ms']:.1f} ms | {measured['statuses']} | {measured['load']:.1f} |",
            flush=True,
        )


def main() -> None:
    import trajguard.capture._llm  # noqa: F401 - imports litellm: not a cost of any one batch

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo-runs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fake-runs", type=int, default=1000)
    parser.add_argument("--only", choices=("demo", "fake"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    clock = time.perf_counter()
    cluster = LocalRayCluster(work / "ray").start(workers=0)
    cluster.add_node(resources={"one": 1})
    cluster.add_node()
    print(f"cluster: head + 2 worker nodes up in {time.perf_counter() - clock:.1f} s "
          f"({', '.join(f'{k} {v:.1f} s' for k, v in cluster.started_s.items())})")  # fmt: skip
    try:
        if args.only in (None, "demo"):
            bench_demo(cluster, work, args.demo_runs, args.repeat)
        if args.only in (None, "fake"):
            bench_fake(cluster, work, args.fake_runs)
    finally:
        clock = time.perf_counter()
        cluster.stop()
        print(f"cluster stopped in {time.perf_counter() - clock:.1f} s")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
