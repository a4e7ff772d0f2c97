"""Benchmark: compare (and, once it exists, report) for 100 scenarios x 50 runs per batch.

Target: compare + report <= 10 s on 2 cores, also with a 5-batch baseline history
(``--history 5``: the baseline is 5 promoted batches of 50 runs, pooled: 250 runs per scenario
against 50, with the agreement test of the batches).

Run: python benchmarks/bench_compare.py [--scenarios 100] [--runs 50] [--repeat 3] [--history K]
     [--explain changed|all|none]
Prints wall and CPU time per step (median over repeats) for every step in ``STEPS``; a report
step is added by appending ``("report", fn)`` where ``fn(comparison)`` renders the report.

The synthetic run sets are realistic in shape: per-scenario pass and crash rates, a few harness
errors and timeouts, tool sequences from a per-scenario Markov chain (so sequences repeat but
vary), steps tied to tool calls, log-normal tokens (CV 0.3) and latency (CV 0.4).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from trajguard.comparison import CompareConfig, Comparison, compare_runsets

TOOLS = ("search", "calculator", "get_weather", "read_file", "write_file", "final_answer")


def scenario_params(n_scenarios: int, seed: int) -> list[dict[str, Any]]:
    """True per-scenario behaviour, shared by a baseline and a candidate batch."""
    rng = np.random.default_rng(seed)
    params = []
    for s in range(n_scenarios):
        transitions = rng.dirichlet(np.full(len(TOOLS), 0.4), size=len(TOOLS))
        params.append(
            {
                "scenario": f"scenario_{s:03d}",
                "pass": float(rng.uniform(0.3, 0.98)),
                "crash": float(rng.uniform(0.0, 0.08)),
                "calls": float(rng.uniform(1.0, 5.0)),
                "start": rng.dirichlet(np.ones(len(TOOLS))),
                "transitions": transitions,
                "prompt": float(rng.uniform(6.0, 8.0)),
                "completion": float(rng.uniform(4.0, 6.0)),
                "latency": float(rng.uniform(0.0, 1.5)),
            }
        )
    return params


def make_runs(
    params: list[dict[str, Any]],
    runs: int,
    seed: int,
    *,
    pass_shift: float = 0.0,
    batch_id: str | None = None,
) -> pd.DataFrame:
    """One batch: ``runs`` rows per scenario drawn from ``params`` (pass rate minus a shift)."""
    rng = np.random.default_rng(seed)
    rows = []
    index: dict[str, int] = {}
    sd_tokens, sd_latency = np.sqrt(np.log1p(0.3**2)), np.sqrt(np.log1p(0.4**2))
    for p in params:
        for _ in range(runs):
            roll = rng.random()
            status = (
                "harness_error"
                if roll < 0.01
                else "timeout"
                if roll < 0.015
                else "agent_error"
                if roll < 0.015 + p["crash"]
                else "ok"
            )
            calls = 1 + int(rng.poisson(p["calls"]))
            seq = [int(rng.choice(len(TOOLS), p=p["start"]))]
            for _ in range(calls - 1):
                seq.append(int(rng.choice(len(TOOLS), p=p["transitions"][seq[-1]])))
            names = [TOOLS[i] for i in seq]
            run_index = index[p["scenario"]] = index.get(p["scenario"], -1) + 1
            rows.append(
                {
                    "run_id": f"{p['scenario']}/main/{run_index}",
                    "run_index": run_index,
                    "scenario": p["scenario"],
                    "batch_id": batch_id or f"b{seed}",
                    "variant": "main",
                    "status": status,
                    "passed": (
                        bool(rng.random() < max(0.0, p["pass"] - pass_shift))
                        if status == "ok"
                        else None
                        if status != "agent_error"
                        else False
                    ),
                    "failed_criteria": _failed(status, names),
                    "step_count": 2 * calls + 1,
                    "tool_sequence": names,
                    "tool_counts": {t: names.count(t) for t in set(names)},
                    "prompt_tokens": int(rng.lognormal(p["prompt"] + 0.05 * calls, sd_tokens)),
                    "completion_tokens": int(rng.lognormal(p["completion"], sd_tokens)),
                    "duration_s": float(rng.lognormal(p["latency"], sd_latency)),
                }
            )
    return pd.DataFrame(rows)


def _failed(status: str, names: list[str]) -> list[str]:
    """What a failed run's criteria say, derived from its tools (no draw from the generator, so
    the data of every other column is what it was before criteria were added)."""
    if status == "agent_error":
        return ["no crash: the run ended as agent_error"]
    if TOOLS[0] not in names:
        return [f"tool_called: {TOOLS[0]} called 0 times, expected 1..∞"]
    return [f"max_steps: {2 * len(names) + 1} steps, expected at most {2 * len(names)}"]


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def step_compare(baseline: pd.DataFrame, candidate: pd.DataFrame) -> Comparison:
    return compare_runsets(baseline, candidate, config=CompareConfig())


# Steps after compare take the comparison: the report document and its markdown, then its plots,
# as `compare` does (the plot steps draw from the document the report step built).
STEPS: list[tuple[str, Callable[[Comparison], Any]]] = []
_SIDES: dict[str, Any] = {}


def step_report(comparison: Comparison) -> str:
    """The report document (built once from the run sets, as `compare` does, with the default
    plots linked) and the markdown rendered from it; the document is kept for the plot steps."""
    from trajguard.pipeline import plotted_scenarios
    from trajguard.report import build_document, render_report
    from trajguard.results import ReportKind
    from trajguard.store import RunSet

    manifest = {"suite": "bench", "models": ["local/smollm2"]}
    document = build_document(
        comparison,
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="baseline", manifest=manifest, runs=_SIDES["baseline"]),
        candidate=RunSet(path="candidate", manifest=manifest, runs=_SIDES["candidate"]),
        plots=plotted_scenarios(comparison),
        command="trajguard compare baseline candidate",
        explain=_SIDES["explain"],
    )
    _SIDES["document"] = document
    return render_report(document)


def _plots(comparison: Comparison, *, all_plots: bool) -> list[Any]:
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from trajguard.report import plot_path, write_plots

    document = _SIDES["document"]
    if all_plots:
        document = replace(
            document, plots={s.scenario: plot_path(s.scenario) for s in comparison.scenarios}
        )
    with tempfile.TemporaryDirectory() as folder:
        return write_plots(Path(folder), document)


def step_json(comparison: Comparison) -> str:
    """comparison.json's text: the document the report step built, as every comparison now
    writes it beside its report."""
    from trajguard.results import document_json

    return document_json(_SIDES["document"])


# "plots" is what `compare` draws by default (changed scenarios only above 20 scenarios);
# "all-plots" is `compare --all-plots`, reported apart from the target.
STEPS += [
    ("report", step_report),
    ("json", step_json),
    ("plots", lambda c: _plots(c, all_plots=False)),
    ("all-plots", lambda c: _plots(c, all_plots=True)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", type=int, default=1, metavar="K")
    parser.add_argument(
        "--explain",
        choices=("changed", "all", "none"),
        default="changed",
        help="scenarios the report explains (default: the changed ones, as compare does)",
    )
    args = parser.parse_args()
    params = scenario_params(args.scenarios, seed=1)
    # One batch: the seed the figures in RESULTS.md were measured with; K batches: one each.
    seeds = [2] if args.history == 1 else [10 + k for k in range(args.history)]
    baseline = pd.concat(
        [make_runs(params, args.runs, seed=s, batch_id=f"night{s}") for s in seeds],
        ignore_index=True,
    )
    candidate = make_runs(params, args.runs, seed=3)
    _SIDES.update(baseline=baseline, candidate=candidate, explain=args.explain)
    print(
        f"{args.scenarios} scenarios x {args.runs} runs per batch, {args.history}-batch baseline "
        f"({len(baseline)} + {len(candidate)} rows), {args.repeat} repeats"
    )
    times: dict[str, list[tuple[float, float]]] = {"compare": []}
    comparison = None
    for _ in range(args.repeat):
        comparison, wall, cpu = timed(lambda: step_compare(baseline, candidate))
        times["compare"].append((wall, cpu))
        for name, fn in STEPS:
            _, wall, cpu = timed(lambda fn=fn, done=comparison: fn(done))
            times.setdefault(name, []).append((wall, cpu))
    # The first repeat is what a fresh `trajguard compare` process pays (cold exact-test caches).
    total_cold = 0.0
    for name, values in times.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        if name != "all-plots":
            total_cold += values[0][0]
        print(
            f"{name:>8}: first run wall {values[0][0]:6.2f} s cpu {values[0][1]:6.2f} s | "
            f"median wall {wall:6.2f} s cpu {cpu:6.2f} s"
        )
    print(
        f"   total: first run wall {total_cold:6.2f} s   (compare + report + json + default plots; "
        "target <= 10 s on 2 cores; all-plots excluded)"
    )
    assert comparison is not None
    print(
        f"verdict {comparison.verdict.value}; {comparison.gating_tests} gating and "
        f"{comparison.diagnostic_tests} diagnostic tests; {len(comparison.drift)} drift tests"
    )


if __name__ == "__main__":
    main()
