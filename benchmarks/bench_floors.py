"""Calibration of floors (issue 39, item 2): how often a floor is met when the true rate sits
exactly at it (target: at most alpha = 5 %, i.e. the floor fails on >= 95 % of nights), and
how often it is met above it (power), at N = 10, 20, 40 runs a night.

    python benchmarks/bench_floors.py --nights 4000

Prints:
1. At the floor, simulated: the share of nights a pass-rate floor is met when the true rate
   equals it, through trajguard.comparison.check_floors (every night one arm), beside the exact
   binomial figure; and the same for Wilson's one-sided bound (the bound not chosen).
2. Power: the exact chance of meeting a floor of 0.8 (and 0.5) at true rates above it, with a
   simulated check of one point per N.
3. Crash ceilings: met at the ceiling (5 %), and at a crash rate of 0.
4. Real runs, resampled (benchmarks/data/real-nights-2026-12-01, the baseline and the five
   unedited nights pooled per scenario: 120 runs each): each scenario's floor set to its pooled
   pass rate (the resampling distribution's true rate), N runs drawn with replacement per
   night: the share of nights met, per scenario and for the suite (every scenario must meet
   its floor: the intersection-union gate); and the power with the floor 10 and 20 points
   below the pooled rate. The crash ceiling likewise at each scenario's pooled crash rate.
5. Cost ceilings (no real costs exist: the embedded model is free): simulated costs (lognormal
   of several spreads, and a two-point mix of cheap runs and expensive ones): the share of
   nights the Student t bound of the mean meets a ceiling the true mean sits at (the bound not
   chosen), and the share the bar kept meets its ceiling when the true 80th percentile sits at
   it (share_within_cost 0.8).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from trajguard.comparison import FloorBars, FloorState, check_floors
from trajguard.outcome import classify
from trajguard.stats import lower_rate_bound, wilson_interval

REAL = Path(__file__).parent / "data" / "real-nights-2026-12-01"
CALM = ("baseline", *(f"unedited-seed{i}" for i in range(1, 6)))
SIZES = (10, 20, 40)
CONF = 0.95


def _table(passed: np.ndarray, crashed: np.ndarray | None = None, cost=None) -> pd.DataFrame:
    """``passed`` is nights x N; every night becomes one scenario of one table."""
    nights, n = passed.shape
    crashed = np.zeros_like(passed) if crashed is None else crashed
    frame = pd.DataFrame(
        {
            "scenario": np.repeat([f"night{i}" for i in range(nights)], n),
            "status": np.where(crashed.ravel(), "crash", "ok"),
            "passed": passed.ravel() & ~crashed.ravel(),
            "crashed": crashed.ravel(),
        }
    )
    if cost is not None:
        frame["cost_usd"] = cost.ravel()
    return frame


def _met_share(table: pd.DataFrame, bars: FloorBars, nights: int) -> float:
    result = check_floors(table, {f"night{i}": bars for i in range(nights)})
    return float(np.mean([c.state is FloorState.MET for c in result.checks]))


def _exact_met(n: int, rate: float, floor: float, bound=lower_rate_bound) -> float:
    """The exact chance that the bound of k of n reaches the floor when the rate is ``rate``."""
    ks = [k for k in range(n + 1) if bound(k, n) >= floor]
    return float(stats.binom.sf(ks[0] - 1, n, rate)) if ks else 0.0


def _cp_low(k: int, n: int) -> float:
    return lower_rate_bound(k, n, CONF)


EIGHTY = FloorBars(min_pass_rate=0.8)


def _wilson_low(k: int, n: int) -> float:
    return wilson_interval(k, n, 1 - 2 * (1 - CONF))[0]  # one-sided 95 %: two-sided 90 %


def at_the_floor(nights: int, rng: np.random.Generator) -> list[str]:
    out = [
        "| floor | N | met, simulated (check_floors) | met, exact | Wilson's bound, exact |",
        "|---:|---:|---:|---:|---:|",
    ]
    for floor in (0.5, 0.7, 0.8, 0.9):
        for n in (*SIZES, 100):
            passed = rng.random((nights, n)) < floor
            simulated = _met_share(_table(passed), FloorBars(min_pass_rate=floor), nights)
            exact = _exact_met(n, floor, floor, _cp_low)
            wilson = _exact_met(n, floor, floor, _wilson_low)
            out.append(
                f"| {floor} | {n} | {100 * simulated:.2f}% | {100 * exact:.2f}% | "
                f"{100 * wilson:.2f}% |"
            )
    floors = np.arange(0.05, 0.96, 0.05)

    def largest(bound, smallest_n: int) -> str:
        worst, n, f = max(
            (_exact_met(n, f, f, bound), n, f) for f in floors for n in range(smallest_n, 201)
        )
        return f"{100 * worst:.2f}% (N = {n}, floor {f:.2f})"

    out.append("")
    out.append(
        "Largest exact chance of meeting a floor the true rate only reaches, over floors "
        "0.05..0.95 (step 0.05): Clopper-Pearson, N = 1..200: "
        f"{largest(_cp_low, 1)} (target <= 5%); Wilson, N = 1..200: {largest(_wilson_low, 1)}; "
        f"N = 10..200: {largest(_wilson_low, 10)}; N = 20..200: {largest(_wilson_low, 20)}."
    )
    return out


def power(nights: int, rng: np.random.Generator) -> list[str]:
    out = []
    for floor, rates in ((0.8, (0.8, 0.85, 0.9, 0.95, 1.0)), (0.5, (0.5, 0.6, 0.7, 0.8, 0.9))):
        out += [
            "",
            f"Floor {floor}: chance a night meets it (exact; N runs at the true rate)",
            "",
            "| true rate | " + " | ".join(f"N = {n}" for n in SIZES) + " |",
            "|---:|" + "---:|" * len(SIZES),
        ]
        for rate in rates:
            cells = [f"{100 * _exact_met(n, rate, floor, _cp_low):.1f}%" for n in SIZES]
            out.append(f"| {rate} | " + " | ".join(cells) + " |")
    checks = []
    for n in SIZES:
        passed = rng.random((nights, n)) < 0.95
        checks.append(f"N = {n}: {100 * _met_share(_table(passed), EIGHTY, nights):.1f}%")
    out += [
        "",
        "Simulated through check_floors at a true rate of 0.95, floor 0.8: " + "; ".join(checks),
    ]
    return out


def crash_ceiling(nights: int, rng: np.random.Generator) -> list[str]:
    out = [
        "| N | met at a true crash rate of 5% (ceiling 5%), simulated | exact | met at 0 crashes |",
        "|---:|---:|---:|---:|",
    ]
    for n in (*SIZES, 59, 100):
        crashed = rng.random((nights, n)) < 0.05
        table = _table(np.ones((nights, n), dtype=bool), crashed)
        simulated = _met_share(table, FloorBars(max_crash_rate=0.05), nights)
        exact = _exact_met(n, 0.95, 0.95, _cp_low)
        clean = _exact_met(n, 1.0, 0.95, _cp_low)
        out.append(f"| {n} | {100 * simulated:.2f}% | {100 * exact:.2f}% | {100 * clean:.0f}% |")
    return out


def _real_pool() -> pd.DataFrame:
    runs = pd.concat([pd.read_parquet(REAL / name / "runs.parquet") for name in CALM])
    return runs[["scenario", "status", "passed", "crashed"]].reset_index(drop=True)


def _resampled(pool: pd.DataFrame, n: int, nights: int, rng: np.random.Generator) -> pd.DataFrame:
    """Per scenario and night, n rows drawn with replacement; the scenario named
    ``<scenario>@<night>``."""
    parts = []
    for scenario, rows in pool.groupby("scenario"):
        picks = rows.iloc[rng.integers(0, len(rows), size=nights * n)].copy()
        picks["scenario"] = [f"{scenario}@{i}" for i in np.repeat(np.arange(nights), n)]
        parts.append(picks)
    return pd.concat(parts, ignore_index=True)


def real(nights: int, rng: np.random.Generator) -> list[str]:
    pool = _real_pool()
    outcomes = classify(pool)  # agent_error is a crash (its `crashed` column is false here)
    judged = pd.Series(outcomes.passed[outcomes.judged], index=pool["scenario"][outcomes.judged])
    rates = judged.groupby(level=0).mean().astype(float)
    crashes = pd.Series(outcomes.crashed, index=pool["scenario"]).groupby(level=0).mean()
    out = [
        "Pooled rates (120 runs each): "
        + ", ".join(
            f"{s} passes {100 * r:.1f}%, crashes {100 * crashes[s]:.1f}%" for s, r in rates.items()
        ),
        "",
        "| N | scenario | met at its floor (= pooled rate) | met, floor 10 pts below | met, "
        "floor 20 pts below | crash ceiling at the pooled crash rate: met |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for n in SIZES:
        table = _resampled(pool, n, nights, rng)
        suite_met = np.ones(nights, dtype=bool)
        for scenario, rate in rates.items():
            names = [f"{scenario}@{i}" for i in range(nights)]
            cells = []
            for below in (0.0, 0.1, 0.2):
                floor = rate - below
                if floor <= 0:
                    cells.append("—")
                    continue
                bars = FloorBars(min_pass_rate=floor)
                result = check_floors(table, dict.fromkeys(names, bars))
                met = np.array([c.state is FloorState.MET for c in result.checks])
                if below == 0.0:
                    suite_met &= met
                cells.append(f"{100 * met.mean():.2f}%")
            ceiling = float(crashes[scenario])
            if ceiling > 0:
                result = check_floors(
                    table, dict.fromkeys(names, FloorBars(max_crash_rate=ceiling))
                )
                met = np.mean([c.state is FloorState.MET for c in result.checks])
                cells.append(f"{100 * met:.2f}%")
            else:
                cells.append("— (no crash in the pool)")
            out.append(f"| {n} | {scenario} | " + " | ".join(cells) + " |")
        out.append(
            f"| {n} | **suite** (all 4 at their floors) | {100 * suite_met.mean():.2f}% | | | |"
        )
    return out


def _t_met(costs: np.ndarray, ceiling: float) -> float:
    """The share of nights (rows) whose Student t upper bound of the mean is within the ceiling
    (the bound not chosen)."""
    n = costs.shape[1]
    upper = costs.mean(axis=1) + stats.t.ppf(CONF, n - 1) * costs.std(axis=1, ddof=1) / np.sqrt(n)
    return float(np.mean(upper <= ceiling))


def cost(nights: int, rng: np.random.Generator) -> list[str]:
    """Lognormal costs of several spreads and a two-point mix: the t bound of the mean with the
    true mean at the ceiling, and the bar kept (the share of runs within the ceiling) with the
    true 80th percentile at the ceiling."""
    shapes = {
        "lognormal, sigma 0.25": (lambda size: rng.lognormal(0.0, 0.25, size), "lognorm", 0.25),
        "lognormal, sigma 0.5": (lambda size: rng.lognormal(0.0, 0.5, size), "lognorm", 0.5),
        "lognormal, sigma 1.0": (lambda size: rng.lognormal(0.0, 1.0, size), "lognorm", 1.0),
        "80% at 1, 20% at 6": (
            lambda size: np.where(rng.random(size) < 0.8, 1.0, 6.0),
            "mix",
            0.0,
        ),
    }
    out = [
        "| costs | bar | " + " | ".join(f"N = {n}" for n in SIZES) + " |",
        "|---|---|" + "---:|" * len(SIZES),
    ]
    for label, (draw, family, sigma) in shapes.items():
        mean = np.exp(sigma**2 / 2) if family == "lognorm" else 2.0
        p80 = np.exp(sigma * stats.norm.ppf(0.8)) if family == "lognorm" else 1.0
        t_cells, share_cells = [], []
        for n in SIZES:
            costs = draw((nights, n))
            t_cells.append(f"{100 * _t_met(costs, mean):.2f}%")
            table = _table(np.ones((nights, n), dtype=bool), cost=costs)
            bars = FloorBars(max_cost_usd_per_run=float(p80))
            share_cells.append(f"{100 * _met_share(table, bars, nights):.2f}%")
        out.append(
            f"| {label} | t bound of the mean, mean = ceiling | " + " | ".join(t_cells) + " |"
        )
        out.append(
            f"| {label} | share within the ceiling ≥ 80%, 80th percentile = ceiling (kept) | "
            + " | ".join(share_cells)
            + " |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    for title, part in (
        ("1. A pass-rate floor when the true rate sits exactly at it", at_the_floor),
        ("2. Power above the floor", power),
        ("3. Crash ceilings", crash_ceiling),
        ("4. Real runs, resampled", real),
        ("5. Cost ceilings (simulated costs)", cost),
    ):
        print(f"\n### {title} ({args.nights} nights a cell)\n")
        print("\n".join(part(args.nights, rng)))
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
