"""Calibration of the trend's monitoring procedure (issue 36): the suite-level CUSUM of
``trajguard.nights`` on whole suites of nights, night by night from the first.

Suites of 4 and 20 scenarios, 20 runs a night, pass rates demo-shaped (20-45 %) with a crash
rate of 0-3 %; pass counts binomial or beta-binomial (intra-night correlation rho 0.1, 0.2);
or every night's runs resampled (with replacement) from the real SmolLM2 nights in
benchmarks/data/real-nights-2026-12-01 (the unedited nights and the baseline, pooled per
scenario; a 20-scenario suite repeats the four). Measured, with the threshold the product uses
for that many statistics (``trajguard.nights.threshold``):

1. A/A: the suite's in-control ARL (suite-nights per false alarm, restarting after each alarm
   as the product does; 95 % interval from the Poisson count) and the share of suites with an
   alarm in their first 60 nights;
2. a 20-point drop of one scenario from night k (k uniform in 20..59), series of k + 30
   nights: the share named within 5 nights (raised on nights k..k+4) and, of those, dated (a
   step's start, as the report at the series' end shapes it) within 2 of k;
3. a drift of 1 point a night from night k, series of k + 40 nights: the share whose first
   alarm from k on reads, at the series' end, as a drift (a drop) with its onset within 5
   nights of k.

    python benchmarks/bench_trend_monitor.py --suites 200 --nights 730
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2

from trajguard.nights import (
    change_scan,
    cusum,
    newcombe,
    shape_end,
    shape_of,
    spread_ratio,
    threshold,
    wilson,
)

REAL = Path(__file__).parent / "data" / "real-nights-2026-12-01"
CALM = ("baseline", *(f"unedited-seed{i}" for i in range(1, 6)))


def _pools() -> list[tuple[np.ndarray, np.ndarray]]:
    runs = pd.concat([pd.read_parquet(REAL / name / "runs.parquet") for name in CALM])
    return [
        (g["passed"].fillna(False).to_numpy(bool), g["crashed"].fillna(False).to_numpy(bool))
        for _, g in runs.groupby("scenario", sort=True)
    ]


def _rates(p: np.ndarray, rho: float, rng: np.random.Generator) -> np.ndarray:
    if rho <= 0:
        return p
    k = 1 / rho - 1
    inner = np.clip(p, 1e-6, 1 - 1e-6)
    return np.asarray(rng.beta(inner * k, (1 - inner) * k))


def _suite(
    scenarios: int,
    nights: int,
    *,
    source: str,
    rho: float,
    runs: int,
    rng: np.random.Generator,
    shift: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Pass and crash counts (scenarios x nights); ``shift`` is added to the pass rate."""
    shift = np.zeros((scenarios, nights)) if shift is None else shift
    if source == "real":
        pools = _pools()
        passes = np.empty((scenarios, nights))
        crashes = np.empty((scenarios, nights))
        for s in range(scenarios):
            passed, crashed = pools[s % len(pools)]
            pick = rng.integers(0, len(passed), (nights, runs))
            won = passed[pick]
            # a drop thins the resampled passes (each fails with probability -shift / rate),
            # so the nights keep the real runs' own noise, no second layer of it
            rate = max(float(passed.mean()), 1e-9)
            fail = np.clip(-shift[s] / rate, 0, 1)[:, None]
            passes[s] = (won & (rng.random((nights, runs)) >= fail)).sum(axis=1)
            crashes[s] = crashed[pick].sum(axis=1)
        return passes, crashes
    p0 = rng.uniform(0.2, 0.45, (scenarios, 1)) * np.ones((1, nights))
    p = _rates(np.clip(p0 + shift, 0, 1), rho, rng)
    crash = rng.uniform(0, 0.03, (scenarios, 1)) * np.ones((1, nights))
    crashes = rng.binomial(runs, crash)
    return rng.binomial(runs - crashes, p).astype(float), crashes.astype(float)


def _run(
    passes: np.ndarray, crashes: np.ndarray, runs: int, statistics: int, restart: bool = True
) -> tuple[list, float]:
    h = threshold(statistics)
    x = np.vstack([passes, crashes])
    n = np.full(x.shape, float(runs))
    sides = np.r_[np.zeros(len(passes), np.int64), np.ones(len(crashes), np.int64)]
    # one suite's streams of one metric share their spread's prior, as in the product
    suites = len(passes) // (statistics // 3)
    suite = np.repeat(np.arange(suites), statistics // 3)
    pool = np.r_[suite, suites + suite]
    return list(cusum(x, n, h=h, sides=sides, restart=restart, pool=pool).raised), h


def _share(hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"{hits / max(total, 1):.3f} ({low:.3f}-{high:.3f}; {hits}/{total})"


def aa(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    passes, crashes = [], []
    for _ in range(args.suites):
        x, c = _suite(scenarios, args.nights, source=source, rho=rho, runs=args.runs, rng=rng)
        passes.append(x)
        crashes.append(c)
    raised, h = _run(np.vstack(passes), np.vstack(crashes), args.runs, 3 * scenarios)
    alarms = len(raised)
    exposure = args.suites * args.nights
    low = exposure / (chi2.ppf(0.975, 2 * alarms + 2) / 2)
    high = exposure / (chi2.ppf(0.025, 2 * alarms) / 2) if alarms else float("inf")
    rows = args.suites * scenarios
    early = {(r.stream % rows) // scenarios for r in raised if r.night < 60}
    return (
        f"A/A {source} S={scenarios} rho={rho}: h {h:.2f}, {alarms} alarms in {exposure} "
        f"suite-nights: ARL {exposure / max(alarms, 1):.0f} (95% {low:.0f}-{high:.0f}); "
        f"suites alarmed in their first 60 nights {_share(len(early), args.suites)}"
    )


def drop(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    named = dated = 0
    series = args.series
    for _ in range(series):
        k = int(rng.integers(20, 60))
        nights = k + 30
        shift = np.zeros((scenarios, nights))
        shift[0, k:] = -0.2
        x, c = _suite(
            scenarios, nights, source=source, rho=rho, runs=args.runs, rng=rng, shift=shift
        )
        if source == "sim":
            x[0] = rng.binomial(
                args.runs,
                _rates(np.clip(np.r_[np.full(k, 0.45), np.full(nights - k, 0.25)], 0, 1), rho, rng),
            )
        raised, _ = _run(x, c, args.runs, 3 * scenarios)
        i = next((i for i, r in enumerate(raised) if r.stream == 0 and r.night >= k), None)
        if i is None or raised[i].night > k + 4:
            continue
        named += 1
        lo, hi = raised[i].since, shape_end(raised, i, nights)
        shape = shape_of(x[0, lo : hi + 1], np.full(hi + 1 - lo, float(args.runs)))
        dated += abs(lo + shape.start - k) <= 2
    return (
        f"20-point drop {source} S={scenarios} rho={rho}: named within 5 nights "
        f"{_share(named, series)}; dated within 2 nights of k {_share(dated, named)}"
    )


def drift(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    worded = 0
    series = args.series
    for _ in range(series):
        k = int(rng.integers(20, 60))
        nights = k + 40
        shift = np.zeros((scenarios, nights))
        shift[0, k:] = -0.01 * np.arange(1, nights - k + 1)
        x, c = _suite(
            scenarios, nights, source=source, rho=rho, runs=args.runs, rng=rng, shift=shift
        )
        if source == "sim":
            x[0] = rng.binomial(args.runs, _rates(np.clip(0.45 + shift[0], 0, 1), rho, rng))
        raised, _ = _run(x, c, args.runs, 3 * scenarios)
        i = next((i for i, r in enumerate(raised) if r.stream == 0 and r.night >= k), None)
        if i is None:
            continue
        lo, hi = raised[i].since, shape_end(raised, i, nights)
        shape = shape_of(x[0, lo : hi + 1], np.full(hi + 1 - lo, float(args.runs)))
        worded += shape.drift and not raised[i].rise and abs(lo + shape.start - k) <= 5
    return (
        f"1-point-a-night drift {source} S={scenarios} rho={rho}: worded a drift with onset "
        f"within 5 nights {_share(worded, series)}"
    )


def _beyond(k: float, n: float, bk: float, bn: float, band: float = 0.10) -> bool:
    d, low, high = newcombe(k, n, bk, bn)
    return (low > 0 or high < 0) and abs(d) > band


def drift_rule(args: argparse.Namespace, rho: float, rng) -> str:
    """The baseline drift line on A/A series of 30 nights against a 20-run baseline night:
    binomial counts (before) and flaky nights, the baseline's among them, counted as fewer
    runs (after)."""
    before = after = 0
    for _ in range(args.series):
        p = float(rng.uniform(0.2, 0.45))
        rates = _rates(np.full(31, p), rho, rng)
        x = rng.binomial(args.runs, rates).astype(float)
        base, nights = x[0], x[1:]
        n = np.full(30, float(args.runs))
        phi = spread_ratio(nights, n)
        for scale, count in ((1.0, "before"), (phi, "after")):
            bk, bn = base / scale, args.runs / scale
            hit = _beyond(nights.sum() / scale, n.sum() / scale, bk, bn) or _beyond(
                nights[-3:].sum() / scale, n[-3:].sum() / scale, bk, bn
            )
            if count == "before":
                before += hit
            else:
                after += hit
    return (
        f"drift rule A/A rho={rho}: beyond the band before {_share(before, args.series)}; "
        f"after {_share(after, args.series)}"
    )


def old_scan(args: argparse.Namespace, rng) -> list[str]:
    """Before (main at 07a0b52): the per-look change scan over the newest 30 nights, re-run
    every night at alpha 0.05, on 60-night A/A streams of a 4-scenario suite; and the night it
    names for a 1-point-a-night drift from night k (read at k + 20, the onset inside the
    window)."""
    streams = max(args.series // 4, 10)
    alarmed = 0
    for _ in range(streams):
        x, _c = _suite(4, 60, source="sim", rho=0.0, runs=args.runs, rng=rng)
        n = np.full(60, float(args.runs))
        hit = False
        for t in range(10, 60):
            lo = max(0, t + 1 - 30)
            for s in range(4):
                scan = change_scan(x[s, lo : t + 1], n[lo : t + 1], sims=199, rng=rng)
                if scan.p_value <= 0.05:
                    hit = True
                    break
            if hit:
                break
        alarmed += hit
    onsets = []
    for _ in range(streams):
        k = int(rng.integers(20, 60))
        nights = k + 20
        p = np.clip(0.45 - 0.01 * np.maximum(0, np.arange(nights) - k + 1), 0, 1)
        x = rng.binomial(args.runs, p).astype(float)
        lo = nights - 30
        scan = change_scan(x[lo:], np.full(30, float(args.runs)), sims=199, rng=rng)
        if scan.p_value <= 0.05 and scan.start is not None:
            onsets.append(lo + scan.start - k)
    within = sum(abs(o) <= 5 for o in onsets)
    return [
        f"before: A/A 4-scenario 60-night streams with a 'changed since' in some night's report "
        f"{_share(alarmed, streams)}",
        f"before: 1-point-a-night drift, named start within 5 nights of its onset "
        f"{_share(within, streams)} (median offset "
        f"{np.median(onsets) if onsets else float('nan'):.0f} nights; worded a step)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", type=int, default=200, help="A/A suites per case")
    parser.add_argument("--nights", type=int, default=730, help="nights per A/A suite")
    parser.add_argument("--series", type=int, default=300, help="series per power case")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--only", choices=("aa", "drop", "drift", "rule", "before"))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    began = time.process_time()
    cases = [("sim", 0.0), ("sim", 0.1), ("sim", 0.2), ("real", 0.0)]
    for name, measure in (("aa", aa), ("drop", drop), ("drift", drift)):
        if args.only not in (None, name):
            continue
        for scenarios in (4, 20):
            for source, rho in cases:
                print(measure(args, scenarios, source, rho, rng), flush=True)
    if args.only in (None, "rule"):
        for rho in (0.0, 0.1, 0.2):
            print(drift_rule(args, rho, rng), flush=True)
    if args.only in (None, "before"):
        for line in old_scan(args, rng):
            print(line, flush=True)
    print(f"CPU {time.process_time() - began:.1f} s")


if __name__ == "__main__":
    main()
