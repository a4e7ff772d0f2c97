"""Benchmark: the report tail of `compare` (comparison → markdown, JUnit and plots), two checkouts
side by side in one run.

The data are bench_compare.py's (100 scenarios x 50 runs, a 5-batch baseline history by
default). Each checkout runs in its own process (its ``.venv``, or this interpreter on its
``src``), compares once, renders once to warm imports and caches, and then times ``--repeat``
times what `compare` does after the comparison: the report (with the report document, for a
checkout that has one: built from the run sets, then rendered), JUnit, and the plots of the first
``--plots`` scenarios. The processes alternate ``--rounds`` times (old, new, old, new, ...), so
both see the same load; the load average is printed with every process, and CPU time beside
wall time (on a busy machine it says more).

    python benchmarks/bench_report_tail.py --old /tmp/tg-old --new .
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs inside each checkout's environment; knows the report API before and after the document.
WORKER = r"""
import json, sys, tempfile, time
from pathlib import Path
import pandas as pd
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
from bench_compare import make_runs, scenario_params
from trajguard.comparison import CompareConfig, compare_runsets
import trajguard.report as rp
from trajguard.store import RunSet

scenarios, runs, history, repeat, plotted = map(int, sys.argv[2:7])
params = scenario_params(scenarios, seed=1)
seeds = [2] if history == 1 else [10 + k for k in range(history)]
baseline = pd.concat(
    [make_runs(params, runs, seed=s, batch_id=f"night{s}") for s in seeds], ignore_index=True
)
candidate = make_runs(params, runs, seed=3)
comparison = compare_runsets(baseline, candidate, config=CompareConfig())
manifest = {"suite": "bench", "models": ["local/smollm2"]}
sides = dict(
    baseline=RunSet(path="baseline", manifest=manifest, runs=baseline),
    candidate=RunSet(path="candidate", manifest=manifest, runs=candidate),
)
chosen = [s.scenario for s in comparison.scenarios][:plotted]
command = "trajguard compare baseline candidate"

if hasattr(rp, "build_document"):
    from trajguard.results import ReportKind

    def tail(folder):
        document = rp.build_document(
            comparison, kind=ReportKind.COMPARE, plots=chosen, command=command, **sides
        )
        rp.write_plots(folder, document)
        return rp.render_report(document), rp.junit_xml(document)
else:
    def tail(folder):
        links = rp.write_plots(folder, baseline, candidate, chosen)
        text = rp.render_report(comparison, plots=links, command=command, **sides)
        return text, rp.junit_xml(comparison, suite="bench")

times, cpu = [], []
with tempfile.TemporaryDirectory() as folder:
    texts = tail(Path(folder))  # warm: imports, matplotlib, caches
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        again = tail(Path(folder))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert again == texts
result = {"times": times, "cpu": cpu, "text": "\n".join(texts)}
Path(sys.argv[1]).write_text(json.dumps(result))
"""


def _run(checkout: Path, out: Path, args: argparse.Namespace) -> dict[str, object]:
    python = checkout / ".venv" / "bin" / "python"
    env = None
    if not python.exists():
        python = Path(sys.executable)
        env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    numbers = [args.scenarios, args.runs, args.history, args.repeat, args.plots]
    command = [str(python), "-c", WORKER, str(out), *map(str, numbers)]
    subprocess.run(command, cwd=checkout, check=True, timeout=3600, env=env)
    result: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, required=True)
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--history", type=int, default=5, metavar="K")
    parser.add_argument("--plots", type=int, default=10, help="scenarios plotted")
    parser.add_argument("--repeat", type=int, default=5, help="timed tails per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes per checkout")
    args = parser.parse_args()
    print(
        f"{args.scenarios} scenarios x {args.runs} runs, {args.history}-batch baseline; report, "
        f"JUnit and {args.plots} plots; {args.repeat} timed tails x {args.rounds} processes each"
    )
    times: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    texts: dict[str, set[str]] = {"old": set(), "new": set()}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for name in ("old", "new"):
                load = os.getloadavg()[0]
                checkout = (args.old if name == "old" else args.new).resolve()
                result = _run(checkout, Path(folder) / f"{name}.json", args)
                tails = [float(t) for t in result["times"]]  # type: ignore[attr-defined]
                times[name] += tails
                cpu[name] += [float(t) for t in result["cpu"]]  # type: ignore[attr-defined]
                texts[name].add(str(result["text"]))
                print(
                    f"round {round_ + 1} {name}: load {load:.2f}; tail median "
                    f"{statistics.median(tails):.3f} s (min {min(tails):.3f}, max {max(tails):.3f})"
                    f", cpu median {statistics.median(cpu[name][-len(tails) :]):.3f} s"
                )
    for label, values in (("wall", times), ("cpu", cpu)):
        old, new = statistics.median(values["old"]), statistics.median(values["new"])
        print(f"median tail {label}: old {old:.3f} s, new {new:.3f} s, new / old {new / old:.2f}")
    same = texts["old"] == texts["new"] and len(texts["new"]) == 1
    print("report and JUnit text: " + ("identical" if same else "DIFFERENT"))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
