"""The budgeted design (issue 38, item 4) against fixed N, at equal total runs and at equal wall
time: the false-alarm rate of A/A nights, the power on the calibration benchmark's breaks, and
the number of blind scenarios.

Nights of 4 scenarios with a baseline of 20 runs per scenario (the demo's), two worlds:

* **simulated**, shaped like the demo (benchmarks/_demo_shaped.py): pass rates 20-45 %; the
  break is the weather_bot one of bench_power.py (2 of 4 scenarios lose 25 points, half their
  runs taken over by the wrong tool); A/A: the candidate is drawn like the baseline;
* **resampled real nights** (benchmarks/data/real-nights-2026-12-01): the baseline and the
  A/A candidate drawn with replacement from the 120 unedited runs per scenario (the baseline
  and the five unedited nights); the break's candidate from the 100 runs per scenario of the
  five edited nights (the real prompt edit: multiply -24, greeting -15 ... points).

Both designs are judged by the same gates: per scenario, pass rate down and crash rate up,
one-sided, Boschloo's exact test, a change beyond its band (10 / 5 points). **fixed N**: one look
at N runs per scenario at the Bonferroni share alpha / (4 x 2); **budget**: the budgeted design
(trajguard.comparison.BudgetedDesign) driven through the design protocol with the same total. (The
shipped fixed comparison's combined test and step-down family are a little more powerful than
this Bonferroni gate; the comparison isolates what the allocation and the looks do.) The budget
is either runs (equal total runs: N x 4) or seconds (equal wall time: each scenario's runs cost
its mean real duration, and the fixed night's time is the budget).

A scenario is **blind** when the runs it ended with give less than 80 % power against a drop of
its band at its true baseline rate, at the level its final test used (exact, Boschloo);
decided or not, that is what the night could have seen.

    python benchmarks/bench_budget_design.py --nights 100 --seed 1

(In the simulated world each night gives the four real durations to its scenarios in a random
order, so whether a broken scenario is a cheap one is left to chance.)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_shaped import make_batch, scenario_params

from trajguard import stats as st
from trajguard.comparison import CompareConfig
from trajguard.comparison._arms import split_runs
from trajguard.comparison._budget import BudgetedDesign, _crossed
from trajguard.comparison._designs import Look
from trajguard.store import read_runs

DATA = Path(__file__).resolve().parent / "data" / "real-nights-2026-12-01"
CONFIG = CompareConfig()
BASE_RUNS = 20
POOL = 400
"""Candidate runs drawn per scenario and night: more than any design here uses."""

# world(rng, broken) -> (baseline rows, candidate pool rows, true baseline pass rate per scenario)
World = Callable[[np.random.Generator, bool], tuple[pd.DataFrame, pd.DataFrame, dict[str, float]]]


def simulated(rng: np.random.Generator, broken: bool) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    params = scenario_params(4, rng, broken=(0, 1) if broken else ())
    base = make_batch(params, BASE_RUNS, rng)
    pool = make_batch(params, POOL, rng, candidate=True, batch_id="c")
    return base, pool, {p["scenario"]: p["pass"] for p in params}


_REAL: dict[str, pd.DataFrame] = {}


def _real(kind: str) -> pd.DataFrame:
    if kind not in _REAL:
        dirs = ["baseline", *(f"unedited-seed{i}" for i in range(1, 6))]
        if kind == "edited":
            dirs = [f"edited-seed{i}" for i in range(1, 6)]
        _REAL[kind] = pd.concat([read_runs(DATA / d) for d in dirs], ignore_index=True)
    return _REAL[kind]


def _draw(frame: pd.DataFrame, runs: int, rng: np.random.Generator, batch: str) -> pd.DataFrame:
    parts = []
    for _, group in frame.groupby("scenario", sort=True):
        picked = group.iloc[rng.integers(0, len(group), runs)].copy()
        picked["run_id"] = [f"{batch}-{i}" for i in range(runs)]
        picked["batch_id"] = batch
        parts.append(picked)
    return pd.concat(parts, ignore_index=True)


def resampled(rng: np.random.Generator, broken: bool) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    unedited = _real("unedited")
    base = _draw(unedited, BASE_RUNS, rng, "b")
    pool = _draw(_real("edited") if broken else unedited, POOL, rng, "c")
    truth = unedited.groupby("scenario")["passed"].mean().to_dict()
    return base, pool, {str(k): float(v) for k, v in truth.items()}


def durations() -> dict[str, float]:
    """Mean seconds of a run per scenario (the real baseline), in scenario order."""
    real = read_runs(DATA / "baseline").groupby("scenario")["duration_s"].mean()
    return {str(k): float(v) for k, v in real.items()}


def first_runs(pool: pd.DataFrame, runs: dict[str, int]) -> pd.DataFrame:
    """The first ``runs[s]`` candidate runs of each scenario."""
    index = pool.groupby("scenario").cumcount()
    return pool[index < pool["scenario"].map(runs).fillna(0)]


def blind(truth: dict[str, float], runs: dict[str, int], level: float) -> int:
    band = CONFIG.tolerance("pass_rate")
    count = 0
    for s, p in truth.items():
        n = runs.get(s, 0)
        if n < 1 or st.gate_power(p, max(0.0, p - band), BASE_RUNS, n, level, False) < 0.8:
            count += 1
    return count


def fixed_night(
    base: pd.DataFrame, pool: pd.DataFrame, truth: dict[str, float], n: dict[str, int]
) -> tuple[bool, int, int]:
    level = CONFIG.alpha / (len(truth) * 2)
    cand = first_runs(pool, n)
    b = split_runs(base, crash_statuses=CONFIG.crash_statuses)
    c = split_runs(cand, crash_statuses=CONFIG.crash_statuses)
    alarm = any(_crossed(b[s], c[s], level, CONFIG) for s in truth)
    return alarm, sum(n.values()), blind(truth, n, level)


def budget_night(
    base: pd.DataFrame,
    pool: pd.DataFrame,
    truth: dict[str, float],
    budget: float,
    cost: dict[str, float],
) -> tuple[bool, int, int]:
    design = BudgetedDesign(
        budget=budget, cost=cost, own_runs=dict.fromkeys(sorted(truth)), config=CONFIG
    )
    look: Look | None = design.first()
    while look is not None:
        look = design.after(look, base, first_runs(pool, dict(design.outcome.runs)))
    runs = dict(design.outcome.runs)
    level = design.outcome.thresholds[-1]
    return bool(design.outcome.regressed), sum(runs.values()), blind(truth, runs, level)


def measure(world: World, broken: bool, nights: int, seed: int, n: int, unit: str) -> str:
    rng = np.random.default_rng(seed)
    seconds = durations()
    tallies = {"fixed": [0, 0, 0], "budget": [0, 0, 0]}
    for _ in range(nights):
        base, pool, truth = world(rng, broken)
        names = sorted(truth)
        if world is simulated and unit == "time":  # which scenario (and break) is slow: chance
            per = dict(zip(names, rng.permutation(list(seconds.values())), strict=True))
        else:
            per = dict(zip(names, seconds.values(), strict=True))  # the real scenarios
        cost = per if unit == "time" else dict.fromkeys(names, 1.0)
        budget = sum(n * cost[s] for s in names)
        for name, result in (
            ("fixed", fixed_night(base, pool, truth, dict.fromkeys(names, n))),
            ("budget", budget_night(base, pool, truth, budget, cost)),
        ):
            tally = tallies[name]
            tally[0] += result[0]
            tally[1] += result[1]
            tally[2] += result[2]
    return " | ".join(
        f"{name}: alarms {t[0] / nights:.3f}, runs {t[1] / nights:.0f}, blind {t[2] / nights:.2f}"
        for name, t in tallies.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 60])
    parser.add_argument("--units", nargs="+", default=["runs", "time"], choices=["runs", "time"])
    parser.add_argument("--worlds", nargs="+", default=["simulated", "resampled"])
    args = parser.parse_args()
    started = time.perf_counter()
    worlds = {"simulated": simulated, "resampled": resampled}
    for world_name in args.worlds:
        world = worlds[world_name]
        for n in args.runs:
            for unit in args.units:
                for broken in (False, True):
                    kind = "break" if broken else "A/A"
                    figures = measure(world, broken, args.nights, args.seed, n, unit)
                    print(f"{world_name:9} N={n:3} equal {unit:4} {kind:5} | {figures}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
