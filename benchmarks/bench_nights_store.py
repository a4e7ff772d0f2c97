"""The store of nights at a year's size (issue 24): 365 nights x 100 scenarios.

Appends every night through ``trajguard.nights.record_night`` (20 runs per scenario, the rows a
run set holds), then measures, side by side, the store's size and the time to get every
scenario's night-by-night pass counts:

* the store: ``read_nights`` (pyarrow dataset, one file per night) and DuckDB over the same
  files (``read_parquet('STORE/**/*.parquet', hive_partitioning = true)``);
* the alternative without a store: every night's ``comparison.json`` read back from
  ``reports/<date>/``, parsed, and each scenario's pass rate and runs taken from it. Each night's
  document is a real one (``compare`` of two recorded real-model nights,
  benchmarks/data/real-nights-2026-12-01) with its 4 scenarios' entries repeated to 100
  scenarios, so it has the size and shape a real 100-scenario ``comparison.json`` has;
* the whole ``trajguard trend`` (the query plus every scenario's tests) over all nights and
  over the newest 30.

    python benchmarks/bench_nights_store.py --out /tmp/nights-bench
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from datetime import date, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from trajguard.nights import NightInput, open_location, read_nights, record_night, trend


def _runs(scenarios: int, runs: int, rates: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    n = scenarios * runs
    return pd.DataFrame(
        {
            "scenario": np.repeat([f"s{i:03d}" for i in range(scenarios)], runs),
            "variant": "base",
            "status": "ok",
            "passed": rng.random(n) < np.repeat(rates, runs),
            "crashed": rng.random(n) < 0.02,
            "step_count": rng.integers(3, 8, n),
            "tool_counts": [
                [("calculator", 1)] if r < 0.7 else [("lookup", 2)] for r in rng.random(n)
            ],
            "total_tokens": rng.integers(400, 900, n),
            "duration_s": rng.lognormal(1.0, 0.3, n),
        }
    )


DATA = Path(__file__).parent / "data" / "real-nights-2026-12-01"


def _template(out: Path) -> dict:
    """A real ``comparison.json`` (two recorded nights compared, no model involved)."""
    from trajguard import pipeline

    done = pipeline.compare(
        DATA / "baseline",
        DATA / "unedited-seed1",
        report=out / "template" / "report.md",
        options=pipeline.ReportOptions(plots=False),
    )
    return json.loads((done.report.parent / "comparison.json").read_text())


def _document(template: dict, scenarios: int, counts: pd.DataFrame) -> str:
    doc = dict(template)
    comparison = dict(doc["comparison"])
    own = comparison["scenarios"]
    entries, facts = [], {}
    for i, (name, row) in enumerate(counts.iterrows()):
        entry = json.loads(json.dumps(own[i % len(own)]))
        entry["scenario"] = name
        for metric in entry["metrics"]:
            if metric["metric"] == "pass_rate":
                metric["candidate"]["n"] = int(row["size"])
                metric["candidate"]["mean"] = float(row["sum"]) / int(row["size"])
        entries.append(entry)
        facts[name] = doc["scenarios"][own[i % len(own)]["scenario"]]
    comparison["scenarios"] = entries
    doc.update(comparison=comparison, scenarios=facts, plots={})
    return json.dumps(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="scratch directory (replaced)")
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument(
        "--query-only",
        action="store_true",
        help="reuse the store and reports an earlier run left in --out; time the reads only",
    )
    args = parser.parse_args()
    if not args.query_only:
        shutil.rmtree(args.out, ignore_errors=True)
    store, reports = args.out / "store", args.out / "reports"
    rng = np.random.default_rng(args.seed)
    rates = rng.uniform(0.2, 0.9, args.scenarios)
    base = _runs(args.scenarios, args.runs, rates, rng)
    template = _template(args.out) if not args.query_only else {}
    first = date(2026, 1, 1)
    append_s: list[float] = [0.0]
    for k in range(0 if args.query_only else args.nights):
        day = (first + timedelta(days=k)).isoformat()
        runs = _runs(args.scenarios, args.runs, rates, rng)
        counts = runs.groupby("scenario")["passed"].agg(["sum", "size"])
        folder = reports / day
        folder.mkdir(parents=True)
        (folder / "comparison.json").write_text(_document(template, args.scenarios, counts))
        night = NightInput(
            suite="bench",
            date=day,
            night_id=f"night{k:03d}",
            runs=runs,
            runset=str(folder / "runs"),
            verdicts=dict.fromkeys(counts.index, "unchanged"),
            night_verdict="unchanged",
            exit_code=0,
            comparison=json.dumps({"verdict": "unchanged"}),
            baseline="baselines/bench",
            baseline_runs=base,
            baseline_batch="base",
            baseline_started_at="2025-12-31T03:00:00+00:00",
            baseline_pinned=True,
        )
        began = time.perf_counter()
        record_night(store, night)
        append_s.append(time.perf_counter() - began)
    if len(append_s) > 1:
        append_s = append_s[1:]
    size = sum(f.stat().st_size for f in store.rglob("*.parquet"))
    json_size = sum(f.stat().st_size for f in reports.rglob("comparison.json"))
    print(f"{args.nights} nights x {args.scenarios} scenarios x {args.runs} runs")
    print(
        f"append: median {1000 * np.median(append_s):.0f} ms, max {1000 * max(append_s):.0f} ms "
        f"per night, {sum(append_s):.1f} s in all"
    )
    print(
        f"store size: {size / 1e6:.1f} MB ({size / args.nights / 1e3:.1f} kB per night); "
        f"the nights' comparison.json files: {json_size / 1e6:.1f} MB"
    )

    def timed(label: str, fn) -> object:
        began = time.perf_counter()
        result = fn()
        print(f"{label}: {time.perf_counter() - began:.2f} s")
        return result

    location = open_location(store)
    cols = ["scenario", "passes", "runs"]
    rows = timed(
        "query, pyarrow dataset (read_nights, all nights)",
        lambda: read_nights(location, suite="bench", columns=cols),
    )
    glob = f"{store.as_posix()}/**/*.parquet"
    timed(
        "query, DuckDB over the files",
        lambda: duckdb.sql(
            f"select date, night_id, scenario, passes, runs from read_parquet("
            f"'{glob}', hive_partitioning = true) where suite = 'bench' "
            "order by date"
        ).df(),
    )

    def from_json() -> pd.DataFrame:
        out = []
        for path in sorted(reports.glob("*/comparison.json")):
            doc = json.loads(path.read_text())
            for entry in doc["comparison"]["scenarios"]:
                rate = next(m for m in entry["metrics"] if m["metric"] == "pass_rate")
                n = rate["candidate"]["n"]
                out.append(
                    (path.parent.name, entry["scenario"], round(rate["candidate"]["mean"] * n), n)
                )
        return pd.DataFrame(out, columns=["date", "scenario", "passes", "runs"])

    tallied = timed("the same counts from every night's comparison.json", from_json)
    assert len(tallied) == len(rows) == args.nights * args.scenarios  # type: ignore[arg-type]
    timed(
        "trajguard trend, newest 30 nights (query + tests)",
        lambda: trend(store, suite="bench", last=30),
    )
    timed("trajguard trend, all nights (query + tests)", lambda: trend(store, suite="bench"))


if __name__ == "__main__":
    main()
