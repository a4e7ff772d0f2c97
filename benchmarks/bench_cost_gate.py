"""Calibration of the cost gate (issue 38): its A/A false-alarm rate and its power against a
doubled cost and against doubled completion tokens, at the demo's N = 20 runs per scenario.

Run: python benchmarks/bench_cost_gate.py [--nights 200] [--power-nights 100] [--seed 0]
       [--kind simulated|"resampled real"|all] [--near-band]

Nights are compared by the engine (``compare_runsets``) with cost gating beside the default gates
(``--gate`` pass_rate, crash_rate, tool_usage, failing_paths, cost), at alpha 0.05, the cost band
its default (x1.15). Each run's cost is its tokens at gpt-4o-mini's price in litellm's bundled map
($0.15 / $0.60 per million prompt / completion tokens), as ``trajguard run`` prices it.

Two kinds of nights, 4 scenarios of 20 runs a side:

* simulated: ``bench_compare``'s nights (tokens lognormal, coefficient of variation 0.3);
* resampled real: the 80 runs of the real SmolLM2 baseline night in
  benchmarks/data/real-nights-2026-12-01/baseline, drawn with replacement per scenario into both
  sides (the real spread of prompt and completion tokens: long-tailed, runs of 137 to 3,378
  prompt tokens).

Changes: the candidate's cost doubled (x2), and its completion tokens doubled (the prompt edit of
the issue: its cost rises by the completion tokens' share of the cost only); with --near-band
also a x1.3 cost (just beyond the default band of x1.15).

Prints, per kind of night and change, the share of nights where cost regressed (in a scenario or
at the suite level) with its Wilson interval, and the share with any gating alarm.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import make_runs, scenario_params

from trajguard import stats as st
from trajguard.comparison import DEFAULT_GATING, CompareConfig, Verdict, compare_runsets
from trajguard.store import load_runset

PRICE = (0.15, 0.60)  # litellm's bundled map, gpt-4o-mini, US dollars per million tokens
REAL = Path(__file__).resolve().parent / "data" / "real-nights-2026-12-01" / "baseline"
CONFIG = CompareConfig(gating=DEFAULT_GATING | {"cost"})


def priced(
    runs: pd.DataFrame, *, cost_factor: float = 1.0, completion_factor: float = 1.0
) -> pd.DataFrame:
    out = runs.copy()
    out["completion_tokens"] = (out["completion_tokens"] * completion_factor).round()
    out["cost_usd"] = (
        (out["prompt_tokens"] * PRICE[0] + out["completion_tokens"] * PRICE[1]) / 1e6 * cost_factor
    )
    return out


def simulated(night: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    params = scenario_params(4, seed=seed * 100_003 + night)
    return make_runs(params, 20, seed=2 * night + 1), make_runs(params, 20, seed=2 * night + 2)


def resampled(real: pd.DataFrame, night: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng([seed, night])
    sides = []
    for _ in range(2):
        picks = [
            group.iloc[rng.integers(0, len(group), size=20)]
            for _, group in real.groupby("scenario", sort=True)
        ]
        side = pd.concat(picks, ignore_index=True)
        side["run_index"] = side.groupby("scenario").cumcount()
        side["run_id"] = side["scenario"] + "/base/" + side["run_index"].astype(str)
        sides.append(side)
    return sides[0], sides[1]


def cost_flagged(baseline: pd.DataFrame, candidate: pd.DataFrame) -> tuple[bool, bool]:
    """Whether cost regressed (a scenario's or the suite's), and whether any gate alarmed."""
    cmp = compare_runsets(baseline, candidate, config=CONFIG)
    scenario = any(
        m.metric == "cost" and m.verdict is Verdict.REGRESSED
        for s in cmp.scenarios
        for m in s.metrics
    )
    suite = any(
        t.metric == "cost" and t.verdict is Verdict.REGRESSED
        for t in (cmp.family.suite if cmp.family else ())
    )
    return scenario or suite, cmp.regressed


def share(hits: int, total: int) -> str:
    low, high = st.wilson_interval(hits, total)
    return f"{hits / total:.3f} ({hits}/{total}; 95% CI {low:.3f}-{high:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nights", type=int, default=200, help="A/A nights per kind")
    parser.add_argument("--power-nights", type=int, default=100, help="nights per change")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=("simulated", "resampled real", "all"), default="all")
    parser.add_argument("--near-band", action="store_true", help="also a x1.3 cost change")
    args = parser.parse_args()
    real = load_runset(REAL).runs
    kinds = {
        "simulated": lambda n: simulated(n, args.seed),
        "resampled real": lambda n: resampled(real, n, args.seed),
    }
    changes = {
        "A/A (no change)": ({}, args.nights),
        "cost x2": ({"cost_factor": 2.0}, args.power_nights),
        "completion tokens x2": ({"completion_factor": 2.0}, args.power_nights),
    }
    if args.near_band:
        changes["cost x1.3"] = ({"cost_factor": 1.3}, args.power_nights)
    if args.kind != "all":
        kinds = {args.kind: kinds[args.kind]}
    print(
        f"cost gate, alpha {CONFIG.alpha}, band x{CONFIG.tolerance('cost'):g}, "
        "4 scenarios x 20 runs"
    )
    for kind, draw in kinds.items():
        for label, (change, nights) in changes.items():
            if nights == 0:
                continue
            started = time.perf_counter()
            flagged = alarms = 0
            for night in range(nights):
                baseline, candidate = draw(night)
                hit, alarm = cost_flagged(priced(baseline), priced(candidate, **change))
                flagged += hit
                alarms += alarm
            seconds = time.perf_counter() - started
            print(
                f"{kind:15} {label:22} cost flagged {share(flagged, nights)}; "
                f"any gate {alarms / nights:.3f}  [{seconds:.0f} s]",
                flush=True,
            )


if __name__ == "__main__":
    main()
