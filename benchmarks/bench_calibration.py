"""Calibration benchmark of the comparison engine (not a timed test).

Run: python benchmarks/bench_calibration.py [--nights 1000] [--diagnostic-nights 200]
       [--sims 2000] [--seq-sims 10000] [--seq-nights 1000] [--seed 0] [--only PART]

Prints:
1. A/A nights (no true change): share of nights with any gating alarm (target <= alpha), with
   any diagnostic flag (target <= q), and the type I error of each test path on its own.
2. Power against the injected drops of the docs/explanation/statistics.md §5 table (exact one-sided
   Boschloo, alpha .05): simulated and exact power (target: within 5 points of 80%).
3. Sequential mode (3 looks, O'Brien-Fleming thresholds, futility, curtailment): average runs
   saved on quiet nights (target >= 35%) and power lost against a fixed design (<= 5 points),
   for the union-bound, canonical and calibrated thresholds (exact enumeration), and whole
   simulated nights.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import make_runs, scenario_params

from trajguard import comparison as compare
from trajguard import stats as st
from trajguard.comparison import CompareConfig, compare_runsets
from trajguard.comparison._numeric import evaluate_ratio, evaluate_shift
from trajguard.comparison._tools import evaluate_sequences, evaluate_tools

TABLE = {10: (49, 50, 51, 55), 20: (26, 32, 35, 39), 30: (18, 24, 27, 31), 50: (11, 18, 20, 23)}
BASELINES = (1.0, 0.95, 0.90, 0.80)


def share(hits: int, total: int) -> str:
    low, high = st.wilson_interval(hits, total)
    return f"{hits / total:6.3f} ({hits}/{total}; 95% CI {low:.3f}-{high:.3f})"


def aa_nights(nights: int, scenarios: int, runs: int, seed: int, diagnostic: bool) -> None:
    gating = tuple(m for m in compare.METRIC_NAMES if m in compare.DEFAULT_GATING)
    config = CompareConfig() if diagnostic else CompareConfig(metrics=gating)
    alarms = significant = improved = flagged = 0
    start = time.perf_counter()
    for night in range(nights):
        params = scenario_params(scenarios, seed=seed * 100_003 + night)
        cmp = compare_runsets(
            make_runs(params, runs, seed=2 * night + 1),
            make_runs(params, runs, seed=2 * night + 2),
            config=config,
        )
        results = [m for s in cmp.scenarios for m in s.metrics]
        alarms += cmp.regressed
        level = cmp.family.alpha_scenarios if cmp.family else config.alpha
        significant += any(m.kind == "gating" and m.p_adjusted <= level for m in results)
        improved += any(
            m.kind == "gating" and (m.p_benefit_adjusted or 1) <= config.alpha for m in results
        )
        flagged += any(m.kind == "diagnostic" and m.p_adjusted <= config.q for m in results)
    label = "all metrics" if diagnostic else f"the default gating metrics {', '.join(gating)}"
    print(
        f"A/A, {nights} nights x {scenarios} scenarios x {runs} runs per batch ({label}; "
        f"{time.perf_counter() - start:.0f} s)"
    )
    print(
        f"  nights with a gating regression (exit code 1): {share(alarms, nights)}  "
        f"target <= {config.alpha}"
    )
    print(f"  nights with a significant scenario test:       {share(significant, nights)}")
    print(f"  nights with any 'improved' gating claim:       {share(improved, nights)}")
    if diagnostic:
        print(
            f"  nights with any diagnostic flag (BH):          {share(flagged, nights)}  "
            f"target <= {config.q}"
        )


def per_test_type_one(sims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    res = compare.Resampling()
    print(
        f"Type I error of each test path on its own (one-sided harm, alpha .05, {sims} A/A "
        "pairs; Monte Carlo SE ~.005)"
    )
    for p in (0.5, 0.8, 0.95):
        exact = st.power_rates(p, p, 20, 20, alpha=0.05)
        print(f"  pass rate, Boschloo, N=20, p={p}: exact size {exact:.4f}")

    def steps(n: int) -> np.ndarray:
        return rng.poisson(3, n).astype(float)  # tie-heavy counts

    def tokens(n: int) -> np.ndarray:
        return rng.lognormal(6, np.sqrt(np.log1p(0.09)), n)

    tools = ("a", "b", "c", "d")
    weights = np.array([0.4, 0.3, 0.2, 0.1])

    def seqs(n: int, calls: float = 2.0) -> list[tuple[str, ...]]:
        return [tuple(rng.choice(tools, size=1 + rng.poisson(calls), p=weights)) for _ in range(n)]

    def counts(rows: list[tuple[str, ...]]) -> list[dict[str, int]]:
        return [{t: s.count(t) for t in set(s)} for s in rows]

    paths = {
        "steps, N=5 (exact BM permutation)": lambda r: evaluate_shift(
            steps(5), steps(5), margin=0.1, alpha=0.05, rng=r, resampling=res, label="s"
        ),
        "steps, N=20 (BM permutation, ties)": lambda r: evaluate_shift(
            steps(20), steps(20), margin=0.1, alpha=0.05, rng=r, resampling=res, label="s"
        ),
        "tokens, N=10 (Welch permutation)": lambda r: evaluate_ratio(
            tokens(10),
            tokens(10),
            ratio_margin=1.15,
            floor=1,
            alpha=0.05,
            rng=r,
            resampling=res,
            label="t",
        ),
        "tokens, N=30 (Welch t on logs)": lambda r: evaluate_ratio(
            tokens(30),
            tokens(30),
            ratio_margin=1.15,
            floor=1,
            alpha=0.05,
            rng=r,
            resampling=res,
            label="t",
        ),
        "tool multiset, N=20 (TVD permutation)": lambda r: evaluate_tools(
            counts(seqs(20)),
            counts(seqs(20)),
            margin=0.1,
            equivalence=0.1,
            alpha=0.05,
            rng=r,
            resampling=res,
        ),
        "tool order, N=20 (distance permutation)": lambda r: evaluate_sequences(
            seqs(20), seqs(20), rng=r, resampling=res
        ),
    }
    for name, evaluate in paths.items():
        start = time.perf_counter()
        hits = sum(evaluate(np.random.default_rng([seed, i])).harm <= 0.05 for i in range(sims))
        print(f"  {name:<40} {share(hits, sims)}  ({time.perf_counter() - start:.0f} s)")
    # The end-of-run column: power against more calls per run with the same mix of tools,
    # against the G test of the calls-by-tool table alone (docs/explanation/statistics.md §1).
    new = old = 0
    for i in range(sims):
        b, c = counts(seqs(20)), counts(seqs(20, calls=5.0))
        r = np.random.default_rng([seed, sims + i])
        tools = evaluate_tools(b, c, margin=0.1, equivalence=0.1, alpha=0.05, rng=r, resampling=res)
        new += tools.harm <= 0.05
        names = sorted({t for row in (*b, *c) for t in row})
        table = np.array([[row.get(t, 0) for t in names] for row in (*b, *c)], float)
        alone = st.permutation_test(st.tvd_statistic(table), 20, 20, rng=r)
        old += alone.greater <= 0.05
    print(
        "  tool multiset, N=20, calls per run 1+Poisson(2) -> 1+Poisson(5), same mix: power "
        f"{share(new, sims)} with the end-of-run column, {share(old, sims)} without"
    )


def power_table(sims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    print(
        f"Power against the section 5 drops (one-sided Boschloo, alpha .05, {sims} sims per "
        "cell): simulated / exact; target 80% +- 5 points"
    )
    print("  N/arm | " + " | ".join(f"from {int(100 * p)}%".ljust(13) for p in BASELINES))
    worst = 0.0
    for n, drops in TABLE.items():
        cells = []
        for p_b, drop in zip(BASELINES, drops, strict=True):
            p_c = p_b - drop / 100
            x_b, x_c = rng.binomial(n, p_b, sims), rng.binomial(n, p_c, sims)
            table = st.boschloo_pvalues(n, n, "greater")
            simulated = float(np.mean(table[x_b, x_c] <= 0.05))
            exact = st.power_rates(p_b, p_c, n, n, alpha=0.05)
            worst = max(worst, abs(simulated - 0.8), abs(exact - 0.8))
            cells.append(f"{simulated:.3f}/{exact:.3f}".ljust(13))
        print(f"  {n:>5} | " + " | ".join(cells))
    print(f"  largest distance from 80%: {100 * worst:.1f} points")
    # End to end through compare_runsets: one scenario, N=20, 90% -> 55%.
    cfg = CompareConfig(metrics=("pass_rate",), gating=frozenset({"pass_rate"}))
    params = [{**p, "pass": 0.9, "crash": 0.0} for p in scenario_params(1, seed=seed)]
    e2e = 300
    hits = 0
    for i in range(e2e):
        base = make_runs(params, 20, seed=10_000 + 2 * i)
        cand = make_runs(params, 20, seed=10_001 + 2 * i, pass_shift=0.35)
        hits += compare_runsets(base, cand, config=cfg).regressed
    print(
        f"  end to end (compare_runsets, N=20, 90% -> 55%, harness errors/timeouts included): "
        f"{share(hits, e2e)}"
    )


def _sequential_once(
    rng: np.random.Generator,
    p_b: float,
    p_c: float,
    n_b: int,
    schedule: tuple[int, ...],
    th: tuple[float, ...],
) -> tuple[bool, int]:
    x_b = int(rng.binomial(n_b, p_b))
    x_c = previous = 0
    for look, n_c in enumerate(schedule):
        x_c += int(rng.binomial(n_c - previous, p_c))
        previous = n_c
        p = st.boschloo_pvalue(x_b, n_b, x_c, n_c, "greater")
        later = list(schedule[look + 1 :])
        can = (
            st.rate_can_still_regress(
                x_b, n_b, x_c, n_c, later_n_c=later, later_thresholds=th[look + 1 :]
            )
            if later
            else True
        )
        action = st.sequential_decision(
            look, p, thresholds=th, candidate_no_worse=x_c * n_b >= x_b * n_c, can_still_regress=can
        )
        if action is not st.Action.CONTINUE:
            return action is st.Action.STOP_REGRESSED, n_c
    return False, schedule[-1]


def sequential(sims: int, seed: int) -> None:
    n_b, schedule, alpha = 30, (10, 20, 30), 0.05
    fixed_size = max(
        st.power_rates(p, p, n_b, 30, alpha=alpha) for p in np.linspace(0.0025, 0.9975, 399)
    )
    fixed_power = st.power_rates(0.9, 0.6, n_b, 30, alpha=alpha)
    print(
        f"Sequential, one scenario: baseline {n_b} runs at 90%, candidate <= 30 in batches of "
        f"10, Boschloo one-sided alpha {alpha}, futility + curtailment (exact enumeration)"
    )
    print(
        f"  fixed N=30: power at 60% {fixed_power:.4f}; exact size (max over rates) "
        f"{fixed_size:.4f}"
    )
    grid = np.linspace(0.0025, 0.9975, 399)
    methods = {m: st.obf_thresholds(alpha, 3, method=m) for m in ("bonferroni", "canonical")}
    methods["calibrated (default)"] = st.rate_thresholds(alpha, n_b, schedule)
    for name, th in methods.items():
        quiet, quiet_runs = st.rate_stopping(n_b, schedule, th, [0.9])
        hit, hit_runs = st.rate_stopping(n_b, schedule, th, [0.9], [0.6])
        size = st.rate_stopping(n_b, schedule, th, grid, futility=False)[0].max()
        print(f"  {name:<21} thresholds {[round(t, 4) for t in th]}")
        print(
            f"    quiet: stops regressed {quiet[0]:.4f}, average runs {quiet_runs[0]:.1f} "
            f"(saved {100 * (1 - quiet_runs[0] / 30):.0f}%); size max over rates, futility "
            f"ignored: {size:.4f}"
        )
        print(
            f"    drop to 60%: power {hit[0]:.4f} (lost {100 * (fixed_power - hit[0]):.1f} "
            f"points), average runs {hit_runs[0]:.1f}"
        )
    th = methods["calibrated (default)"]
    rng = np.random.default_rng(seed)
    for label, p_c in (("quiet", 0.9), ("drop to 60%", 0.6)):
        outcomes = [_sequential_once(rng, 0.9, p_c, n_b, schedule, th) for _ in range(sims)]
        print(
            f"  simulation check, {label}: rejects {np.mean([o[0] for o in outcomes]):.4f}, "
            f"average runs {np.mean([o[1] for o in outcomes]):.1f} ({sims} sims)"
        )
    print("  targets: quiet nights save >= 35% of runs; power lost <= 5 points")


def sequential_nights(nights: int, seed: int, scenarios: int = 20) -> None:
    """Whole nights: pass and crash rates of every scenario, Bonferroni across the night."""
    n_b, schedule, alpha = 30, (10, 20, 30), 0.05
    m = 2 * scenarios
    th = st.rate_thresholds(alpha / m, n_b, schedule)
    rng = np.random.default_rng(seed)
    print(
        f"Sequential nights: {scenarios} scenarios x (pass, crash), baseline {n_b}, candidate "
        f"<= 30 in 10s, thresholds at alpha/{m}: {[f'{t:.2g}' for t in th]}; {nights} nights"
    )
    for label, drop in (("quiet", 0.0), ("one scenario 90% -> 50%", 0.4)):
        alarms = detected = 0
        fixed_alarms = 0
        used = 0
        for _ in range(nights):
            rates = rng.uniform(0.5, 0.98, scenarios)
            crash = rng.uniform(0.0, 0.05, scenarios)
            if drop:
                rates[0] = 0.9
            night_alarm = False
            fixed_p = []
            for s in range(scenarios):
                p_c = rates[s] - (drop if s == 0 else 0.0)
                x_b, k_b = rng.binomial(n_b, rates[s]), rng.binomial(n_b, crash[s])
                incs = rng.binomial(10, p_c, 3), rng.binomial(10, crash[s], 3)
                done = [False, False]
                for look, n_c in enumerate(schedule):
                    x_c, k_c = incs[0][: look + 1].sum(), incs[1][: look + 1].sum()
                    later = list(schedule[look + 1 :])
                    for i, (xb, xc, side, better) in enumerate(
                        (
                            (x_b, x_c, "greater", x_c * n_b >= x_b * n_c),
                            (k_b, k_c, "less", k_c * n_b <= k_b * n_c),
                        )
                    ):
                        if done[i]:
                            continue
                        p = st.boschloo_pvalue(int(xb), n_b, int(xc), n_c, side)
                        can = later and st.rate_can_still_regress(
                            int(xb),
                            n_b,
                            int(xc),
                            n_c,
                            later_n_c=later,
                            later_thresholds=th[look + 1 :],
                            higher_is_better=(i == 0),
                        )
                        action = st.sequential_decision(
                            look,
                            p,
                            thresholds=th,
                            candidate_no_worse=bool(better),
                            can_still_regress=bool(can),
                        )
                        if action is st.Action.STOP_REGRESSED:
                            night_alarm = True
                            detected += s == 0 and i == 0
                            done = [True, True]
                        elif action is st.Action.STOP_NO_REGRESSION:
                            done[i] = True
                    if all(done):
                        used += n_c
                        break
                x_c, k_c = incs[0].sum(), incs[1].sum()
                fixed_p += [
                    st.boschloo_pvalue(int(x_b), n_b, int(x_c), 30, "greater"),
                    st.boschloo_pvalue(int(k_b), n_b, int(k_c), 30, "less"),
                ]
            alarms += night_alarm
            fixed_alarms += bool((st.holm(fixed_p, alpha) <= alpha).any())
        saved = 1 - used / (nights * scenarios * 30)
        print(
            f"  {label:<25}: nights with an alarm {alarms / nights:.3f} (fixed N=30 + Holm: "
            f"{fixed_alarms / nights:.3f}); candidate runs saved {100 * saved:.0f}%"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=1000)
    parser.add_argument("--diagnostic-nights", type=int, default=200)
    parser.add_argument("--scenarios", type=int, default=20)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--seq-sims", type=int, default=10_000)
    parser.add_argument("--seq-nights", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["aa", "tests", "power", "sequential"])
    args = parser.parse_args()
    if args.only in (None, "aa"):
        aa_nights(args.nights, args.scenarios, args.runs, args.seed, diagnostic=False)
        if args.diagnostic_nights:
            aa_nights(
                args.diagnostic_nights, args.scenarios, args.runs, args.seed + 1, diagnostic=True
            )
    if args.only in (None, "tests"):
        per_test_type_one(args.sims // 2, args.seed)
    if args.only in (None, "power"):
        power_table(args.sims, args.seed)
    if args.only in (None, "sequential"):
        sequential(args.seq_sims, args.seed)
        sequential_nights(args.seq_nights, args.seed)


if __name__ == "__main__":
    main()
