"""How much power is there to find? The history figure of issue 9 against its ceilings.

The nightly's target with a 5-night baseline history (10 runs per night) against a candidate
night of 10 runs is 80 % power on the demo-shaped weather_bot break (``bench_power.py --only
history-demo``). This script asks what bounds that figure, on the broken scenarios of the same
kind of nights (``_demo_shaped.py``), each tested at the level a scenario test gets in the
default nightly (Šidák over 4 scenarios at 90 % of alpha = 0.05: 0.0114):

* **oracle**: the Neyman-Pearson test of each broken scenario's true run distribution (mode of
  tool use x pass) against its true broken distribution, both known exactly, calibrated by
  simulation. No real test can know either; it is the ceiling.
* **statistics** a real test could use, each a permutation test over the same 2,000 random
  arrangements of the scenario's 60 runs (50 baseline, 10 candidate):

  - ``pass``: the candidate's pass share (one-sided, lower is worse);
  - ``tool TVD``: the tool-mix TVD the nightly uses (calls per tool plus one end per run);
  - ``tool chi2``: Pearson's chi-square of the same table;
  - ``path x outcome chi2`` / ``max z``: each run's category (its most-called tool, or none, by
    passed or not): chi-square, or the largest standardised excess of one category;
  - ``path x failure max z``: the same, over the failing categories only (the nightly's
    failing-paths metric); ``path x (fail, crash)``: crashes as an outcome of their own;
  - ``crash``: the candidate's crash count;
  - combinations of those by Fisher's method (``pass + crash + tool TVD`` is the first
    version of the nightly's combined test; ``+ path x failure max z`` the current one);
  - **told the wrong tool**: the z of the one category the break feeds (the wrong tool, failed)
    with the pass share, a test no real nightly can build: it shows what not knowing which path
    breaks costs.

A night counts as caught when either broken scenario's test is at or under 0.0114 (the quiet
scenarios of a real night could only add false alarms, and the suite share is left out;
``--suite-share`` changes the level).

Run: python benchmarks/bench_power_ceiling.py [--nights 300] [--seed 9] [--suite-share 0.1]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_shaped import history, make_batch, scenario_params

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
RESAMPLES = 2000
Statistic = Callable[[BoolArray], FloatArray]


def arrangements(n_b: int, n_c: int, rng: np.random.Generator) -> BoolArray:
    """Row 0 the observed labelling (candidate last), then random ones."""
    masks = np.zeros((RESAMPLES + 1, n_b + n_c), dtype=bool)
    masks[0, n_b:] = True
    for row in masks[1:]:
        row[rng.choice(n_b + n_c, n_c, replace=False)] = True
    return masks


def pvalues(stat: FloatArray) -> FloatArray:
    """Permutation p-value of every arrangement (larger statistic is more extreme)."""
    ordered = np.sort(stat)
    below = np.searchsorted(ordered, stat - 1e-12, side="left")
    return (len(stat) - below) / len(stat)


def fisher(*columns: FloatArray) -> FloatArray:
    return pvalues(-np.log(np.maximum(np.column_stack(columns), 1e-9)).sum(axis=1))


def _arms(counts: FloatArray, masks: BoolArray) -> tuple[FloatArray, FloatArray]:
    in_c = masks.astype(float) @ counts
    return in_c, counts.sum(axis=0)[None, :] - in_c


def tvd(counts: FloatArray) -> Statistic:
    def stat(masks: BoolArray) -> FloatArray:
        in_c, in_b = _arms(counts, masks)
        share_c = in_c / in_c.sum(axis=1, keepdims=True)
        share_b = in_b / in_b.sum(axis=1, keepdims=True)
        return np.asarray(0.5 * np.abs(share_c - share_b).sum(axis=1))

    return stat


def chi2(counts: FloatArray) -> Statistic:
    share = counts.sum(axis=0) / counts.sum()

    def stat(masks: BoolArray) -> FloatArray:
        in_c, in_b = _arms(counts, masks)
        total = np.zeros(len(masks))
        for observed in (in_c, in_b):
            expected = observed.sum(axis=1, keepdims=True) * share[None, :]
            safe = np.where(expected > 0, expected, 1.0)
            total += np.where(expected > 0, (observed - expected) ** 2 / safe, 0.0).sum(axis=1)
        return total

    return stat


def max_z(counts: FloatArray, columns: Sequence[int] | None = None) -> Statistic:
    """Largest standardised excess share of one category in the candidate (among ``columns``)."""
    share = counts.sum(axis=0) / counts.sum()
    spread = np.sqrt(np.maximum(share * (1 - share), 1e-9))
    keep = list(range(counts.shape[1])) if columns is None else list(columns)

    def stat(masks: BoolArray) -> FloatArray:
        in_c, in_b = _arms(counts, masks)
        n_c, n_b = in_c.sum(axis=1, keepdims=True), in_b.sum(axis=1, keepdims=True)
        z = (in_c / n_c - in_b / n_b) / (spread * np.sqrt(1 / n_c + 1 / n_b))
        return np.asarray(z[:, keep].max(axis=1))

    return stat


def one_hot(keys: Sequence[Hashable]) -> FloatArray:
    labels = {k: i for i, k in enumerate(sorted(set(keys), key=repr))}
    table = np.zeros((len(keys), len(labels)))
    table[np.arange(len(keys)), [labels[k] for k in keys]] = 1.0
    return table


def scenario_pvalues(
    tool_counts: Sequence[dict[str, int]],
    passed: FloatArray,
    crashed: FloatArray,
    n_b: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Every candidate test of one scenario (baseline runs first)."""
    masks = arrangements(n_b, len(passed) - n_b, rng)
    tools = sorted({t for row in tool_counts for t, k in row.items() if k})
    mix = np.array([[row.get(t, 0) for t in tools] + [1] for row in tool_counts], dtype=float)
    path = [max(row, key=lambda t: row[t]) if any(row.values()) else "" for row in tool_counts]
    keys = [(p, int(x)) for p, x in zip(path, passed, strict=True)]
    cells = one_hot(keys)
    failing = [i for i, key in enumerate(sorted(set(keys), key=repr)) if key[1] == 0]
    n_c = masks.sum(axis=1)
    p_pass = pvalues(-(masks.astype(float) @ passed) / n_c)
    p_tvd, p_chi2 = pvalues(tvd(mix)(masks)), pvalues(chi2(mix)(masks))
    p_cells, p_maxz = pvalues(chi2(cells)(masks)), pvalues(max_z(cells)(masks))
    p_failz = pvalues(max_z(cells, failing)(masks)) if failing else np.ones(len(masks))
    outcome = [2 if k else int(x) for x, k in zip(passed, crashed, strict=True)]
    keys3 = [(p, o) for p, o in zip(path, outcome, strict=True)]
    cells3 = one_hot(keys3)
    p_maxz3 = pvalues(max_z(cells3)(masks))
    bad3 = [i for i, key in enumerate(sorted(set(keys3), key=repr)) if key[1] != 1]
    p_badz3 = pvalues(max_z(cells3, bad3)(masks)) if bad3 else np.ones(len(masks))
    told = [i for i, key in enumerate(sorted(set(keys), key=repr)) if key == ("wrong_tool", 0)]
    p_told = pvalues(max_z(cells, told)(masks)) if told else np.ones(len(masks))
    crash_c = masks.astype(float) @ crashed
    p_crash = pvalues(crash_c) if crashed.any() else np.ones(len(masks))
    columns = {
        "pass": p_pass,
        "tool TVD": p_tvd,
        "tool chi2": p_chi2,
        "path x outcome chi2": p_cells,
        "path x outcome max z": p_maxz,
        "pass + tool TVD": fisher(p_pass, p_tvd),
        "pass + tool chi2": fisher(p_pass, p_chi2),
        "pass + path x outcome max z": fisher(p_pass, p_maxz),
        "pass + tool TVD + path x outcome max z": fisher(p_pass, p_tvd, p_maxz),
        "path x failure max z": p_failz,
        "pass + path x failure max z": fisher(p_pass, p_failz),
        "pass + tool TVD + path x failure max z": fisher(p_pass, p_tvd, p_failz),
        "pass + crash + tool TVD (the nightly's)": fisher(p_pass, p_crash, p_tvd),
        "pass + crash + path x outcome max z": fisher(p_pass, p_crash, p_maxz),
        "pass + path x (pass, fail, crash) max z": fisher(p_pass, p_maxz3),
        "pass + path x (fail, crash) max z": fisher(p_pass, p_badz3),
        "pass + tool TVD + path x (fail, crash) max z": fisher(p_pass, p_tvd, p_badz3),
        "pass + crash + tool TVD + path x failure max z": fisher(p_pass, p_crash, p_tvd, p_failz),
        "told the wrong tool: pass + its failing share's z": fisher(p_pass, p_told),
    }
    return {name: float(column[0]) for name, column in columns.items()}


def _cell_probabilities(p: dict[str, Any], broken: bool) -> FloatArray:
    """Mode of tool use (tools, then none) x (fail, pass), as the generator draws them."""
    modes = np.asarray(p["modes"])
    rate = (p["pass"] - 0.25) / 0.5 if broken else p["pass"]
    weight = 0.5 if broken else 1.0
    cells = np.column_stack([weight * modes * (1 - rate), weight * modes * rate])
    if broken:
        cells[1, 0] += 0.5  # taken over by the wrong tool, and failing
    return np.asarray(cells.ravel())


def oracle_caught(p: dict[str, Any], runs: int, level: float, rng: np.random.Generator) -> bool:
    """The likelihood-ratio test of the known null against the known break, one candidate."""
    null, broken = _cell_probabilities(p, False), _cell_probabilities(p, True)
    score = np.log(np.maximum(broken, 1e-12) / np.maximum(null, 1e-12))
    threshold = np.quantile(rng.multinomial(runs, null, size=20_000) @ score, 1 - level)
    return bool(rng.multinomial(runs, broken) @ score > threshold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=300)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--suite-share", type=float, default=0.1)
    args = parser.parse_args()
    level = 1 - (1 - 0.05 * (1 - args.suite_share)) ** (1 / 4)
    rng = np.random.default_rng(args.seed)
    caught: dict[str, int] = {}
    scenarios: dict[str, int] = {}
    oracle = 0
    start = time.perf_counter()
    for _ in range(args.nights):
        params = scenario_params(4, rng, broken=(0, 1))[:2]
        base = history(params, 5, 10, rng)
        cand = make_batch(params, 10, rng, candidate=True, batch_id="candidate")
        night: dict[str, list[float]] = {}
        for p in params:
            b = base[base["scenario"] == p["scenario"]]
            c = cand[cand["scenario"] == p["scenario"]]
            counts = [*b["tool_counts"], *c["tool_counts"]]
            passed = np.r_[b["passed"].to_numpy(), c["passed"].to_numpy()].astype(float)
            crashed = np.r_[b["crashed"].to_numpy(), c["crashed"].to_numpy()].astype(float)
            for name, value in scenario_pvalues(counts, passed, crashed, len(b), rng).items():
                night.setdefault(name, []).append(value)
                scenarios[name] = scenarios.get(name, 0) + (value <= level)
        oracle += any([oracle_caught(p, 10, level, rng) for p in params])
        for name, values in night.items():
            caught[name] = caught.get(name, 0) + (min(values) <= level)
    elapsed = time.perf_counter() - start
    print(f"{args.nights} nights, 2 broken scenarios each, level {level:.4f} ({elapsed:.0f} s)")
    print("| test | broken scenarios caught | nights caught (either scenario) |")
    print("|---|---:|---:|")
    print(f"| oracle (likelihood ratio, both laws known) | - | {oracle / args.nights:.3f} |")
    for name, hits in caught.items():
        per = scenarios[name] / (2 * args.nights)
        print(f"| {name} | {per:.3f} | {hits / args.nights:.3f} |")


if __name__ == "__main__":
    main()
