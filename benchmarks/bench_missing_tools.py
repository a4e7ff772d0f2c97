"""Tool metrics when some runs' tool use is unknown (issue 41): the false-alarm rate and the
power of the tool-usage and failing-paths gates, read as trajguard reads them now (a run
without a trajectory is missing from the tool metrics) and as it read them before (such a run
counted as one that called no tool).

Each trial is one scenario of ``--runs`` runs a side. A run calls ``search`` then ``answer``
(probability 0.7) or ``answer`` alone, and passes with probability 0.8. In the candidate, a
share ``--missing`` of the runs crash before they record a trajectory (imported without one:
failed, no tool_sequence). Measured, over ``--trials`` trials each:

1. A/A (the same behaviour, no run missing): the alarm rate (a gating tool metric regressed,
   and the scenario's verdict regressed: its combined test of the gating metrics);
2. A/A with the missing runs: the same, both readings (the old one alarms on invented drift);
3. power: among the recorded candidate runs, ``search`` falls to 0.4 (TVD 0.3), with the
   missing runs: the share of trials in which tool usage regressed, both readings.

    python benchmarks/bench_missing_tools.py --trials 200 --runs 40 --missing 0.3
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

from trajguard.comparison import CompareConfig, Verdict, compare_runsets

GATES = ("tool_usage", "failing_paths")


def _runs(n: int, search: float, missing: float, rng: np.random.Generator) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for i in range(n):
        unknown = rng.random() < missing
        tools = [] if unknown else (["search", "answer"] if rng.random() < search else ["answer"])
        rows.append(
            {
                "scenario": "s",
                "variant": "base",
                "run_index": i,
                "status": "agent_error" if unknown else "ok",
                "passed": False if unknown else bool(rng.random() < 0.8),
                "step_count": None if unknown else 2 + 2 * len(tools),
                "tool_sequence": None if unknown else tools,
                "tool_counts": None if unknown else {t: tools.count(t) for t in set(tools)},
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "duration_s": 1.0,
            }
        )
    return pd.DataFrame(rows)


def _invented(table: pd.DataFrame) -> pd.DataFrame:
    """The candidate as the old reading saw it: an unknown run called no tool."""
    return table.assign(
        tool_sequence=[[] if s is None else s for s in table["tool_sequence"]],
        tool_counts=[{} if c is None else c for c in table["tool_counts"]],
    )


def _alarms(base: pd.DataFrame, cand: pd.DataFrame, config: CompareConfig) -> dict[str, bool]:
    scenario = compare_runsets(base, cand, config=config).scenario("s")
    found = {g: scenario.metric(g).verdict == Verdict.REGRESSED for g in GATES}
    return found | {"scenario": scenario.verdict == Verdict.REGRESSED}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--missing", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    config = CompareConfig()
    conditions = {
        "A/A, no run missing": (0.7, 0.0, False),
        f"A/A, {args.missing:.0%} missing, now": (0.7, args.missing, False),
        f"A/A, {args.missing:.0%} missing, old reading": (0.7, args.missing, True),
        f"search 0.7 -> 0.4, {args.missing:.0%} missing, now": (0.4, args.missing, False),
        f"search 0.7 -> 0.4, {args.missing:.0%} missing, old reading": (0.4, args.missing, True),
    }
    started = time.monotonic()
    print(f"{args.trials} trials of {args.runs} runs a side, seed {args.seed}")
    print("| condition | tool usage regressed | failing paths regressed | scenario regressed |")
    print("|---|---|---|---|")
    for name, (search, missing, old) in conditions.items():
        hits = dict.fromkeys((*GATES, "scenario"), 0)
        for _ in range(args.trials):
            base = _runs(args.runs, 0.7, 0.0, rng)
            cand = _runs(args.runs, search, missing, rng)
            found = _alarms(base, _invented(cand) if old else cand, config)
            for gate in hits:
                hits[gate] += found[gate]
        rates = " | ".join(f"{hits[g] / args.trials:.3f}" for g in hits)
        print(f"| {name} | {rates} |", flush=True)
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
