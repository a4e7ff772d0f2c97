"""Benchmark: the HTML report of a 100-scenario x 50-run comparison with a 5-batch history.

Targets (issue 23): report.html <= 10 MB, and interactive (the run explorer's table drawn)
<= 3 s after navigation in headless Chromium on 2 cores.

Run: python benchmarks/bench_html.py [--scenarios 100] [--runs 50] [--history 5] [--repeat 3]
     [--keep DIR]
The run sets are bench_compare's synthetic batches (same generator and seeds) with an ATIF
trajectory per run shaped like the real model's (agent with tool definitions, system prompt,
user message, one agent step per tool call with its arguments and result, the final answer;
about 2.5 kB each), written with the store's writer; the history is promoted with
``trajguard baseline promote``'s library call. Prints the file's size, the time of each step
(`compare` end to end with and without the page, the run payload, the figures, the page), and
the time to interactive in Chromium (median over ``--repeat`` loads).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from bench_compare import TOOLS, make_runs, scenario_params

from trajguard import pipeline, store

_SYSTEM = (
    "You are a helpful assistant. Look facts up with the tools before answering.\n\nYou can "
    "use these tools:\n"
    + "\n".join(f"- {t}(query: string): {t.replace('_', ' ')} for the task." for t in TOOLS)
    + "\n\nReply with one JSON object. To use a tool, set tool to the tool name."
)
_DEFINITIONS = [
    {"type": "function", "function": {"name": t, "description": f"{t} tool", "parameters": {}}}
    for t in TOOLS
]


def _trajectory(row: dict[str, Any], rng: np.random.Generator) -> str:
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "system", "message": _SYSTEM},
        {"step_id": 2, "source": "user", "message": f"Task of {row['scenario']}: look it up."},
    ]
    for i, tool in enumerate(row["tool_sequence"]):
        call = f"call_{i}"
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "agent",
                "model_name": "smollm2",
                "message": "",
                "metrics": {"prompt_tokens": int(rng.integers(100, 400)), "completion_tokens": 20},
                "tool_calls": [
                    {
                        "tool_call_id": call,
                        "function_name": tool,
                        "arguments": {"query": f"q{int(rng.integers(0, 10_000))}"},
                    }
                ],
                "observation": {
                    "results": [
                        {"source_call_id": call, "content": f"result {rng.integers(0, 1e9)}"}
                    ]
                },
            }
        )
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "The answer is 42."})
    trajectory = {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "bench-agent", "version": "1", "tool_definitions": _DEFINITIONS},
        "steps": steps,
    }
    return json.dumps(trajectory, separators=(",", ":"), sort_keys=True)


def _write(path: Path, frame: pd.DataFrame, batch: str, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    rows = []
    for row in frame.to_dict("records"):
        row = {k: v for k, v in row.items() if not (isinstance(v, float) and np.isnan(v))}
        row.update(batch_id=batch, suite="bench", model="local/smollm2")
        row["config_hash"] = f"hash-{row['scenario']}"  # one definition: the history pools
        row["trajectory"] = _trajectory(row, rng)
        row["final_output"] = "The answer is 42."
        rows.append(row)
    store.write_runs(path / store.RUNS_FILE, rows)
    store.write_manifest(
        path,
        {"suite": "bench", "status": "finished", "batch_id": batch, "models": ["local/smollm2"]},
    )
    return path


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _interactive(page_file: Path, repeat: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for _ in range(repeat):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_file.resolve().as_uri(), wait_until="commit")
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
            times.append(page.evaluate("performance.now()") / 1000)
            rows = page.locator("#runs tbody tr").count()
            assert rows > 0, "the explorer drew no row"
            page.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--history", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the run sets and report here")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-html-"))
    params = scenario_params(args.scenarios, seed=1)
    for k in range(args.history):  # oldest first: the last promoted is the latest
        seed = 10 + k
        night = _write(
            root / f"night{k}", make_runs(params, args.runs, seed=seed), f"night{seed}", seed
        )
        store.promote(night, baselines=root / "baselines", keep=args.history, force=True)
    # the candidate breaks 5 scenarios (pass rate 40 points lower): they are plotted
    broken = [p | {"pass": max(0.0, p["pass"] - 0.4)} if i < 5 else p for i, p in enumerate(params)]
    candidate = _write(root / "candidate", make_runs(broken, args.runs, seed=3), "cand", 3)
    baseline = root / "baselines" / "bench"
    config = pipeline.ReportOptions(command="trajguard compare baselines/bench candidate")

    def run(html: bool) -> pipeline.CompareOutcome:
        options = pipeline.ReportOptions(command=config.command, html=html)
        out = root / ("report" if html else "report-no-html") / "report.md"
        return pipeline.compare(baseline, candidate, report=out, options=options)

    _, without = _timed(lambda: run(False))
    outcome, with_html = _timed(lambda: run(True))
    page_file = outcome.report.with_name("report.html")
    size = page_file.stat().st_size

    from trajguard.pipeline._compare import load_baseline
    from trajguard.pipeline._outputs import run_payload
    from trajguard.report import draw_figures
    from trajguard.report.html import render_html

    cand_set = store.load_runset(candidate)
    base_set, _ = load_baseline(baseline, cand_set)
    payload, t_payload = _timed(lambda: run_payload(outcome.document, base_set, cand_set))
    figures, t_figures = _timed(lambda: draw_figures(outcome.document))
    _, t_page = _timed(lambda: render_html(outcome.document, runs=payload, figures=figures))
    interactive = _interactive(page_file, args.repeat)
    n_base = len(base_set.runs)
    print(
        f"{args.scenarios} scenarios x {args.runs} runs, {args.history}-batch history "
        f"({n_base} + {len(cand_set.runs)} runs in the page; {len(figures)} figures)"
    )
    print(f"report.html: {size / 1e6:.2f} MB (target <= 10 MB)")
    print(f"compare end to end: {with_html:.2f} s with report.html, {without:.2f} s without")
    print(f"  run payload {t_payload:.2f} s, figures {t_figures:.2f} s, page {t_page:.2f} s")
    print(
        f"time to interactive in headless Chromium: median {statistics.median(interactive):.2f} s "
        f"(all: {', '.join(f'{t:.2f}' for t in interactive)}; target <= 3 s)"
    )
    print(f"verdict {outcome.comparison.verdict.value}; page at {page_file}")


if __name__ == "__main__":
    main()
