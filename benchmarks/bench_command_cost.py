"""The fixed cost of a command (issue 21): a 1-run batch on the embedded model, the wall time of
the whole ``trajguard run`` process against the run's own time (its row's ``duration_s``), for
this checkout and, given ``--before-src``, another tree's ``src``, alternating round by round.

    python benchmarks/bench_command_cost.py --before-src /work/orig/src --rounds 5

Each round runs, for each tree, ``python -m trajguard.cli run suites/demo.yaml --runs 1
--scenario SCENARIO --no-progress --out TMP`` in a fresh process (``PYTHONPATH`` the tree's
``src``; the suite file is this checkout's, the same in both trees at issue 21's start). Prints
median / min / max of the wall time, the run's time and their difference (what the command
costs besides the run), the load average, and the start-up steps and summary the command
printed in its last round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suites" / "demo.yaml"


def _once(src: Path, scenario: str, seed: int) -> tuple[float, float, str, str]:
    """(wall s, the run's duration_s, stdout, stderr) of one 1-run batch."""
    env = {**os.environ, "PYTHONPATH": str(src), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory(prefix="bench-command-") as tmp:
        out = Path(tmp) / "runset"
        argv = [sys.executable, "-m", "trajguard.cli", "run", str(SUITE), "--runs", "1"]
        argv += ["--scenario", scenario, "--seed", str(seed), "--no-progress", "--out", str(out)]
        started = time.perf_counter()
        result = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"PYTHONPATH={src}: {' '.join(argv)} failed:\n{result.stderr}")
        durations = pq.read_table(out / "runs.parquet", columns=["duration_s"]).column(0)
        (duration,) = durations.to_pylist()
    return wall, float(duration), result.stdout, result.stderr


def _stats(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} s / {min(values):.1f} s / {max(values):.1f} s"


def _load() -> str:
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", type=Path, help="the src directory of the 'before' tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scenario", default="multiply")
    parser.add_argument("--seed", type=int, default=1, help="batch seed (the same run each time)")
    args = parser.parse_args()

    trees = {"after": ROOT / "src"}
    if args.before_src is not None:
        trees = {"before": args.before_src.resolve(), **trees}
    walls: dict[str, list[float]] = {tree: [] for tree in trees}
    runs: dict[str, list[float]] = {tree: [] for tree in trees}
    printed: dict[str, tuple[str, str]] = {}
    load_before = _load()
    for round_ in range(args.rounds):
        order = list(trees.items()) if round_ % 2 == 0 else list(trees.items())[::-1]
        for tree, src in order:
            wall, duration, stdout, stderr = _once(src, args.scenario, args.seed)
            walls[tree].append(wall)
            runs[tree].append(duration)
            printed[tree] = (stdout, stderr)
            print(f"round {round_ + 1} {tree}: {wall:.1f} s, run {duration:.1f} s", flush=True)
    print(f"\n{args.rounds} rounds, alternating; {os.cpu_count()} cores")
    print(f"load average (1/5/15 min): before {load_before}, after {_load()}")
    for tree, src in trees.items():
        print(f"{tree}: PYTHONPATH={src}")
    print("\nmedian / min / max per tree:\n")
    print("| tree | wall of the command | the run's duration_s | wall − run |")
    print("|---|---|---|---|")
    for tree in trees:
        besides = [w - r for w, r in zip(walls[tree], runs[tree], strict=True)]
        print(f"| {tree} | {_stats(walls[tree])} | {_stats(runs[tree])} | {_stats(besides)} |")
    for tree, (stdout, stderr) in printed.items():
        print(f"\n{tree}, last round, stderr:\n{stderr.rstrip()}\nstdout:\n{stdout.rstrip()}")


if __name__ == "__main__":
    main()
