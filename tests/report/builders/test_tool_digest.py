"""The tool digest of a report against the per-scenario summaries it replaced."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from trajguard.outcome import HARNESS_ERROR
from trajguard.report.builders._arm_summary import summarize
from trajguard.report.builders._tool_digest import tool_digest


def _reference(frame: pd.DataFrame, scenario: str):
    """What the report computed before (filter the scenario, summarise it, take the first arm),
    with the mean calls over the runs whose tool use is recorded."""
    rows = frame[(frame["scenario"] == scenario) & (frame["status"] != HARNESS_ERROR)]
    # a run without a tool_sequence has unknown tool use: missing from the mean (issue 41)
    rows = rows[rows["tool_sequence"].notna()]
    total: Counter[str] = Counter()
    for value in rows["tool_counts"].dropna():
        total.update(dict(value))
    calls = {k: v / max(len(rows), 1) for k, v in total.items()}
    arms = summarize(frame[frame["scenario"] == scenario], top=1)
    top = None
    if arms and arms[0].top_sequences:
        seq, n = arms[0].top_sequences[0]
        top = (seq, n, arms[0].runs, arms[0].distinct_sequences)
    return calls, top


def _frame(seed: int, variants: list[object] | None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    tools = ["search", "calc", "read"]
    rows = []
    for s in range(6):
        for i in range(25):
            n = int(rng.integers(0, 4))
            seq = [tools[int(k)] for k in rng.integers(0, 3, n)]
            status = rng.choice(["ok", "ok", "ok", "agent_error", HARNESS_ERROR])
            if s == 5:
                status = HARNESS_ERROR  # a scenario of harness errors only
            row = {
                "scenario": f"s{s}",
                "status": str(status),
                "passed": bool(rng.random() < 0.5),
                "tool_sequence": None if i % 11 == 3 else seq,
                "tool_counts": None if i % 13 == 4 else dict(Counter(seq)),
                "step_count": 2 * n + 1,
                "prompt_tokens": 100,
                "completion_tokens": 20,
            }
            if variants is not None:
                row["variant"] = variants[int(rng.integers(0, len(variants)))]
            rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "variants",
    [None, ["base"], ["b", "a"], ["a", None]],
    ids=["no-variant-column", "one-variant", "two-variants", "missing-variants"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_digest_equals_the_per_scenario_summaries(variants, seed):
    frame = _frame(seed, variants)
    digest = tool_digest(frame)
    for scenario in [*sorted(frame["scenario"].unique()), "absent"]:
        calls, top = _reference(frame, scenario)
        assert dict(digest.calls.get(scenario, {})) == pytest.approx(calls)
        got = digest.top.get(scenario)
        assert (None if got is None else (got.sequence, got.count, got.runs, got.distinct)) == top
