"""Tool usage of one side of a report, for every scenario at once (for the report document).

Mean calls per tool come from one grouping of the run table; each scenario's most common
sequence is what :func:`~trajguard.report.builders.summarize` says of its first arm, from one call
over the whole table (the report used to filter and summarise the table per scenario).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from trajguard.outcome import HARNESS_ERROR
from trajguard.report.builders._arm_summary import summarize
from trajguard.results import TopSequence

__all__ = ["ToolDigest", "tool_digest"]


@dataclass(frozen=True, kw_only=True)
class ToolDigest:
    """One side's tool usage per scenario.

    Attributes:
        calls: scenario → tool → mean calls per behavioural run whose tool use is recorded
            (every variant of the scenario).
        top: scenario → its first arm's most common sequence (absent without one).
    """

    calls: Mapping[str, Mapping[str, float]]
    top: Mapping[str, TopSequence]


def _calls(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    out = {}
    for scenario, rows in frame.groupby("scenario", sort=False):
        total: Counter[str] = Counter()
        # a run whose tool use is unknown (no tool_sequence: imported without a trajectory)
        # is missing from the mean, not a run that called no tool
        known = (
            rows["tool_sequence"].notna() if "tool_sequence" in rows else rows.index == rows.index
        )
        for value in rows.loc[known, "tool_counts"].dropna():
            total.update(dict(value))
        n = int(known.sum())
        out[str(scenario)] = {str(k): float(v / max(n, 1)) for k, v in total.items()}
    return out


def _top(runs: pd.DataFrame) -> dict[str, TopSequence]:
    first: dict[str, TopSequence | None] = {}
    for arm in summarize(runs, top=1):
        if arm.scenario in first:  # only the first arm counts, with or without a sequence
            continue
        first[arm.scenario] = (
            TopSequence(
                sequence=tuple(map(str, arm.top_sequences[0][0])),
                count=int(arm.top_sequences[0][1]),
                runs=int(arm.runs),
                distinct=int(arm.distinct_sequences),
            )
            if arm.top_sequences
            else None
        )
    return {s: top for s, top in first.items() if top is not None}


def tool_digest(runs: pd.DataFrame) -> ToolDigest:
    """The tool usage of every scenario of a run table (harness errors left out)."""
    behavioural = runs[runs["status"] != HARNESS_ERROR]
    return ToolDigest(calls=_calls(behavioural), top=_top(runs))
