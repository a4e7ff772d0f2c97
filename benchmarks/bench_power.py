"""Power without false alarms: whole simulated nights through the real comparison code.

Run: python benchmarks/bench_power.py [--only PART] [--nights 1000] [--power-nights 500]
       [--seed 0]

Parts (each prints a table; benchmarks/RESULTS.md has the figures and the exact commands):

* ``aa``: A/A nights with the default gates: demo-shaped 4 scenarios x 20 runs, the
  calibration benchmark's 20 scenarios x 20 runs (bench_compare.py's generator), and a 5-night
  history of 10 runs per night against 10 runs. Share of nights with any gating alarm (exit 1);
  target at most alpha = 0.05. ``aa-calibration``: the second table alone (same seed).
  ``aa-uniformity``: the scenario tests' p-values of those nights against the uniform law.
* ``demo``: power at N = 20 per side, 4 demo-shaped scenarios of which 2 break the way
  weather_bot broke the demo (_demo_shaped.py): the default nightly against the first version
  of the gates (pass, crash, tool mix) and against today's (pass and crash rate, Holm, no
  suite gate), on the same nights; target >= 80 %.
* ``uniform``: a uniform 15-point pass-rate drop over 20 scenarios; target >= 80 %.
* ``history``: the same three figures with a 5-night baseline history at N = 10 per night
  (``history-aa``, ``history-demo``, ``history-uniform``: one of them, same seeds;
  ``--history-runs N``: N runs per night instead of 10).
* ``reference``: the history figure's ceiling from multiplicity: the same combined test told
  which two scenarios broke.
* ``gates``: power on the demo break and A/A false alarms for candidate gating sets (how the
  default set was chosen).
* ``escalation``: the --max-runs design (N = 20 up to 60) on A/A nights and on the demo break.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _demo_shaped import history, make_batch, scenario_params
from bench_compare import make_runs
from bench_compare import scenario_params as calibration_params

from trajguard import stats as st
from trajguard.comparison import CompareConfig, compare_runsets
from trajguard.comparison._escalation import escalation_plan, later_look, leaning

GATING = ("pass_rate", "crash_rate", "tool_usage", "failing_paths")
DEFAULT = CompareConfig(metrics=GATING)
FIRST_GATES = ("pass_rate", "crash_rate", "tool_usage")
# The default of the first version of these gates (before failing paths joined them).
FIRST = CompareConfig(metrics=FIRST_GATES, gating=frozenset(FIRST_GATES))
TODAY = CompareConfig(
    metrics=("pass_rate", "crash_rate"),
    gating=frozenset({"pass_rate", "crash_rate"}),
    multiplicity="holm",
    suite_share=0.0,
)
POWER_CONFIGS = {
    "default nightly": DEFAULT,
    "first gates (pass, crash, tool mix)": FIRST,
    "today (pass+crash, Holm)": TODAY,
}
Night = Callable[[np.random.Generator], tuple[pd.DataFrame, pd.DataFrame]]


def share(hits: int, total: int) -> str:
    low, high = st.wilson_interval(hits, total)
    return f"{hits / total:.3f} ({hits}/{total}; 95% CI {low:.3f}-{high:.3f})"


def demo_night(runs: int, broken: tuple[int, ...], nights: int = 1) -> Night:
    def night(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
        params = scenario_params(4, rng, broken=broken)
        base = history(params, nights, runs, rng) if nights > 1 else make_batch(params, runs, rng)
        return base, make_batch(params, runs, rng, candidate=True, batch_id="candidate")

    return night


def uniform_night(runs: int, drop: float, nights: int = 1, scenarios: int = 20) -> Night:
    def night(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
        params = scenario_params(scenarios, rng)
        base = history(params, nights, runs, rng) if nights > 1 else make_batch(params, runs, rng)
        cand = make_batch(params, runs, rng, candidate=True, uniform_drop=drop, batch_id="c")
        return base, cand

    return night


def calibration_night(runs: int) -> Night:
    def night(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
        params = calibration_params(20, seed=int(rng.integers(1 << 31)))
        seed = int(rng.integers(1 << 31))
        return make_runs(params, runs, seed=seed), make_runs(params, runs, seed=seed + 1)

    return night


def run_nights(
    label: str, night: Night, configs: dict[str, CompareConfig], nights: int, seed: int
) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    alarms = dict.fromkeys(configs, 0)
    start = time.perf_counter()
    for i in range(nights):
        base, cand = night(rng)
        for name, config in configs.items():
            alarms[name] += compare_runsets(base, cand, config=replace(config, seed=i)).regressed
        if (i + 1) % 100 == 0 and i + 1 < nights:
            # Partial tallies, so that a run cut short still says what it saw.
            counts = ", ".join(f"{k} {v}/{i + 1}" for k, v in alarms.items())
            print(f"  [{label}: {counts}; {time.perf_counter() - start:.0f} s]", flush=True)
    elapsed = time.perf_counter() - start
    print(f"{label} ({nights} nights, {elapsed:.0f} s)")
    for name, hits in alarms.items():
        print(f"  {name:<34} {share(hits, nights)}")
    return alarms


def part_aa(nights: int, seed: int, pieces: str = "all") -> None:
    """``pieces``: all, or ``calibration`` (the second table alone, same seed)."""
    print(
        "A/A nights with the default gates (pass, crash, tool usage, failing paths); target <= .05"
    )
    if pieces == "all":
        run_nights(
            "demo-shaped, 4 scenarios x 20 runs",
            demo_night(20, ()),
            {"default": DEFAULT},
            nights,
            seed,
        )
    run_nights(
        "calibration generator, 20 scenarios x 20 runs",
        calibration_night(20),
        {"default": DEFAULT},
        nights,
        seed + 1,
    )
    if pieces != "all":
        return
    run_nights(
        "demo-shaped, 5-night history x 10 runs against 10",
        demo_night(10, (), 5),
        {"default": DEFAULT},
        nights,
        seed + 2,
    )


def part_demo(nights: int, seed: int) -> None:
    print("Power, 2 of 4 demo-shaped scenarios broken the weather_bot way, N = 20; target >= .80")
    run_nights(
        "N = 20 per side",
        demo_night(20, (0, 1)),
        POWER_CONFIGS,
        nights,
        seed,
    )


def part_uniform(nights: int, seed: int) -> None:
    print("Power, uniform 15-point pass-rate drop over 20 demo-shaped scenarios; target >= .80")
    run_nights(
        "N = 20 per side",
        uniform_night(20, 0.15),
        POWER_CONFIGS,
        nights,
        seed,
    )


def part_uniformity(nights: int, seed: int) -> None:
    """The scenario tests' p-values on A/A nights of the calibration generator: an exact test's
    are uniform, so P(p <= x) should be x (the nights' alarm rate then sits at alpha)."""
    rng = np.random.default_rng(seed)
    night = calibration_night(20)
    values = []
    for i in range(nights):
        base, cand = night(rng)
        result = compare_runsets(base, cand, config=replace(DEFAULT, seed=i))
        values += [s.gate.p_value for s in result.scenarios if s.gate is not None]
    p = np.asarray(values)
    print(f"Scenario p-values of {nights} A/A nights, calibration generator ({len(p)} values)")
    for x in (0.001, 0.0023, 0.005, 0.01, 0.05, 0.1, 0.5):
        hits = int((p <= x).sum())
        z = (hits - x * len(p)) / np.sqrt(len(p) * x * (1 - x))
        print(f"  P(p <= {x:<6}) = {hits / len(p):.5f} ({hits}/{len(p)}; z = {z:+.2f})")


def part_history(
    nights: int, power_nights: int, seed: int, pieces: str = "all", runs: int = 10
) -> None:
    """``pieces``: all, or one of aa / demo / uniform (the same seeds either way, so the pieces
    run as separate processes give the figures of the whole part)."""
    print(f"5-night baseline history ({runs} runs per night) against a night of {runs} runs")
    if pieces in ("all", "aa"):
        aa = demo_night(runs, (), 5)
        run_nights("A/A, 4 demo-shaped scenarios", aa, {"default": DEFAULT}, nights, seed)
    if pieces in ("all", "demo"):
        run_nights(
            "2 of 4 broken the weather_bot way",
            demo_night(runs, (0, 1), 5),
            POWER_CONFIGS,
            power_nights,
            seed + 1,
        )
    if pieces in ("all", "uniform"):
        run_nights(
            "uniform 15-point drop, 20 scenarios",
            uniform_night(runs, 0.15, 5),
            POWER_CONFIGS,
            power_nights,
            seed + 2,
        )


def part_reference(nights: int, seed: int) -> None:
    """How much of the history shortfall is multiplicity: the same combined test on the two
    broken scenarios alone (told which broke; no quiet scenario, no suite share)."""
    inner = demo_night(10, (0, 1), 5)

    def broken_only(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
        base, cand = inner(rng)
        keep = ["s000", "s001"]
        return base[base["scenario"].isin(keep)], cand[cand["scenario"].isin(keep)]

    config = replace(DEFAULT, suite_share=0.0)
    print("Reference: history at N = 10, the family told which 2 scenarios broke")
    run_nights("2 broken scenarios only", broken_only, {"combined test": config}, nights, seed)


def part_gates(nights: int, seed: int) -> None:
    sets = {
        "pass, crash": ("pass_rate", "crash_rate"),
        "pass, crash, tools": FIRST_GATES,
        "pass, crash, failing paths": ("pass_rate", "crash_rate", "failing_paths"),
        "pass, crash, tools, failing paths (default)": GATING,
        "+ tool order": (*GATING, "tool_sequence"),
        "+ steps": (*GATING, "step_count"),
        "+ prompt tokens": (*GATING, "prompt_tokens"),
    }
    configs = {k: CompareConfig(metrics=v, gating=frozenset(v)) for k, v in sets.items()}
    print("Gating sets (combined per-scenario test, suite gate), demo-shaped 4 x 20 runs")
    run_nights("2 of 4 broken the weather_bot way", demo_night(20, (0, 1)), configs, nights, seed)
    run_nights("A/A", demo_night(20, ()), configs, nights, seed + 1)


def _escalated_night(
    base: pd.DataFrame,
    cand_first: pd.DataFrame,
    more: Callable[[str, int], pd.DataFrame],
    seed: int,
) -> tuple[bool, int]:
    """One simulated night under the escalation design; returns (alarm, candidate runs)."""
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=4)
    first = compare_runsets(
        base, cand_first, config=replace(DEFAULT, alpha=design.alpha_first, seed=seed)
    )
    decided = leaning(first, design)
    alarm = first.regressed
    spent = len(cand_first)
    resampling = replace(DEFAULT.resampling, max_resamples=int(20 / min(design.thresholds)))
    single = replace(DEFAULT, suite_share=0.0, resampling=resampling, seed=seed)
    for scenario, stop in decided.items():
        if stop is not None:
            continue
        rows, seen = cand_first[cand_first["scenario"] == scenario], ()
        for look in range(1, len(design.looks)):
            extra = design.looks[look] - design.looks[look - 1]
            rows = pd.concat([rows, more(scenario, extra)], ignore_index=True)
            spent += extra
            b = base[base["scenario"] == scenario]
            result = compare_runsets(b, rows, config=single).scenario(scenario)
            stop, seen = later_look(result, design, look, seen)
            if stop is not None:
                alarm = alarm or bool(stop.regressed)
                break
    return alarm, spent


def part_escalation(nights: int, seed: int) -> None:
    print("Escalation (--max-runs 60 after N = 20; 4 demo-shaped scenarios)")
    for label, broken in (("A/A", ()), ("2 of 4 broken the weather_bot way", (0, 1))):
        rng = np.random.default_rng(seed)
        alarms = runs = 0
        start = time.perf_counter()
        for i in range(nights):
            params = scenario_params(4, rng, broken=broken)
            base = make_batch(params, 20, rng)
            cand = make_batch(params, 20, rng, candidate=True, batch_id="c")

            def more(
                scenario: str,
                count: int,
                params: list = params,
                rng: np.random.Generator = rng,
            ) -> pd.DataFrame:
                only = [p for p in params if p["scenario"] == scenario]
                return make_batch(only, count, rng, candidate=True, batch_id="c")

            alarm, spent = _escalated_night(base, cand, more, i)
            alarms += alarm
            runs += spent
        print(f"{label} ({nights} nights, {time.perf_counter() - start:.0f} s)")
        print(
            f"  nights with an alarm: {share(alarms, nights)}; candidate runs per night "
            f"{runs / nights:.1f} (fixed: 80, budget: 240)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=1000)
    parser.add_argument("--power-nights", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--history-runs", type=int, default=10, help="runs per night in the history parts"
    )
    parser.add_argument(
        "--only",
        choices=[
            "aa",
            "aa-calibration",
            "aa-uniformity",
            "demo",
            "uniform",
            "history",
            "history-aa",
            "history-demo",
            "history-uniform",
            "reference",
            "gates",
            "escalation",
        ],
    )
    args = parser.parse_args()
    if args.only in (None, "aa"):
        part_aa(args.nights, args.seed)
    if args.only == "aa-calibration":
        part_aa(args.nights, args.seed, "calibration")
    if args.only == "aa-uniformity":
        part_uniformity(args.nights, args.seed)
    if args.only in (None, "demo"):
        part_demo(args.power_nights, args.seed + 10)
    if args.only in (None, "uniform"):
        part_uniform(args.power_nights, args.seed + 20)
    if args.only in (None, "history"):
        part_history(args.nights, args.power_nights, args.seed + 30, runs=args.history_runs)
    if args.only is not None and args.only.startswith("history-"):
        piece = args.only.removeprefix("history-")
        part_history(args.nights, args.power_nights, args.seed + 30, piece, args.history_runs)
    if args.only in (None, "reference"):
        part_reference(args.power_nights, args.seed + 31)
    if args.only in (None, "gates"):
        part_gates(args.power_nights, args.seed + 40)
    if args.only in (None, "escalation"):
        part_escalation(args.power_nights, args.seed + 50)


if __name__ == "__main__":
    main()
