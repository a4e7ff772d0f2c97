"""Each read-only command against its floor, side by side (issue 40): the whole process of

* ``trajguard show RUNSET`` (100 scenarios x 50 runs) against a pyarrow group-by of the same
  ``runs.parquet`` (per scenario and variant: runs, passes, crashes, mean steps and tokens);
* ``trajguard runs RUNSET --scenario S`` against a pyarrow read of those runs' columns;
* ``trajguard report COMPARISON_JSON --out DIR`` (a 100-scenario comparison with a 5-batch
  history, about 2 MB, with the plots of its changed scenarios) against ``json.load`` of it;
* ``trajguard trend STORE`` (365 nights x 100 scenarios) against a DuckDB query of the store
  (``read_parquet('STORE/**/*.parquet', hive_partitioning = true)``; a pyarrow.dataset scan when
  DuckDB is not installed — the table says which);
* ``python -c 'import trajguard.pipeline'`` and ``from trajguard.pipeline import nightly``
  against ``from inspect_ai import eval`` (when inspect_ai is installed).

Each trajguard command runs for this checkout's ``src`` ("after") and, given ``--before-src``,
another tree's ("before"); every command of a case runs once per round, in turn, after one
warm-up round. CPU is the child's user + system time (``resource.getrusage``); the table gives
medians (min-max) and the ratio to the floor taken round by round.

    python benchmarks/bench_command_floors.py --out /tmp/floors --before-src /tmp/before/src

The inputs are built once into ``--out`` and reused when there (``--rebuild`` replaces them).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

SHOW_FLOOR = """
import sys, pyarrow.compute as pc, pyarrow.parquet as pq
table = pq.read_table(sys.argv[1], columns=["scenario", "variant", "passed", "status",
                                            "step_count", "total_tokens"])
crashed = table.append_column("crashed", pc.not_equal(table["status"], "ok"))
print(crashed.group_by(["scenario", "variant"]).aggregate(
    [("passed", "count"), ("passed", "sum"), ("crashed", "sum"), ("step_count", "mean"),
     ("total_tokens", "mean")]).num_rows)
"""
RUNS_FLOOR = """
import sys, pyarrow.compute as pc, pyarrow.parquet as pq
table = pq.read_table(sys.argv[1], columns=["run_id", "scenario", "run_index", "status", "passed",
                                            "step_count", "total_tokens", "duration_s"])
print(table.filter(pc.equal(table["scenario"], sys.argv[2])).num_rows)
"""
REPORT_FLOOR = "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"
TREND_DUCKDB = """
import sys, duckdb
rows = duckdb.sql(
    f"select date, night_id, scenario, passes, runs from read_parquet('{sys.argv[1]}/**/*.parquet',"
    " hive_partitioning = true) where suite = 'bench' order by date").fetchall()
print(len(rows))
"""
TREND_PYARROW = """
import sys, pyarrow.dataset as ds
table = ds.dataset(sys.argv[1], format="parquet", partitioning="hive").to_table(
    columns=["night_id", "scenario", "passes", "runs"])
print(table.num_rows)
"""


def _runset(out: Path, scenarios: int, runs: int) -> Path:
    from bench_runs import build

    return build(out / "runset", scenarios, runs)


def _comparison(out: Path, scenarios: int, runs: int) -> Path:
    """A compared pair of synthetic run sets (5-batch history) written as a comparison writes
    it: comparison.json, report.md and the plots of the changed scenarios."""
    import pandas as pd
    from bench_compare import make_runs, scenario_params

    from trajguard import pipeline, report
    from trajguard.comparison import CompareConfig, compare_runsets
    from trajguard.results import ReportKind, document_json
    from trajguard.store import RunSet

    folder = out / "comparison"
    params = scenario_params(scenarios, seed=1)
    batches = [make_runs(params, runs, seed=10 + k, batch_id=f"night{k}") for k in range(5)]
    baseline = pd.concat(batches, ignore_index=True)
    candidate = make_runs(params, runs, seed=3, pass_shift=-0.1, batch_id="candidate")
    comparison = compare_runsets(baseline, candidate, config=CompareConfig())
    manifest = {"suite": "bench", "models": ["local/smollm2"]}
    document = report.build_document(
        comparison,
        kind=ReportKind.COMPARE,
        baseline=RunSet(path=folder / "baseline", manifest=manifest, runs=baseline),
        candidate=RunSet(path=folder / "candidate", manifest=manifest, runs=candidate),
        plots=pipeline.plotted_scenarios(comparison),
        command="trajguard compare baseline candidate",
    )
    folder.mkdir(parents=True)
    report.write_plots(folder, document)
    (folder / "report.md").write_text(report.render_markdown(document), encoding="utf-8")
    (folder / "comparison.json").write_text(document_json(document), encoding="utf-8")
    return folder / "comparison.json"


def _store(out: Path, nights: int, scenarios: int) -> Path:
    from trajguard_testkit.year_store import year_store

    return year_store(out / "year", nights=nights, scenarios=scenarios, reports_every=10**6)


def _build(args: argparse.Namespace) -> dict[str, Path]:
    out: Path = args.out
    if args.rebuild:
        shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "runset": out / "runset",
        "comparison": out / "comparison" / "comparison.json",
        "store": out / "year" / "store",
    }
    makers: dict[str, Callable[[], Path]] = {
        "runset": lambda: _runset(out, args.scenarios, args.runs),
        "comparison": lambda: _comparison(out, args.scenarios, args.runs),
        "store": lambda: _store(out, args.nights, args.scenarios),
    }
    for name, path in paths.items():
        if not path.exists():
            began = time.perf_counter()
            makers[name]()
            print(f"built {name} in {time.perf_counter() - began:.0f} s: {path}", flush=True)
    return paths


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU s, wall s) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _cases(paths: dict[str, Path], scratch: Path) -> dict[str, tuple[list[str], list[str], str]]:
    """case -> (the trajguard arguments, the floor's argv, the floor's name)."""
    py = sys.executable
    runs_file = str(paths["runset"] / "runs.parquet")
    duckdb = importlib.util.find_spec("duckdb") is not None
    trend_floor = [py, "-c", TREND_DUCKDB if duckdb else TREND_PYARROW, str(paths["store"])]
    return {
        "show": (
            ["show", str(paths["runset"])],
            [py, "-c", SHOW_FLOOR, runs_file],
            "pyarrow group-by",
        ),
        "runs": (
            ["runs", str(paths["runset"]), "--scenario", "scenario_007"],
            [py, "-c", RUNS_FLOOR, runs_file, "scenario_007"],
            "pyarrow read + filter",
        ),
        "report": (
            ["report", str(paths["comparison"]), "--out", str(scratch / "report")],
            [py, "-c", REPORT_FLOOR, str(paths["comparison"])],
            "json.load",
        ),
        "trend": (
            ["trend", str(paths["store"])],
            trend_floor,
            "DuckDB query" if duckdb else "pyarrow.dataset scan",
        ),
    }


def _env(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _row(name: str, cpu: list[float], wall: list[float], floor: list[float] | None) -> str:
    def spread(values: list[float], unit: str = "") -> str:
        return f"{statistics.median(values):.2f}{unit} ({min(values):.2f}-{max(values):.2f})"

    ratio = ""
    if floor is not None:
        ratio = spread([c / f for c, f in zip(cpu, floor, strict=True)], "x")
    return f"| {name} | {spread(cpu)} | {spread(wall)} | {ratio} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="inputs and scratch")
    parser.add_argument("--before-src", type=Path, help="the src directory of the 'before' tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--only", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    paths = _build(args)
    size = paths["comparison"].stat().st_size
    print(f"comparison.json: {size / 1e6:.1f} MB; python {sys.version.split()[0]}; load ", end="")
    print(" / ".join(f"{x:.1f}" for x in os.getloadavg()), flush=True)
    scratch = args.out / "scratch"
    trees = {"after": ROOT / "src"}
    if args.before_src is not None:
        trees = {"before": args.before_src, "after": ROOT / "src"}
    py = [sys.executable, "-m", "trajguard.cli"]
    commands: dict[str, dict[str, tuple[list[str], dict[str, str]]]] = {}
    for case, (cli, floor, floor_name) in _cases(paths, scratch).items():
        if args.only and case not in args.only:
            continue
        variants = {f"floor: {floor_name}": (floor, dict(os.environ))}
        for tree, src in trees.items():
            variants[f"`trajguard {case}` {tree}"] = ([*py, *cli], _env(src))
        commands[case] = variants
    imports = {
        f"`import trajguard.pipeline` {tree}": (
            [sys.executable, "-c", "import trajguard.pipeline"],
            _env(src),
        )
        for tree, src in trees.items()
    }
    imports |= {
        f"`from trajguard.pipeline import nightly` {tree}": (
            [sys.executable, "-c", "from trajguard.pipeline import nightly"],
            _env(src),
        )
        for tree, src in trees.items()
    }
    if importlib.util.find_spec("inspect_ai") is not None:
        imports["floor: `from inspect_ai import eval`"] = (
            [sys.executable, "-c", "from inspect_ai import eval"],
            dict(os.environ),
        )
    if not args.only or "imports" in args.only:
        commands["imports"] = imports
    times: dict[str, dict[str, tuple[list[float], list[float]]]] = {
        case: {name: ([], []) for name in variants} for case, variants in commands.items()
    }
    for round_ in range(args.rounds + 1):  # round 0 warms the caches and is not counted
        for case, variants in commands.items():
            for name, (argv, env) in variants.items():
                shutil.rmtree(scratch, ignore_errors=True)
                cpu, wall = _timed(argv, env)
                if round_:
                    times[case][name][0].append(cpu)
                    times[case][name][1].append(wall)
        print(f"round {round_} done", flush=True)
    print(f"\n{args.rounds} rounds; CPU and wall s, median (min-max); ratio to the floor's CPU")
    for case, variants in times.items():
        print(f"\n| {case} | CPU s | wall s | x floor (CPU) |\n|---|---:|---:|---:|")
        floor = next((cpu for name, (cpu, _) in variants.items() if name.startswith("floor")), None)
        for name, (cpu, wall) in variants.items():
            shown = None if name.startswith("floor") else floor
            print(_row(name, cpu, wall, shown))


if __name__ == "__main__":
    main()
