"""Benchmark: what reading a ``comparison.json`` costs (issue 40: result types through pydantic).

Run: PYTHONPATH=src python benchmarks/bench_read_document.py [--repeat 5] [FILE ...]

Each step in a fresh interpreter (so imports and first-use costs count), median [min-max] of
``--repeat`` runs, in CPU seconds (user + system: on a shared machine wall-clock time measures
the neighbours):

* ``import trajguard.results``;
* ``read_document`` of each FILE once (import, parse, validate; the first read builds the
  adapter), and again warm (the second read in the same process);
* ``document_json`` of it, warm (the text written back);
* ``trajguard report FILE --no-plots`` (read and render report.md, report.html and JUnit).

Point ``PYTHONPATH`` at another checkout's ``src`` to time that one the same way.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = [
    REPO / "reports/sample-nightly/comparison.json",
    REPO / "reports/sample-ab/comparison.json",
]

READ = """
import json, sys, time
start = time.process_time()
from trajguard.results import document_json, read_document
text = open(sys.argv[1], encoding="utf-8").read()
imported = time.process_time()
document = read_document(text)
first = time.process_time()
read_document(text)
warm = time.process_time()
assert document_json(document) == text
written = time.process_time()
print(json.dumps({"import": imported - start, "first read": first - imported,
                  "warm read": warm - first, "write": written - warm}))
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str]) -> float:
    start = _cpu()
    subprocess.run([sys.executable, *args], check=True, capture_output=True)
    return _cpu() - start


def _show(name: str, times: list[float]) -> None:
    print(
        f"{name:>44}: median {1000 * statistics.median(times):7.0f} ms "
        f"[{1000 * min(times):.0f}-{1000 * max(times):.0f}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=SAMPLES)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _show(
        "python -c 'import trajguard.results'",
        [_run(["-c", "import trajguard.results"]) for _ in range(args.repeat)],
    )
    for file in args.files:
        print(f"{file.relative_to(REPO)} ({file.stat().st_size / 1024:.0f} KiB)")
        steps: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            out = subprocess.run(
                [sys.executable, "-c", READ, str(file)], check=True, capture_output=True, text=True
            )
            for name, seconds in json.loads(out.stdout).items():
                steps.setdefault(name, []).append(seconds)
        for name, times in steps.items():
            _show(name, times)
        with tempfile.TemporaryDirectory() as out_dir:
            command = ["-m", "trajguard.cli", "report", str(file), "--out", out_dir, "--no-plots"]
            _show(
                "trajguard report --no-plots (whole process)",
                [_run(command) for _ in range(args.repeat)],
            )


if __name__ == "__main__":
    main()
