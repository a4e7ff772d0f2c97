"""Calibration of the trend's tests over simulated series of nights (issue 24).

Each series is one scenario over ``--nights`` nights of ``--runs`` runs:

* demo-shaped: the pass rate drawn as the demo's scenarios (20-45 %, benchmarks/_demo_shaped.py)
  and a crash rate of 0-3 % (crashed runs are judged and fail);
* the calibration generator's rates (bench_calibration.py's grid): 5, 50, 80 and 95 %.

Measured:

1. A/A: the "since when" scan's alarm rate (p <= alpha) on steady binomial series;
2. a 20-point drop beginning at night k (k uniform over 5 .. nights - 5): the share of series
   whose named change starts within 2 nights of k;
3. the flaky test's level on binomial series and its power on beta-binomial (overdispersed)
   series, with how often the scan alarms on those (the trend names them flaky, not changed).

    python benchmarks/bench_trend_calibration.py --series 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from trajguard.nights import change_scan, overdispersion, wilson

GRID = (0.05, 0.5, 0.8, 0.95)


def _rate(kind: str, rng: np.random.Generator) -> float:
    return float(rng.uniform(0.2, 0.45)) if kind == "demo" else float(rng.choice(GRID))


def _judged(nights: int, runs: int, rng: np.random.Generator) -> np.ndarray:
    return np.full(nights, runs, dtype=np.float64)


def _series(
    p: np.ndarray, runs: int, crash: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    crashed = rng.binomial(runs, crash, len(p))
    passes = rng.binomial(runs - crashed, np.clip(p, 0, 1))
    return passes.astype(np.float64), np.full(len(p), runs, dtype=np.float64)


def _share(hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"{hits / total:.3f} ({low:.3f}-{high:.3f}; {hits}/{total})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=500, help="series per case")
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--runs", type=int, default=20, help="runs per night")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--sims", type=int, default=999, help="simulations per p-value")
    parser.add_argument("--seed", type=int, default=20261202)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    began = time.process_time()
    print(
        f"{args.series} series per case, {args.nights} nights x {args.runs} runs, "
        f"alpha {args.alpha}, {args.sims} simulations per p-value"
    )
    for kind in ("demo", "grid"):
        alarms = flaky = 0
        for _ in range(args.series):
            p = np.full(args.nights, _rate(kind, rng))
            crash = float(rng.uniform(0, 0.03)) if kind == "demo" else 0.0
            x, n = _series(p, args.runs, crash, rng)
            scan = change_scan(x, n, sims=args.sims, rng=rng)
            alarms += scan.p_value <= args.alpha
            flaky += overdispersion(x, n, sims=args.sims, rng=rng).p_value <= args.alpha
        print(
            f"A/A {kind}: since-when alarm {_share(alarms, args.series)}; "
            f"flaky (level) {_share(flaky, args.series)}"
        )
    for kind in ("demo", "grid"):
        named = alarmed = 0
        offsets = []
        for _ in range(args.series):
            start = float(_rate(kind, rng))
            if kind == "grid" and start < 0.2:
                start = 0.5  # a 20-point drop needs 20 points to drop
            k = int(rng.integers(5, args.nights - 4))
            p = np.r_[np.full(k, start), np.full(args.nights - k, start - 0.2)]
            crash = float(rng.uniform(0, 0.03)) if kind == "demo" else 0.0
            x, n = _series(p, args.runs, crash, rng)
            scan = change_scan(x, n, sims=args.sims, rng=rng)
            if scan.p_value <= args.alpha and scan.start is not None:
                alarmed += 1
                offsets.append(scan.start - k)
                named += abs(scan.start - k) <= 2
        spread = np.percentile(np.abs(offsets), [50, 90]) if offsets else [np.nan, np.nan]
        print(
            f"20-point drop {kind}: alarm {_share(alarmed, args.series)}; named within 2 "
            f"nights of k {_share(named, args.series)}; |offset| median {spread[0]:.0f}, "
            f"90th pct {spread[1]:.0f}"
        )
    for rho in (0.05, 0.1, 0.2):
        flaky = alarms = 0
        for _ in range(args.series):
            mean = _rate("demo", rng)
            a, b = mean * (1 / rho - 1), (1 - mean) * (1 / rho - 1)
            p = rng.beta(a, b, args.nights)
            x, n = _series(p, args.runs, 0.0, rng)
            scan = change_scan(x, n, sims=args.sims, rng=rng)
            change = scan.start if scan.p_value <= args.alpha else None
            alarms += change is not None
            flaky += (
                overdispersion(x, n, change=change, sims=args.sims, rng=rng).p_value <= args.alpha
            )
        print(
            f"overdispersed (beta-binomial, intra-night correlation {rho}): flaky "
            f"{_share(flaky, args.series)}; since-when alarm {_share(alarms, args.series)}"
        )
    print(f"CPU {time.process_time() - began:.1f} s")


if __name__ == "__main__":
    main()
