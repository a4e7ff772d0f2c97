"""The trend's shape fits and drift-line differences against their references (issue 40).

1. ``nights._alarms._best_fit`` (one closed form for every breakpoint) against the reference it
   replaced: one weighted ``numpy.linalg.lstsq`` per breakpoint, the step first, a later shape
   winning only by more than 1e-12. Random nights (2-120, some without runs), steps, slides,
   both weightings the trend uses (by runs, and by binomial precision at a rate near 0.3/0.7).
   Printed: the cases, how many chose another breakpoint or shape, the largest difference in
   the sum of squares (relative) or a coefficient.
2. ``nights.drift_line`` on random nights whose baseline night has the nights' own pass rate:
   how often the difference is not exactly 0, for the product and for the difference of the
   spread-scaled counts it used before (``newcombe``'s on counts divided by the spread).

    python benchmarks/bench_trend_fits.py --cases 4000 --seed 1
"""

from __future__ import annotations

import argparse

import numpy as np

from trajguard.nights import drift_line, line_spread, newcombe
from trajguard.nights._alarms import _best_fit


def _by_lstsq(r: np.ndarray, t: np.ndarray, w: np.ndarray) -> tuple[float, int, bool, np.ndarray]:
    best: tuple[float, int, bool, np.ndarray] | None = None
    sw = np.sqrt(w)
    shapes = [(j, False) for j in range(1, len(r))] + [(j, True) for j in range(len(r) - 2)]
    for j, drift in shapes:
        second = np.maximum(0.0, t - t[j]) if drift else (np.arange(len(r)) >= j).astype(float)
        design = np.c_[np.ones(len(r)), second]
        coef, *_ = np.linalg.lstsq(design * sw[:, None], r * sw, rcond=None)
        ss = float(np.sum(w * (r - design @ coef) ** 2))
        if best is None or ss < best[0] - 1e-12:
            best = (ss, j, drift, coef)
    assert best is not None
    return best


def fits(cases: int, rng: np.random.Generator) -> str:
    done = differ = 0
    worst = 0.0
    for trial in range(cases):
        nights = int(rng.integers(2, 120))
        runs = rng.integers(0 if trial % 5 == 0 else 1, 60, nights).astype(float)
        if (runs > 0).sum() < 2:
            continue
        walk = np.cumsum(rng.normal(0, 0.02, nights)) * (trial % 3 == 0)
        p = np.clip(rng.uniform(0, 1) + walk, 0, 1)
        if trial % 4 == 0:
            p = np.where(np.arange(nights) >= nights // 2, p * 0.5, p)
        passes = rng.binomial(runs.astype(int), p).astype(float)
        keep = runs > 0
        r, t = passes[keep] / runs[keep], np.flatnonzero(keep).astype(float)
        for w in (runs[keep], runs[keep] / 0.21):
            new, old = _best_fit(r, t, w), _by_lstsq(r, t, w)
            done += 1
            if new[1:3] != old[1:3]:
                differ += 1
                continue
            gap = max(
                abs(new[0] - old[0]) / max(1.0, abs(old[0])), float(np.abs(new[3] - old[3]).max())
            )
            worst = max(worst, gap)
    return (
        f"shape fits: {done} cases, {differ} with another breakpoint or shape than lstsq, "
        f"largest difference {worst:.2e}"
    )


def equal_rates(cases: int, rng: np.random.Generator) -> str:
    tried = product = scaled = 0
    for _ in range(cases):
        m = int(rng.integers(6, 40))
        n = rng.integers(5, 40, m)
        x = rng.binomial(n, rng.uniform(0.05, 0.95, m))
        for times in (1, 2, 3):  # a baseline night of 1-3x the nights' runs, at their own rate
            base_runs = int(n.sum()) * times
            base_passes = int(x.sum()) * times
            tried += 1
            product += drift_line(x, n, base_passes, base_runs, band=0.1).difference != 0.0
            phi, _ = line_spread(x, n)
            d = newcombe(x.sum() / phi, n.sum() / phi, base_passes / phi, base_runs / phi)[0]
            scaled += d != 0.0
    return (
        f"drift line at the baseline's own rate: {tried} cases, difference not exactly 0: "
        f"the product {product}, the spread-scaled counts (before) {scaled}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(fits(args.cases, np.random.default_rng(args.seed)))
    print(equal_rates(args.cases, np.random.default_rng(args.seed)))


if __name__ == "__main__":
    main()
