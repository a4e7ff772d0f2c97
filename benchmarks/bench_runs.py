"""Benchmark: the run view (`trajguard runs`, `show --run`) beside `trajguard show RUNSET` on a
100-scenario x 50-run run set with trajectories.

Run: python benchmarks/bench_runs.py [--scenarios 100] [--runs 50] [--repeat 5] [--keep DIR]

The run set is built once (rows from bench_store.make_rows: realistic normalised trajectories
of 1 to 2 KB, renamed to ``--scenarios`` scenarios x ``--runs`` runs) and kept in ``--keep`` if
given. Each command runs as the console script (``trajguard`` next to this Python) in a fresh
process, ``--repeat`` times; the table gives the median wall time and the median CPU time of the
child (user + system), with the spread of the wall times.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_store import make_rows

from trajguard import store


def build(path: Path, scenarios: int, runs: int) -> Path:
    if (path / store.RUNS_FILE).exists():
        return path
    rows = make_rows(scenarios * runs)
    for index, row in enumerate(rows):
        scenario, run_index = f"scenario_{index % scenarios:03d}", index // scenarios
        row.update(scenario=scenario, variant="base", run_index=run_index)
        row["run_id"] = f"{scenario}/base/{run_index}"
    store.write_runs(path / store.RUNS_FILE, rows)
    store.write_manifest(path, {"suite": "bench", "status": "finished", "batch_id": "bench"})
    return path


def timed(command: list[str], repeat: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, env=env, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the run set here")
    args = parser.parse_args()
    script = shutil.which("trajguard", path=str(Path(sys.executable).parent))
    if script is None:
        sys.exit("bench_runs: no trajguard console script next to this Python")
    temp = None if args.keep else tempfile.mkdtemp(prefix="bench-runs-")
    runset = build(args.keep or Path(temp or "") / "rs", args.scenarios, args.runs)
    size = (runset / store.RUNS_FILE).stat().st_size / 1e6
    print(f"run set {runset}: {args.scenarios} x {args.runs} runs, runs.parquet {size:.1f} MB")
    middle = f"scenario_{args.scenarios // 2:03d}"
    commands = {
        "trajguard show RUNSET": ["show", str(runset)],
        "trajguard runs RUNSET": ["runs", str(runset)],
        f"trajguard runs RUNSET --scenario {middle} --failed": [
            "runs",
            str(runset),
            "--scenario",
            middle,
            "--failed",
        ],
        f"trajguard show RUNSET --run {middle}/base/7": [
            "show",
            str(runset),
            "--run",
            f"{middle}/base/7",
        ],
        "trajguard --version (start-up alone)": ["--version"],
    }
    print(f"{'command':<58} {'wall median':>11} {'spread':>15} {'CPU median':>10}")
    for name, argv in commands.items():
        walls, cpus = timed([script, *argv], args.repeat)
        spread = f"{min(walls):.2f}-{max(walls):.2f} s"
        print(
            f"{name:<58} {statistics.median(walls):>9.2f} s {spread:>15} "
            f"{statistics.median(cpus):>8.2f} s"
        )
    if temp:
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
