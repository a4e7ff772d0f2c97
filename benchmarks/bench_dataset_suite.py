"""Load + validate time of a suite whose scenarios come from data (issue 25; not a timed test).

Run: python benchmarks/bench_dataset_suite.py [--rows 10000] [--repeats 5] [--format jsonl]

Writes a suite with one ``scenarios_from`` entry over ROWS generated rows (an input template,
two templated criteria, per-row tags, a builtin agent with two tools) into a temporary
directory, then times ``load_suite`` (read the file, expand the templates, validate every
scenario, every check ``trajguard validate`` makes: imports, tools, criteria tool names) and a
``config_hash`` of every scenario. Prints the median and the fastest of REPEATS loads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

SUITE = """\
name: bench
scenarios_from:
  - path: rows.{ext}
    id: "row-{{n}}"
    input: "What is {{a}} * {{b}}?"
    pass:
      - tool_called: calculator
      - final_output_contains: "{{expected}}"
    tags: tags
    agent:
      kind: builtin
      tools:
        - trajguard.examples.demo_tools:calculator
        - trajguard.examples.demo_tools:lookup_country
"""


def write_rows(directory: Path, rows: int, kind: str) -> None:
    data = [
        {"n": i, "a": i % 97, "b": i % 89, "expected": (i % 97) * (i % 89), "tags": f"t{i % 7}"}
        for i in range(rows)
    ]
    if kind == "jsonl":
        text = "".join(json.dumps(r) + "\n" for r in data)
        (directory / "rows.jsonl").write_text(text, encoding="utf-8")
    elif kind == "csv":
        lines = ["n,a,b,expected,tags", *(",".join(str(v) for v in r.values()) for r in data)]
        (directory / "rows.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(data), directory / "rows.parquet")
    (directory / "suite.yaml").write_text(SUITE.format(ext=kind), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--format", choices=("jsonl", "csv", "parquet"), default="jsonl")
    args = parser.parse_args()
    from trajguard.suite import load_suite

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        write_rows(directory, args.rows, args.format)
        loads, hashes = [], []
        for _ in range(args.repeats):
            started = time.perf_counter()
            suite = load_suite(directory / "suite.yaml")
            loaded = time.perf_counter()
            distinct = {suite.resolve(s.id).config_hash() for s in suite.scenarios}
            loads.append(loaded - started)
            hashes.append(time.perf_counter() - loaded)
        assert len(suite.scenarios) == args.rows
        assert len(distinct) == args.rows
    median = statistics.median(loads)
    print(
        f"{args.rows} rows ({args.format}): load + validate median {median:.2f} s "
        f"(fastest {min(loads):.2f} s, {1e6 * min(loads) / args.rows:.0f} µs/row); "
        f"config hash of every scenario median {statistics.median(hashes):.2f} s "
        f"({args.repeats} repeats)"
    )


if __name__ == "__main__":
    main()
