"""A night's passes and crashes are counted as compare counts them (trajguard.outcome), not
from the ``crashed`` column alone: a timeout without steps (``crashed`` null in run sets
written before the one rule) and a step-capped ``agent_error`` are crashes there too."""

from __future__ import annotations

import pandas as pd

from trajguard.nights._record import NightInput, night_table
from trajguard.outcome import tally


def test_the_store_counts_crashes_and_passes_as_compare_does() -> None:
    runs = pd.DataFrame(
        {
            "scenario": ["s"] * 5,
            "variant": ["base"] * 5,
            "status": ["ok", "timeout", "agent_error", "ok", "harness_error"],
            "passed": [True, None, False, True, None],
            "crashed": [False, None, False, True, None],  # the old rows: one rule did not hold
            "step_count": [3, None, 8, 3, None],
            "duration_s": [1.0] * 5,
            "prompt_tokens": [1] * 5,
            "completion_tokens": [1] * 5,
            "tool_counts": [{} for _ in range(5)],
        }
    )
    (row,) = night_table(NightInput(suite="x", date="2026-01-01", night_id="n", runs=runs,
                                    runset="rs")).to_pylist()  # fmt: skip
    counted = tally(runs)
    assert (
        (row["crashes"], row["passes"], row["judged"])
        == (
            counted.crashed,
            counted.passed,
            counted.behavioural,
        )
        == (3, 1, 4)
    )
