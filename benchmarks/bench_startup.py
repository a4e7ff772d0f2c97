"""How long the command line takes to start (issue 21): ``python -c pass``, ``trajguard --help``
and ``trajguard validate`` of one small ATIF file, for this checkout and, given
``--before-src``, for another tree's ``src`` — all alternating, round by round, in one run, so
that the machine's load falls on both alike.

    python benchmarks/bench_startup.py --before-src /work/orig/src --rounds 15

Each command runs as ``python -m trajguard.cli ...`` in a fresh process with ``PYTHONPATH`` set
to the tree's ``src``; the time is the wall time of the whole process. Prints median, min and max
per command and tree, and the load average before and after. Targets on an idle 2-core machine:
``--help`` ≤ 0.3 s, ``validate`` of a small file ≤ 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL_ATIF = ROOT / "tests/examples/golden/test_frozen_agent/test_reference_agent_weather.json"


def _time(argv: list[str], src: Path | None) -> float:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} (PYTHONPATH={src}) failed:\n{result.stderr}")
    return elapsed


def _load(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{value:.2f}" for value in load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", type=Path, help="the src directory of the 'before' tree")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--file", type=Path, default=SMALL_ATIF, help="the ATIF file to validate")
    args = parser.parse_args()

    cli = [sys.executable, "-m", "trajguard.cli"]
    commands = {
        "python -c pass": ([sys.executable, "-c", "pass"], False),
        "trajguard --help": ([*cli, "--help"], True),
        f"trajguard validate {args.file.name}": ([*cli, "validate", str(args.file)], True),
    }
    trees: dict[str, Path] = {"after": ROOT / "src"}
    if args.before_src is not None:
        trees = {"before": args.before_src.resolve(), **trees}
    cases = [
        (name, tree, argv, src)
        for name, (argv, uses_tree) in commands.items()
        for tree, src in (trees.items() if uses_tree else [("-", None)])
    ]
    times: dict[tuple[str, str], list[float]] = {(n, t): [] for n, t, _, _ in cases}
    load_before = os.getloadavg()
    for _ in range(2):  # warm the file cache and the .pyc files of both trees
        for _, _, argv, src in cases:
            _time(argv, src)
    for round_ in range(args.rounds):
        order = cases if round_ % 2 == 0 else cases[::-1]
        for name, tree, argv, src in order:
            times[name, tree].append(_time(argv, src))
    load_after = os.getloadavg()

    python = sys.version.split()[0]
    print(f"{args.rounds} rounds, alternating; {os.cpu_count()} cores; python {python}")
    print(f"load average (1/5/15 min): before {_load(load_before)}, after {_load(load_after)}")
    for tree, src in trees.items():
        print(f"{tree}: PYTHONPATH={src}")
    print()
    print("| command | tree | median | min | max |\n|---|---|---:|---:|---:|")
    for (name, tree), values in times.items():
        print(
            f"| `{name}` | {tree} | {statistics.median(values):.3f} s | {min(values):.3f} s | "
            f"{max(values):.3f} s |"
        )


if __name__ == "__main__":
    main()
