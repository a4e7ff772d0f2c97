"""The demo nightly workload on the embedded model: the previous server settings against the
current ones, side by side in one invocation (same seeds, alternating, several repeats).

"before" is how the embedded model was served until 2026-12-01: one llama.cpp server for the
whole batch, 2 threads (prompt evaluation on every core), the logits of every prompt token
kept, the batch's concurrent runs taking turns on it. "after" is the default now: one
single-threaded server per concurrent run (a slot), only the last token's logits. Each batch is
`run_batch` on `suites/demo.yaml` (what `trajguard nightly` runs) into a temporary run set, on
freshly started servers; the servers' own counters say how many prompt tokens they actually
computed (the rest came from their prefix cache).

    python benchmarks/bench_nightly_speed.py [--runs 20] [--repeat 3] [--settings before after]
    python benchmarks/bench_nightly_speed.py --behaviour DIR [--runs 20]

``--behaviour DIR`` instead runs one batch under each setting with different batch seeds into
DIR/before and DIR/after and compares them as `trajguard compare DIR/before DIR/after` does:
the new settings must not change the agent's behaviour.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from trajguard import store
from trajguard.local_model import (
    configure_local_servers,
    running_local_server,
    stop_local_server,
)
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

_BEFORE = {"n_threads": 2, "n_threads_batch": 2, "logits_all": True, "max_slots": 1}
SETTINGS: dict[str, dict[str, object]] = {
    "before": _BEFORE,
    # What each change does alone (for the record; the default is "after").
    "last-logits": {**_BEFORE, "logits_all": False},
    "ram-cache": {**_BEFORE, "logits_all": False, "extra_args": ("--cache", "True")},
    "after": {"n_threads": 1, "n_threads_batch": None, "logits_all": False, "max_slots": None},
}
SUITE = Path(__file__).resolve().parents[1] / "suites" / "demo.yaml"


def one_batch(label: str, runs: int, seed: int, out: Path) -> dict[str, float]:
    previous = configure_local_servers(**SETTINGS[label])
    stop_local_server()
    try:
        suite = load_suite(SUITE)
        started = time.perf_counter()
        result = asyncio.run(run_batch(suite, out, BatchOptions(runs=runs, seed=seed)))
        wall = time.perf_counter() - started
        counters = [s.counters() for slot in range(8) if (s := running_local_server(slot))]
    finally:
        stop_local_server()
        configure_local_servers(**vars(previous))
    planned = result.planned
    rows = store.read_runs(out)
    evaluated = sum(c["evaluated"] - c["sampled"] for c in counters)
    return {
        "wall_s": wall,
        "per_run_s": wall / planned,
        "prompt_sent_per_run": float(rows["prompt_tokens"].sum()) / planned,
        "prompt_evaluated_per_run": evaluated / planned,
        "servers": len(counters),
        "passed": float(rows["passed"].fillna(False).astype(bool).mean()),
    }


def behaviour(folder: Path, runs: int, seed: int) -> None:
    from trajguard.pipeline import ReportOptions, compare

    for offset, label in enumerate(("before", "after")):
        out = folder / label
        shutil.rmtree(out, ignore_errors=True)
        figures = one_batch(label, runs, seed + 1000 * (offset + 1), out)
        print(f"{label}: {figures['wall_s']:.1f} s, pass {100 * figures['passed']:.0f}%")
    outcome = compare(
        folder / "before",
        folder / "after",
        report=folder / "report.md",
        options=ReportOptions(plots=False),
    )
    print(outcome.headline)
    flagged = [
        f"{s.scenario}: {m.metric} {m.verdict.value}"
        for s in outcome.comparison.scenarios
        for m in s.metrics
        if m.verdict.value in ("regressed", "improved", "changed")
    ]
    print("flagged: " + ("; ".join(flagged) if flagged else "nothing"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per scenario")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1201)
    parser.add_argument("--behaviour", type=Path, help="compare a batch of each setting here")
    parser.add_argument(
        "--settings", nargs="+", default=["before", "after"], choices=list(SETTINGS)
    )
    args = parser.parse_args()
    if args.behaviour is not None:
        behaviour(args.behaviour, args.runs, args.seed)
        return
    results: dict[str, list[dict[str, float]]] = {label: [] for label in args.settings}
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeat):
            for label in args.settings:
                out = Path(folder) / f"{label}-{repeat}"
                figures = one_batch(label, args.runs, args.seed + repeat, out)
                results[label].append(figures)
                print(
                    f"repeat {repeat + 1} {label}: {figures['wall_s']:.1f} s "
                    f"({figures['per_run_s']:.2f} s/run, prompt tokens per run sent "
                    f"{figures['prompt_sent_per_run']:.0f}, computed "
                    f"{figures['prompt_evaluated_per_run']:.0f}; {figures['servers']:.0f} "
                    f"server(s); pass {100 * figures['passed']:.0f}%; "
                    f"load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    medians = {
        label: {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        for label, rows in results.items()
    }
    for label, figures in medians.items():
        print(
            f"median {label}: {figures['wall_s']:.1f} s, {figures['per_run_s']:.2f} s/run, "
            f"prompt tokens per run sent {figures['prompt_sent_per_run']:.0f}, computed "
            f"{figures['prompt_evaluated_per_run']:.0f}"
        )
    if "after" in medians and "before" in medians:
        ratio = medians["after"]["wall_s"] / medians["before"]["wall_s"]
        print(f"after / before wall time: {ratio:.2f}")


if __name__ == "__main__":
    main()
