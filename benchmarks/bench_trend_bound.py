"""What 20 runs a night can see (issue 36): the information bound of the trend's targets at
the monitoring procedure's false-alarm rate, per runs a night.

    python benchmarks/bench_trend_bound.py --series 400
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_trend_monitor import _share, _suite
from scipy.stats import binom, norm

from trajguard.nights import shape_of, streams_of


def _siegmund_h(k: float, arl: float) -> float:
    """The CUSUM threshold of one statistic with in-control ARL ``arl`` on N(0, 1) scores
    (Siegmund's approximation), by bisection."""
    low, high = 0.1, 30.0
    for _ in range(60):
        h = (low + high) / 2
        b = h + 1.166
        low, high = (
            (h, high) if (np.exp(2 * k * b) - 2 * k * b - 1) / (2 * k * k) < arl else (low, h)
        )
    return (low + high) / 2


def bound(args: argparse.Namespace, rng) -> list[str]:
    """What no procedure does better than, and what the best one knowing the in-control rate
    does, for a 20-point drop (45 % -> 25 %) named within 5 nights, at the product's per
    statistic ARL (365 x the suite's statistics weight), per runs a night N:

    - the Neyman-Pearson bound: an oracle that knows the change night tests the 5 N runs from it
      at level 5 / ARL (a stationary procedure's chance of an alarm in any 5 nights);
    - the best CUSUM knowing the rate (k from 0.5 to 1.5, h by Siegmund for the ARL) on the
      arcsine scale: the shift is (asin sqrt .45 - asin sqrt .25) 2 sqrt(N) standard deviations;
    - overdispersed nights (rho): the bound on the night-level normal scale, the nights' variance
      p (1 - p) (1 + (N - 1) rho) / N, also as N grows without end;
    - a 1-point-a-night drift: the onset of the best broken line through the whole series
      (nights 0..k+40, no detection needed) within 5 nights of k."""
    out = []
    shift = np.arcsin(np.sqrt(0.45)) - np.arcsin(np.sqrt(0.25))
    for scenarios in (4, 20):
        weight = streams_of(_suite(scenarios, 2, source="sim", rho=0.0, runs=20, rng=rng), 2).weight
        arl = 365 * weight
        alpha = 5 / arl
        for runs in (20, 25, 30, 40):
            c = binom.ppf(alpha, 5 * runs, 0.45)
            c -= binom.cdf(c, 5 * runs, 0.45) > alpha
            np_power = binom.cdf(c, 5 * runs, 0.25)
            delta = shift * 2 * np.sqrt(runs)
            best = 0.0
            for k in (0.5, 0.75, 1.0, 1.25, 1.5):
                h = _siegmund_h(k, arl)
                z = rng.standard_normal((20000, 5)) + delta
                s = np.zeros(20000)
                hit = np.zeros(20000, bool)
                for t in range(5):
                    s = np.maximum(0, s + z[:, t] - k)
                    hit |= s > h
                best = max(best, float(hit.mean()))
            out.append(
                f"bound S={scenarios} (statistic ARL {arl:.0f}) N={runs}: 20-point drop named "
                f"within 5 nights: Neyman-Pearson oracle {np_power:.3f}; best CUSUM knowing the "
                f"rate {best:.3f}"
            )
        za = norm.isf(alpha)
        for rho in (0.1, 0.2):
            row = []
            for runs in (20, 40, 100, 10**6):
                sd0 = np.sqrt(0.45 * 0.55 * (1 + (runs - 1) * rho) / runs / 5)
                sd1 = np.sqrt(0.25 * 0.75 * (1 + (runs - 1) * rho) / runs / 5)
                row.append(
                    f"N={runs if runs < 10**6 else 'inf'} {norm.cdf((0.2 - za * sd0) / sd1):.2f}"
                )
            out.append(
                f"bound S={scenarios} rho={rho}: Neyman-Pearson oracle, named within 5 nights: "
                + ", ".join(row)
            )
    for runs in (20, 30, 40):
        within = 0
        for _ in range(args.series):
            k = int(rng.integers(20, 60))
            p = np.clip(0.45 - 0.01 * np.maximum(0, np.arange(k + 40) - k + 1), 0, 1)
            x = rng.binomial(runs, p).astype(float)
            within += abs(shape_of(x, np.full(k + 40, float(runs))).start - k) <= 5
        out.append(
            f"bound N={runs}: drift onset from the whole series within 5 nights "
            f"{_share(within, args.series)}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=400, help="series for the drift onset")
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    began = time.process_time()
    for line in bound(args, np.random.default_rng(args.seed)):
        print(line, flush=True)
    print(f"CPU {time.process_time() - began:.1f} s")


if __name__ == "__main__":
    main()
