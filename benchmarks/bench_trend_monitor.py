"""Calibration of the trend's monitoring procedure (issue 36): the suite-level CUSUM of
``trajguard.nights`` on whole suites of nights, night by night from the first.

Suites of 4 and 20 scenarios, 20 runs a night (``--runs``; the nightly's default), pass rates
demo-shaped (20-45 %) with a crash rate of 0-3 %, each scenario's runs taking 1, 3, 2 or 3 paths
(repeating; shares drawn per scenario); pass rates and path shares binomial or
beta-binomial / Dirichlet-multinomial from night to night (intra-night correlation rho 0.1,
0.2); or every night's runs resampled (with replacement) from the real SmolLM2 nights in
benchmarks/data/real-nights-2026-12-01 (the unedited nights and the baseline, pooled per
scenario, each run with its outcome and path; a 20-scenario suite repeats the four). Every
suite goes through the product's streams (``trajguard.nights.streams_of``: pass rate, crash
rate, tool usage and failing paths, each statistic with its threshold). Measured:

1. A/A: the suite's in-control ARL (suite-nights per false alarm, restarting after each alarm
   as the product does; 95 % interval from the Poisson count) and the share of suites with an
   alarm in their first 60 nights;
2. a 20-point drop of one scenario from night k (k uniform in 20..59), series of k + 30
   nights: the share named within 5 nights (raised on nights k..k+4; beside it the figure the
   report prints, ``trajguard.nights.drop_named``) and, of those, dated (a step's start, as
   the report at the series' end shapes it) within 2 of k;
3. a drift of 1 point a night from night k, series of k + 40 nights: the share whose first
   alarm from k on reads, at the series' end, as a drift (a drop) with its onset within 5;
4. a path gone (scenario 0's most taken path taken no more from night k): the tool mix named
   within 5 nights, dated within 2 (the bound: ``bench_trend_bound.py``).

5. flaky A/A suites (``--only flaky``): the flaky test's level and power, and the flaky
   scenarios' pass-rate alarms; the baseline drift line on flaky A/A series (``--only rule``).

``--offsets`` runs the A/A suites with every threshold moved by each offset, on the same suites
(how ``MARGIN`` was calibrated).

    python benchmarks/bench_trend_monitor.py --suites 800 --nights 365 --only aa
    python benchmarks/bench_trend_monitor.py --suites 800 --nights 365 --only aa --offsets 0 0.05
    python benchmarks/bench_trend_monitor.py --runs 40 --binomial --only drop --series 200
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2

from trajguard.comparison import run_path
from trajguard.nights import (
    Counts,
    change_scan,
    cusum,
    drift_line,
    drop_named,
    newcombe,
    overdispersion,
    shape_end,
    shape_of,
    spread_ratio,
    streams_of,
    wilson,
)

REAL = Path(__file__).parent / "data" / "real-nights-2026-12-01"
CALM = ("baseline", *(f"unedited-seed{i}" for i in range(1, 6)))
PATHS = (1, 3, 2, 3)
"""Paths per scenario of a simulated suite, repeating (the demo's: capital's runs all call the
calculator; greeting's take three paths, multiply's two, population's three)."""


def _pools() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]]:
    runs = pd.concat([pd.read_parquet(REAL / name / "runs.parquet") for name in CALM])
    out = []
    for _, g in runs.groupby("scenario", sort=True):
        paths = [run_path(dict(c) if c is not None else {}) for c in g["tool_counts"]]
        names = sorted(set(paths))
        out.append(
            (
                g["passed"].fillna(False).to_numpy(bool),
                g["crashed"].fillna(False).to_numpy(bool),
                np.array([names.index(p) for p in paths]),
                names,
            )
        )
    return out


def _rates(p: np.ndarray, rho: float, rng: np.random.Generator) -> np.ndarray:
    if rho <= 0:
        return p
    k = 1 / rho - 1
    inner = np.clip(p, 1e-6, 1 - 1e-6)
    return np.asarray(rng.beta(inner * k, (1 - inner) * k))


def _counts(passed: np.ndarray, crashed: np.ndarray, path: np.ndarray, names: list[str]) -> Counts:
    """A scenario's counts from its runs (nights x runs arrays)."""
    runs = np.full(len(passed), float(passed.shape[1]))
    return Counts(
        runs=runs,
        passes=passed.sum(axis=1).astype(float),
        crashes=crashed.sum(axis=1).astype(float),
        paths={n: (path == i).sum(axis=1).astype(float) for i, n in enumerate(names)},
        failing={n: ((path == i) & ~passed).sum(axis=1).astype(float) for i, n in enumerate(names)},
    )


def _suite(
    scenarios: int,
    nights: int,
    *,
    source: str,
    rho: float,
    runs: int,
    rng: np.random.Generator,
    shift: np.ndarray | None = None,
    first: float | None = None,
    gone: int | None = None,
) -> list[Counts]:
    """A suite's counts; ``shift`` is added to the pass rate, ``first`` is scenario 0's pass
    rate (sim), and from night ``gone`` on scenario 0's most taken path is taken no more (its
    runs take the next path)."""
    shift = np.zeros((scenarios, nights)) if shift is None else shift
    suite = []
    pools = _pools() if source == "real" else []
    for s in range(scenarios):
        if source == "real":
            # a moved tool mix needs a scenario of two paths or more first: multiply
            lead = 2 if gone is not None else 0
            passed_pool, crashed_pool, path_pool, names = pools[(s + lead) % len(pools)]
            pick = rng.integers(0, len(passed_pool), (nights, runs))
            won, crashed, path = passed_pool[pick], crashed_pool[pick], path_pool[pick]
            # a drop thins the resampled passes (each fails with probability -shift / rate),
            # so the nights keep the real runs' own noise, no second layer of it
            rate = max(float(passed_pool.mean()), 1e-9)
            fail = np.clip(-shift[s] / rate, 0, 1)[:, None]
            passed = won & (rng.random((nights, runs)) >= fail)
        else:
            count = 2 if (s == 0 and gone is not None) else PATHS[s % len(PATHS)]
            names = [f"tool{j}" for j in range(count)]
            base = first if (s == 0 and first is not None) else rng.uniform(0.2, 0.45)
            p = _rates(np.clip(base + shift[s], 0, 1), rho, rng)
            crash = rng.uniform(0, 0.03)
            crashed = rng.random((nights, runs)) < crash
            passed = ~crashed & (rng.random((nights, runs)) < p[:, None])
            share = rng.dirichlet(np.full(len(names), 2.0))
            shares = (
                rng.dirichlet(share * (1 / rho - 1), nights)
                if rho > 0
                else np.tile(share, (nights, 1))
            )
            path = (
                rng.random((nights, runs))[:, :, None] > np.cumsum(shares, axis=1)[:, None, :-1]
            ).sum(axis=2)
        if s == 0 and gone is not None:
            top = int(np.bincount(path[:gone].ravel(), minlength=len(names)).argmax())
            path = np.where(
                (np.arange(nights)[:, None] >= gone) & (path == top), (top + 1) % len(names), path
            )
        suite.append(_counts(passed, crashed, path, names))
    return suite


def _run(
    suites: list[list[Counts]], nights: int, restart: bool = True, offset: float = 0.0
) -> tuple[list, list, float]:
    """Every suite's streams (each its own thresholds and pools) through one CUSUM call:
    the alarms, each alarm's (suite, key), and the first suite's pass-rate threshold.
    ``offset`` is added to every threshold (the calibration of ``MARGIN``)."""
    built = [streams_of(suite, nights) for suite in suites]
    keys = [(i, key) for i, st in enumerate(built) for key in st.keys]
    pools = np.cumsum([0] + [int(st.pool.max()) + 1 for st in built[:-1]])
    path = cusum(
        np.vstack([st.passes for st in built]),
        np.vstack([st.runs for st in built]),
        h=np.concatenate([st.h for st in built]) + offset,
        h_up=np.concatenate([st.h_up for st in built]) + offset,
        sides=np.concatenate([st.sides for st in built]),
        pool=np.concatenate([st.pool + o for st, o in zip(built, pools, strict=True)]),
        allowance=np.concatenate([st.allowance for st in built]),
        restart=restart,
    )
    h = built[0].drop_threshold + offset
    return list(path.raised), [keys[r.stream] for r in path.raised], h


def _share(hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"{hits / max(total, 1):.3f} ({low:.3f}-{high:.3f}; {hits}/{total})"


def _kind(raised, key) -> str:
    if key.path is not None:
        return "paths"
    if key.metric == "crash_rate":
        return "crash"
    return "rise" if raised.rise else "drop"


def aa(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    """The suite's ARL at each ``--offsets`` (the same suites: common random numbers), with
    the alarms by kind (pass-rate drop, pass-rate rise, crash-rate rise, path statistics)."""
    offsets = args.offsets
    raised: dict[float, list] = {o: [] for o in offsets}
    kinds: dict[float, list] = {o: [] for o in offsets}
    for chunk in range(0, args.suites, 100):  # 100 suites at a time: memory stays under 1 GB
        size = min(100, args.suites - chunk)
        suites = [_suite(scenarios, args.nights, source=source, rho=rho, runs=args.runs, rng=rng)
                  for _ in range(size)]  # fmt: skip
        for o in offsets:
            found, where, _ = _run(suites, args.nights, offset=o)
            raised[o] += [(r, i + chunk) for r, (i, _) in zip(found, where, strict=True)]
            kinds[o] += [_kind(r, key) for r, (_, key) in zip(found, where, strict=True)]
    exposure = args.suites * args.nights
    stats = streams_of(suites[0], args.nights)
    lines = []
    for o in offsets:
        alarms = len(raised[o])
        low = exposure / (chi2.ppf(0.975, 2 * alarms + 2) / 2)
        high = exposure / (chi2.ppf(0.025, 2 * alarms) / 2) if alarms else float("inf")
        # a stream's alarms cluster (a restart's short reference), so the suites, not the
        # alarms, are the independent units: the interval of the mean alarms per suite
        per = np.bincount([i for _, i in raised[o]], minlength=args.suites)
        spread = 1.96 * per.std(ddof=1) / np.sqrt(args.suites)
        s_low = args.nights / (per.mean() + spread)
        s_high = args.nights / (per.mean() - spread) if per.mean() > spread else float("inf")
        dispersion = per.var(ddof=1) / max(per.mean(), 1e-9)
        early = {i for r, i in raised[o] if r.night < 60}
        by = {k: kinds[o].count(k) for k in ("drop", "rise", "crash", "paths")}
        lines.append(
            f"A/A {source} S={scenarios} rho={rho} runs={args.runs} offset={o:+.2f}: "
            f"h {stats.drop_threshold + o:.2f} (rises {stats.rise_threshold + o:.2f}, "
            f"paths {(stats.path_threshold or 0) + o:.2f}; "
            f"{stats.statistics} statistics, {stats.path_statistics} on paths), {alarms} alarms "
            f"(drop {by['drop']}, rise {by['rise']}, crash {by['crash']}, paths {by['paths']}) "
            f"in {exposure} suite-nights: ARL {exposure / max(alarms, 1):.0f} "
            f"(95% {low:.0f}-{high:.0f} Poisson; {s_low:.0f}-{s_high:.0f} over suites, "
            f"alarms per suite dispersion {dispersion:.2f}); "
            f"suites alarmed in their first 60 nights "
            f"{_share(len(early), args.suites)}"
        )
    return "\n".join(lines)


def _first(raised: list, keys: list, metric: str, k: int) -> int | None:
    """The first alarm of scenario 0's ``metric`` raised from night ``k`` on."""
    return next(
        (
            i
            for i, (r, (_, key)) in enumerate(zip(raised, keys, strict=True))
            if key.scenario == 0 and key.metric == metric and r.night >= k
        ),
        None,
    )


def _shape(raised: list, i: int, counts: Counts, nights: int):
    lo, hi = raised[i].since, shape_end(raised, i, nights)
    return lo, shape_of(counts.passes[lo : hi + 1], counts.runs[lo : hi + 1])


def _changed(args, scenarios: int, source: str, rho: float, rng, shift_on, after: int):
    """A suite whose scenario 0 (pass rate 0.45) changes from a night k drawn in 20-59 on, by
    ``shift_on(d)`` on its d-th night of change (d = 1, 2, …), watched ``after`` nights more."""
    k = int(rng.integers(20, 60))
    nights = k + after
    shift = np.zeros((scenarios, nights))
    shift[0, k:] = shift_on(np.arange(1, nights - k + 1))
    suite = _suite(
        scenarios, nights, source=source, rho=rho, runs=args.runs, rng=rng, shift=shift, first=0.45
    )
    return k, nights, suite


def drop(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    named = dated = anything = h = 0
    for _ in range(args.series):
        k, nights, suite = _changed(args, scenarios, source, rho, rng, lambda d: -0.2, 30)
        raised, keys, h = _run([suite], nights)
        anything += any(
            key.scenario == 0 and k <= r.night <= k + 4 and key.metric != "crash_rate"
            for r, (_, key) in zip(raised, keys, strict=True)
        )
        i = _first(raised, keys, "pass_rate", k)
        if i is None or raised[i].night > k + 4 or raised[i].rise:
            continue
        named += 1
        lo, shape = _shape(raised, i, suite[0], nights)
        dated += abs(lo + shape.start - k) <= 2
    return (
        f"20-point drop {source} S={scenarios} rho={rho}: named within 5 nights "
        f"{_share(named, args.series)}; dated within 2 nights of k {_share(dated, named)}; "
        f"any alarm of the scenario within 5 nights (pass rate or paths) "
        f"{_share(anything, args.series)}; the report's figure {drop_named(h, args.runs):.3f}"
    )


def drift(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    worded = 0
    for _ in range(args.series):
        k, nights, suite = _changed(args, scenarios, source, rho, rng, lambda d: -0.01 * d, 40)
        raised, keys, _ = _run([suite], nights)
        i = _first(raised, keys, "pass_rate", k)
        if i is None:
            continue
        lo, shape = _shape(raised, i, suite[0], nights)
        worded += shape.drift and not raised[i].rise and abs(lo + shape.start - k) <= 5
    return (
        f"1-point-a-night drift {source} S={scenarios} rho={rho}: worded a drift with onset "
        f"within 5 nights {_share(worded, args.series)}"
    )


def gone(args: argparse.Namespace, scenarios: int, source: str, rho: float, rng) -> str:
    """Scenario 0's most taken path gone from night k (its runs take another): a simulated
    suite's scenario 0 is given two paths; a real suite starts with multiply (two paths)."""
    named = dated = 0
    for _ in range(args.series):
        k = int(rng.integers(20, 60))
        nights = k + 30
        suite = _suite(scenarios, nights, source=source, rho=rho, runs=args.runs, rng=rng, gone=k)
        raised, keys, _ = _run([suite], nights)
        i = _first(raised, keys, "tool_usage", k)
        if i is None or raised[i].night > k + 4:
            continue
        named += 1
        lo, hi = raised[i].since, shape_end(raised, i, nights)
        key = keys[i][1]
        x = suite[0].paths[key.path]
        n = np.sum(list(suite[0].paths.values()), axis=0)
        dated += abs(lo + shape_of(x[lo : hi + 1], n[lo : hi + 1]).start - k) <= 2
    return (
        f"a path gone {source} S={scenarios} rho={rho}: tool mix named within 5 nights "
        f"{_share(named, args.series)}; dated within 2 nights of k {_share(dated, named)}"
    )


def _beyond(k: float, n: float, bk: float, bn: float, band: float = 0.10) -> bool:
    d, low, high = newcombe(k, n, bk, bn)
    return (low > 0 or high < 0) and abs(d) > band


def _flat_rule(base: float, nights: np.ndarray, runs: float) -> bool:
    """The drift line before issue 36's fix: flaky nights counted as fewer runs by their spread
    around one rate, the interval read as normal."""
    n = np.full(len(nights), runs)
    phi = spread_ratio(nights, n)
    bk, bn = base / phi, runs / phi
    return _beyond(nights.sum() / phi, n.sum() / phi, bk, bn) or _beyond(
        nights[-3:].sum() / phi, n[-3:].sum() / phi, bk, bn
    )


def drift_rule(args: argparse.Namespace, rho: float, rng) -> str:
    """The baseline drift line on 30 nights against a 20-run baseline night, before (spread
    around one rate, normal interval) and after (``drift_line``: spread around the best step or
    broken line, Student's t): A/A series (a rate in 0.2-0.45), and its power on a slide of 1
    point a night from the baseline's rate (in 0.55-0.8; ``beyond the band`` on night 30)."""
    hits = {"aa before": 0, "aa after": 0, "slide before": 0, "slide after": 0}
    n = np.full(30, float(args.runs))
    for _ in range(args.series):
        for case, p, step in (
            ("aa", rng.uniform(0.2, 0.45), 0.0),
            ("slide", rng.uniform(0.55, 0.8), 0.01),
        ):
            rates = _rates(np.clip(p - step * np.arange(31), 0, 1), rho, rng)
            x = rng.binomial(args.runs, rates).astype(float)
            hits[f"{case} before"] += _flat_rule(x[0], x[1:], float(args.runs))
            hits[f"{case} after"] += drift_line(x[1:], n, x[0], args.runs, band=0.10).beyond_band
    share = {case: _share(hit, args.series) for case, hit in hits.items()}
    return (
        f"drift rule rho={rho}: A/A beyond the band before {share['aa before']}; "
        f"after {share['aa after']} | 1-point-a-night slide, 30 nights: "
        f"before {share['slide before']}; after {share['slide after']}"
    )


def flaky(args: argparse.Namespace, rho: float, rng) -> str:
    """A/A suites of 4 scenarios over ``--flaky-nights`` nights as the trend reads them: the
    flaky test (Tarone's, alpha 0.05, around the newest pass-rate alarm's step when there is
    one, as the product tests it) and the monitoring's pass-rate alarms, with how many of those
    read as a drift: at rho 0 the flaky test's level, at rho > 0 its power and whether the
    flaky scenarios' alarms hold their level."""
    nights, scenarios = args.flaky_nights, 4
    named = alarmed = drifts = 0
    for _ in range(args.series):
        suite = _suite(scenarios, nights, source="sim", rho=rho, runs=args.runs, rng=rng)
        raised, keys, _ = _run([suite], nights)
        for s, counts in enumerate(suite):
            mine = [
                i
                for i, (_, key) in enumerate(keys)
                if key.scenario == s and key.metric == "pass_rate"
            ]
            change = None
            if mine:
                alarmed += 1
                lo, shape = _shape(raised, mine[-1], counts, nights)
                drifts += any(_shape(raised, i, counts, nights)[1].drift for i in mine)
                change = lo + shape.start if 0 < lo + shape.start < nights else None
            spread = overdispersion(counts.passes, counts.runs, change=change, sims=199, rng=rng)
            named += spread.p_value <= 0.05
    total = args.series * scenarios
    return (
        f"A/A flaky rho={rho}, {nights} nights x {args.runs} runs, 4 scenarios: flaky named "
        f"{_share(named, total)} of scenarios; a pass-rate alarm {_share(alarmed, total)}; "
        f"one worded a drift {_share(drifts, total)}"
    )


def old_scan(args: argparse.Namespace, rng) -> list[str]:
    """Before (main at 07a0b52): the per-look change scan over the newest 30 nights, re-run
    every night at alpha 0.05, on 60-night A/A streams of a 4-scenario suite; and the night it
    names for a 1-point-a-night drift from night k (read at k + 20, the onset inside the
    window)."""
    streams = max(args.series // 4, 10)
    alarmed = 0
    for _ in range(streams):
        x = np.vstack(
            [c.passes for c in _suite(4, 60, source="sim", rho=0.0, runs=args.runs, rng=rng)]
        )
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
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 20], help="suite sizes")
    parser.add_argument("--binomial", action="store_true", help="binomial and real nights only")
    parser.add_argument(
        "--offsets", type=float, nargs="+", default=[0.0],
        help="A/A: added to every threshold, each on the same suites (MARGIN's calibration)",
    )  # fmt: skip
    parser.add_argument("--rho", type=float, nargs="+", help="only these rho (0: binomial, real)")
    parser.add_argument("--sources", nargs="+", choices=("sim", "real"), default=["sim", "real"])
    parser.add_argument("--flaky-nights", type=int, default=60, help="nights per flaky series")
    parser.add_argument(
        "--only", choices=("aa", "drop", "drift", "gone", "rule", "flaky", "before")
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    began = time.process_time()
    cases = [("sim", 0.0), ("sim", 0.1), ("sim", 0.2), ("real", 0.0)]
    cases = [c for c in cases if not args.binomial or c[1] == 0.0]
    cases = [c for c in cases if c[0] in args.sources and (args.rho is None or c[1] in args.rho)]
    for name, measure in (("aa", aa), ("drop", drop), ("drift", drift), ("gone", gone)):
        for scenarios in args.sizes if args.only in (None, name) else ():
            for source, rho in cases:
                print(measure(args, scenarios, source, rho, rng), flush=True)
    if args.only in (None, "rule"):
        for rho in (0.0, 0.1, 0.2):
            print(drift_rule(args, rho, rng), flush=True)
    if args.only in (None, "flaky"):
        for rho in (0.0, 0.1, 0.2):
            print(flaky(args, rho, rng), flush=True)
    if args.only in (None, "before"):
        for line in old_scan(args, rng):
            print(line, flush=True)
    print(f"CPU {time.process_time() - began:.1f} s")


if __name__ == "__main__":
    main()
