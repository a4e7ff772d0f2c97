"""Nights made of run rows drawn at given pass rates (for the store of nights' tests)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np
import pandas as pd

from trajguard.nights import NightInput


def run_rows(
    rates: Mapping[str, float],
    *,
    runs: int,
    seed: int,
    weather: Mapping[str, float] | None = None,
    weather_fails: bool = False,
) -> pd.DataFrame:
    """Runs at ``rates``; every run's path is the calculator, but a scenario's ``weather`` share
    of its runs call get_weather most. With ``weather_fails`` those fail and the others pass
    (the failures move onto one path)."""
    rng = np.random.default_rng(seed)
    rows = []
    for scenario, rate in rates.items():
        share = (weather or {}).get(scenario, 0.0)
        for index in range(runs):
            tools = ["calculator"] if rng.random() < 0.7 else ["lookup_country", "calculator"]
            passed = bool(rng.random() < rate)
            if share and index < round(share * runs):
                tools = ["get_weather", "get_weather", "calculator"]
            if weather_fails:
                passed = tools[0] != "get_weather"
            rows.append(
                {
                    "scenario": scenario,
                    "variant": "base",
                    "run_index": index,
                    "status": "ok",
                    "passed": passed,
                    "crashed": False,
                    "step_count": int(rng.integers(3, 7)),
                    "tool_counts": sorted(Counter(tools).items()),
                    "prompt_tokens": 500,
                    "completion_tokens": 40,
                    "total_tokens": 540,
                    "duration_s": float(rng.uniform(1, 3)),
                }
            )
    return pd.DataFrame(rows)


def night(
    night_id: str,
    *,
    date: str = "2026-12-01",
    rates: Mapping[str, float] | None = None,
    runs: int = 20,
    seed: int = 0,
    suite: str = "demo",
    baseline_batch: str | None = "base1",
    pinned: bool = True,
    baseline_rates: Mapping[str, float] | None = None,
    weather: Mapping[str, float] | None = None,
    weather_fails: bool = False,
) -> NightInput:
    rates = rates or {"capital": 0.3, "multiply": 0.6}
    base = (
        run_rows(baseline_rates or rates, runs=runs, seed=10_000 + seed) if baseline_batch else None
    )
    return NightInput(
        suite=suite,
        date=date,
        night_id=night_id,
        runs=run_rows(rates, runs=runs, seed=seed, weather=weather, weather_fails=weather_fails),
        runset=f"reports/{date}/runs",
        git_sha="f00",
        model="local/smollm2",
        verdicts=dict.fromkeys(rates, "unchanged"),
        night_verdict="unchanged",
        exit_code=0,
        comparison='{"verdict": "unchanged"}',
        baseline="baselines/demo",
        baseline_runs=base,
        baseline_batch=baseline_batch,
        baseline_started_at="2026-11-29T03:17:00+00:00" if baseline_batch else None,
        baseline_pinned=pinned if baseline_batch else None,
        config_hashes={f"{s}/base": "abc" for s in rates},
    )
