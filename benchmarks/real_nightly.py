"""Real-model nights: does `trajguard nightly` fail a broken prompt and pass an unchanged one?

Run: python benchmarks/real_nightly.py [--seeds 1 2 3 4 5] [--which edited unedited]
       [--out /tmp/real-nightly] [--runs 20] [--recompare DIR] [--baseline DIR]

For every seed, `trajguard nightly` (the console script, default settings) runs on the embedded
model against the committed baseline (baselines/demo/, or --baseline):

* ``edited``: suites/demo-weather-edit.yaml, the demo suite with the weather_bot prompt edited
  into the base prompts of multiply and greeting; target: exit 1 on at least 4 of 5 seeds;
* ``unedited``: suites/demo.yaml; target: exit 0 on at least 4 of 5 seeds.

Each night is 80 runs (5-8 minutes on 2 idle cores). Prints one line per night (exit code,
minutes, the report's headline and what failed) and a summary; the reports stay under --out.
Not a CI test: it takes an hour.

``--recompare DIR`` runs no model: it compares the run sets of nights already run (one folder
per night, ``DIR/<which>-seed<N>``, as ``trajguard run`` wrote them) with the baseline they
were run against (``DIR/baseline``, unless ``--baseline`` names another) through `trajguard
compare`, the comparison the nightly makes. The nights of 2026-12-01 (10 nights, 800 runs of
the embedded model) are kept under ``benchmarks/data/real-nights-2026-12-01`` for this, with
their baseline (the demo baseline of 2026-11-29, since replaced in baselines/demo): a change
of the method is checked on the same real runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUITES = {
    "edited": REPO / "suites" / "demo-weather-edit.yaml",
    "unedited": REPO / "suites" / "demo.yaml",
}
TARGET = {"edited": 1, "unedited": 0}


def trajguard() -> list[str]:
    found = shutil.which("trajguard", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "trajguard.cli"]


def night(
    which: str, seed: int, out: Path, runs: int, baseline: Path
) -> tuple[int, float, list[str]]:
    reports = out / f"{which}-seed{seed}"
    command = [
        *trajguard(),
        "nightly",
        str(SUITES[which]),
        "--baseline",
        str(baseline),
        "--reports",
        str(reports),
        "--seed",
        str(seed),
        "--runs",
        str(runs),
        "--no-progress",
        "--no-plots",
    ]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3600)
    minutes = (time.perf_counter() - start) / 60
    return result.returncode, minutes, _lines(result, reports)


def recompare(
    which: str, seed: int, runs: Path, out: Path, baseline: Path
) -> tuple[int, float, list[str]]:
    reports = out / f"{which}-seed{seed}"
    command = [
        *trajguard(),
        "compare",
        str(baseline),
        str(runs / f"{which}-seed{seed}"),
        "--report",
        str(reports / "report.md"),
        "--no-plots",
    ]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    return result.returncode, (time.perf_counter() - start) / 60, _lines(result, reports)


def _lines(result: subprocess.CompletedProcess[str], reports: Path) -> list[str]:
    lines = [result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""]
    reports_found = sorted(reports.glob("**/report.md"))
    if reports_found:
        text = reports_found[-1].read_text(encoding="utf-8").splitlines()
        lines += [ln for ln in text[:12] if ln.startswith("- **")]
    if result.returncode not in (0, 1):
        lines.append(result.stderr.strip()[-800:])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument(
        "--which", nargs="+", choices=sorted(SUITES), default=["edited", "unedited"]
    )
    parser.add_argument("--out", type=Path, default=Path("/tmp/real-nightly"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--recompare", type=Path, metavar="DIR", help="nights already run")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="the baseline to compare with (default: baselines/demo; with --recompare, "
        "DIR/baseline when it exists)",
    )
    args = parser.parse_args()
    baseline = args.baseline or REPO / "baselines" / "demo"
    if args.baseline is None and args.recompare and (args.recompare / "baseline").is_dir():
        baseline = args.recompare / "baseline"
    tally: dict[str, list[int]] = {w: [] for w in args.which}
    for seed in args.seeds:
        for which in args.which:
            if args.recompare is not None:
                code, minutes, lines = recompare(which, seed, args.recompare, args.out, baseline)
            else:
                code, minutes, lines = night(which, seed, args.out, args.runs, baseline)
            tally[which].append(code)
            load = os.getloadavg()[0]
            print(f"{which:<9} seed {seed}: exit {code} ({minutes:.1f} min, load {load:.1f})")
            for line in lines:
                print(f"    {line}")
    for which, codes in tally.items():
        hits = sum(c == TARGET[which] for c in codes)
        print(f"{which}: exit {TARGET[which]} on {hits} of {len(codes)} seeds ({codes})")


if __name__ == "__main__":
    main()
