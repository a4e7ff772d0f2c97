"""Benchmark: a comparison as data (``comparison.json``, issue 21) for 100 scenarios x 50 runs.

Run: python benchmarks/bench_result_json.py [--scenarios 100] [--runs 50] [--history K]
     [--repeat 5]

The comparison is made once from ``bench_compare``'s synthetic run sets (the same generator and
seeds), then each step is timed ``--repeat`` times (median, with min and max):

* encode: ``to_data`` (the dataclasses to JSON-compatible data);
* dumps: ``to_data`` plus the JSON text, as ``comparison.json`` is written (``indent=1``;
  compact text is timed too: Python's C encoder serves only ``indent=None``);
* loads: the JSON text parsed (strictly: no NaN, no repeated keys) and ``from_data``;
* decode: ``from_data`` alone, from already-parsed data;
* validate: the document checked against the JSON Schema by ``jsonschema`` (a dev extra:
  skipped with a note when it is not installed); the schema is built and its validator
  compiled once, outside the timing, as a reader that validates many files would.

and the file's size, as written (``indent=1``) and compact, raw and gzipped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import make_runs, scenario_params

from trajguard.comparison import CompareConfig, Comparison, compare_runsets
from trajguard.results import dumps, from_data, json_schema, loads, to_data

VERSION = "1"


def _timed(fn: Callable[[], Any], repeat: int) -> tuple[Any, list[float]]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, times


def _validator() -> Any:
    try:
        import jsonschema
    except ImportError:
        return None
    schema = json_schema(Comparison, title="comparison", version=VERSION)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--history", type=int, default=1, metavar="K")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    params = scenario_params(args.scenarios, seed=1)
    seeds = [2] if args.history == 1 else [10 + k for k in range(args.history)]
    baseline = pd.concat(
        [make_runs(params, args.runs, seed=s, batch_id=f"night{s}") for s in seeds],
        ignore_index=True,
    )
    candidate = make_runs(params, args.runs, seed=3)
    start = time.perf_counter()
    comparison = compare_runsets(baseline, candidate, config=CompareConfig())
    compare_s = time.perf_counter() - start
    metrics = sum(len(s.metrics) for s in comparison.scenarios)
    print(
        f"{args.scenarios} scenarios x {args.runs} runs, {args.history}-batch baseline: "
        f"{metrics} metric results, {len(comparison.drift)} drift tests; "
        f"compare took {compare_s:.2f} s (once); {args.repeat} repeats per step"
    )

    text = dumps(comparison, version=VERSION)
    document = json.loads(text)
    assert loads(Comparison, text, version=VERSION) == comparison
    assert text == dumps(comparison, version=VERSION)
    steps: dict[str, Callable[[], Any]] = {
        "encode (to_data)": lambda: to_data(comparison),
        "dumps (to_data + JSON text)": lambda: dumps(comparison, version=VERSION),
        "dumps, compact (indent=None)": lambda: dumps(comparison, version=VERSION, indent=None),
        "loads (parse + from_data)": lambda: loads(Comparison, text, version=VERSION),
        "decode (from_data)": lambda: from_data(
            Comparison, {k: v for k, v in document.items() if k != "schema_version"}
        ),
    }
    validator = _validator()
    if validator is not None:
        steps["validate (jsonschema)"] = lambda: validator.validate(document)
    for name, fn in steps.items():
        _, times = _timed(fn, args.repeat)
        print(
            f"{name:>30}: median {1000 * statistics.median(times):8.1f} ms "
            f"[{1000 * min(times):.1f}-{1000 * max(times):.1f}]"
        )
    if validator is None:
        print(f"{'validate (jsonschema)':>30}: skipped (pip install jsonschema)")

    compact = dumps(comparison, version=VERSION, indent=None)
    for label, body in (("as written (indent=1)", text), ("compact", compact)):
        raw = body.encode()
        print(
            f"{label:>30}: {len(raw) / 1024:8.1f} KiB, gzipped {len(gzip.compress(raw)) / 1024:.1f}"
            f" KiB ({len(raw) / metrics:.0f} B per metric result)"
        )


if __name__ == "__main__":
    main()
