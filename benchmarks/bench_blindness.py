"""Blindness that does not depend on luck (issue 36, item 4): how often a night that cannot see a
drop of its band is called "not blind", before (judged at the baseline's observed rate) and after
(judged at the least favourable rate its runs leave plausible, stats.least_power_pass_rate).

For each true baseline pass rate p and runs per side N, the truth is exact: the gate (Boschloo's
test at the gating family's first step, one-sided, 80 % power) cannot see a drop of the band when
p >= band and its power against p -> p - band is below 0.8; a rate under the band has no such drop
and is "not blind" in truth. A rule sees only the baseline's passes k ~ Binomial(N, p), so its
chance of calling the night "not blind" is the binomial sum over k of its call at (k, N): exact,
no simulation. Printed: per (band, N), the share of truly blind (p, N) cells called "not blind"
(missed) and of truly seeing ones called "blind" (over-called), averaged over the rates at or
above the band (below it the two rules define the drop differently: the old one looked for the
whole rate, the new one for the band, which such a rate cannot lose), before and after; the
issue's case (every baseline of a 4-scenario suite passed 0 of 3); and the time a report spends
on the judgement.

    python benchmarks/bench_blindness.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from trajguard import stats as st

LEVEL = 0.0114
"""The gating family's first step of the real 4-scenario nightly (reports/sample-nightly)."""

POWER = 0.8
RATES = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 1.0)
SIZES = (3, 5, 10, 20, 30, 50, 100, 200, 400)


def _power(p: float, drop: float, n: int) -> float:
    """The gate's power (exact Boschloo where feasible, as the rule itself computes it)."""
    return st.gate_power(p, max(0.0, p - drop), n, n, LEVEL, False)


def truly_blind(p: float, n: int, band: float) -> bool:
    return p >= band and _power(p, band, n) < POWER


def before(k: int, n: int, band: float) -> bool:
    """The rule until now: the observed rate; none passed = nothing to drop."""
    rate = k / n
    if rate <= 0:
        return False
    drop = min(band, rate)
    mde = st.mde_pass_rate(rate, n, alpha=LEVEL, power=POWER)
    return not (mde is not None and mde <= drop + 1e-9)


CONFIDENCE = [st.PLAUSIBLE]


def after(k: int, n: int, band: float) -> bool:
    worst = st.least_power_pass_rate(k, n, band, alpha=LEVEL, confidence=CONFIDENCE[0])
    return worst is not None and worst.power < POWER - 1e-9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bands", type=float, nargs="+", default=[0.10, 0.30])
    parser.add_argument(
        "--confidence",
        type=float,
        default=st.PLAUSIBLE,
        help="the plausible interval's level (default: the rule's, %(default)s)",
    )
    args = parser.parse_args()
    CONFIDENCE[0] = args.confidence
    print(f"level {LEVEL} (one-sided), power {POWER}, plausible interval {args.confidence}")
    print(f"rates {RATES}")
    print()
    print(
        "| band | N | truly blind cells | missed before | missed after | over-called before "
        "| over-called after |"
    )
    print("|---|---|---|---|---|---|---|")
    timings: list[float] = []
    for band in args.bands:
        for n in SIZES:
            calls = {}
            for name, rule in (("before", before), ("after", after)):
                began = time.perf_counter()
                calls[name] = np.array([rule(k, n, band) for k in range(n + 1)])
                if name == "after":
                    timings.append((time.perf_counter() - began) / (n + 1))
            missed = {"before": [], "after": []}
            over = {"before": [], "after": []}
            blind_cells = 0
            for p in (r for r in RATES if r >= band):
                weights = st.binom_pmf(n, p)[0]
                truth = truly_blind(p, n, band)
                blind_cells += truth
                for name in ("before", "after"):
                    said_blind = float(weights @ calls[name])
                    (missed if truth else over)[name].append(
                        1 - said_blind if truth else said_blind
                    )

            def mean(values: list[float]) -> str:
                return f"{max(0.0, float(np.mean(values))):.3f}" if values else "–"

            cells = sum(r >= band for r in RATES)
            print(
                f"| {band:.2f} | {n} | {blind_cells} of {cells} | {mean(missed['before'])} "
                f"| {mean(missed['after'])} | {mean(over['before'])} | {mean(over['after'])} |"
            )
    print()
    # the case: a 4-scenario suite, every baseline 0 of 3, 3 candidate runs
    old = any(before(0, 3, 0.10) for _ in range(4))
    new = any(after(0, 3, 0.10) for _ in range(4))
    print(f"every baseline 0 of 3, band 0.10: blind before {old}, after {new}")
    for p in (0.1, 0.3, 0.5):
        print(
            f"  P(a {p:.0%} scenario shows 0 of 3) = {(1 - p) ** 3:.3f}; "
            f"its night truly blind: {truly_blind(p, 3, 0.10)}"
        )
    print(
        f"judgement time per scenario (after): median {1e3 * np.median(timings):.2f} ms, "
        f"max {1e3 * max(timings):.1f} ms"
    )


if __name__ == "__main__":
    main()
