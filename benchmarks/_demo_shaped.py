"""Demo-shaped synthetic scenarios for the power benchmark (bench_power.py).

Shaped after the demo baseline of 2026-11-29 (benchmarks/data/real-nights-2026-12-01/baseline:
4 scenarios, pass rates 20-45 %, 2-3 tools, runs that mostly repeat one tool, 0-3 calls) and
after how the weather_bot prompt broke two of them on the real model (benchmarks/RESULTS.md,
"Real-model A/B check"):

* a scenario has 2 or 3 tools plus a "no tool" mode; each run picks a mode (Dirichlet(1)
  shares), makes the scenario's usual number of calls (1-3; ±1 in 15 % of runs), each call with
  the run's mode tool 90 % of the time; steps = 2 calls + 1 (+1 in 20 % of runs), prompt tokens
  log-normal rising with calls, a crash rate of 0-3 %;
* **broken the weather_bot way**: half of the candidate's runs are taken over by the wrong tool
  (every call goes to tool 1, at least one call) and fail; the other runs pass at the rate that
  makes the scenario's pass rate drop by 25 points. Broken scenarios start at 30-45 % (the
  real ones were 35 % and 30 %). The resulting tool shift matches the real one: Cramér's V of
  the calls-by-tool table 0.32 (median over simulations) against 0.30, 0.34 and 0.42 measured
  on the real model;
* **uniform drop**: every scenario's pass rate 15 points lower, nothing else changed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

TOOLS = ("right_tool", "wrong_tool", "other_tool")


def scenario_params(
    count: int, rng: np.random.Generator, *, broken: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """True behaviour of ``count`` scenarios (the first ones in ``broken`` break)."""
    out = []
    for s in range(count):
        tools = int(rng.integers(2, 4))
        out.append(
            {
                "scenario": f"s{s:03d}",
                "tools": tools,
                "modes": rng.dirichlet(np.ones(tools + 1)),  # last: no tool
                "calls": int(rng.integers(1, 4)),
                "pass": float(rng.uniform(0.3, 0.45) if s in broken else rng.uniform(0.2, 0.45)),
                "crash": float(rng.uniform(0.0, 0.03)),
                "tokens": float(rng.uniform(5.5, 6.5)),
                "broken": s in broken,
            }
        )
    return out


def make_batch(
    params: list[dict[str, Any]],
    runs: int,
    rng: np.random.Generator,
    *,
    candidate: bool = False,
    takeover: float = 0.5,
    drop: float = 0.25,
    uniform_drop: float = 0.0,
    batch_id: str = "b0",
) -> pd.DataFrame:
    """One batch of ``runs`` runs per scenario (the breaks apply when ``candidate``)."""
    rows = []
    for p in params:
        broken = candidate and p["broken"]
        for i in range(runs):
            mode = int(rng.choice(p["tools"] + 1, p=p["modes"]))
            calls = (
                p["calls"]
                if rng.random() < 0.85
                else int(np.clip(p["calls"] + rng.choice([-1, 1]), 1, 3))
            )
            taken = broken and rng.random() < takeover
            if taken:
                mode = 1
            if mode == p["tools"]:
                calls = 0
            names = [
                TOOLS[mode]
                if (taken or rng.random() < 0.9)
                else TOOLS[int(rng.integers(p["tools"]))]
                for _ in range(calls)
            ]
            rate = p["pass"] - (uniform_drop if candidate else 0.0)
            if broken:
                rate = 0.0 if taken else (p["pass"] - drop) / (1 - takeover)
            crashed = bool(rng.random() < p["crash"])
            rows.append(
                {
                    "run_id": f"{batch_id}-{p['scenario']}-{i}",
                    "batch_id": batch_id,
                    "scenario": p["scenario"],
                    "variant": "base",
                    "status": "agent_error" if crashed else "ok",
                    "passed": False if crashed else bool(rng.random() < min(max(rate, 0), 1)),
                    "crashed": crashed,
                    "step_count": 2 * calls + 1 + int(rng.random() < 0.2),
                    "tool_sequence": names,
                    "tool_counts": {t: names.count(t) for t in set(names)},
                    "prompt_tokens": int(np.exp(rng.normal(p["tokens"] + 0.3 * calls, 0.25))),
                    "completion_tokens": int(np.exp(rng.normal(4.0, 0.3))),
                    "duration_s": float(np.exp(rng.normal(1.0, 0.3))),
                }
            )
    return pd.DataFrame(rows)


def history(
    params: list[dict[str, Any]], nights: int, runs: int, rng: np.random.Generator
) -> pd.DataFrame:
    """A baseline history: ``nights`` batches of ``runs`` runs, distinct batch ids."""
    return pd.concat(
        [make_batch(params, runs, rng, batch_id=f"night{k}") for k in range(nights)],
        ignore_index=True,
    )
