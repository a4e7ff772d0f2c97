"""Tool usage of one side of a report, for every scenario in one pass over its runs.

A report of a hundred scenarios used to filter the whole run table and summarise it twice per
scenario; grouping once gives the same figures (the digest of a scenario is what
:func:`trajguard.report._summary.summarize` says of its first arm) at a fraction of the cost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from trajguard.outcome import HARNESS_ERROR

__all__ = ["ToolDigest", "TopSequence", "tool_digest"]


@dataclass(frozen=True, kw_only=True)
class TopSequence:
    """The most common tool sequence of a scenario's first arm (in ``summarize``'s order).

    Attributes:
        sequence: the tools called, in order.
        count: behavioural runs that called exactly this sequence.
        runs: every run of the arm, harness errors included.
        distinct: distinct sequences among its behavioural runs.
    """

    sequence: tuple[str, ...]
    count: int
    runs: int
    distinct: int


@dataclass(frozen=True, kw_only=True)
class ToolDigest:
    """One side's tool usage per scenario.

    Attributes:
        calls: scenario → tool → mean calls per behavioural run (every variant of the scenario).
        top: scenario → its first arm's most common sequence (absent without one).
    """

    calls: Mapping[str, Mapping[str, float]]
    top: Mapping[str, TopSequence]


def _calls(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    out = {}
    for scenario, rows in frame.groupby("scenario", sort=False):
        total: Counter[str] = Counter()
        for value in rows["tool_counts"].dropna():
            total.update(dict(value))
        out[str(scenario)] = {k: v / max(len(rows), 1) for k, v in total.items()}
    return out


def _top(runs: pd.DataFrame, behavioural: pd.DataFrame) -> dict[str, TopSequence]:
    keys = ["scenario", "variant"] if "variant" in runs.columns else ["scenario"]
    sizes = runs.groupby(keys, sort=True).size()
    sequences = {
        key: Counter(tuple(seq) for seq in values if seq is not None)
        for key, values in behavioural.groupby(keys, sort=True)["tool_sequence"]
    }
    out: dict[str, TopSequence] = {}
    for key, size in sizes.items():
        arm = key if isinstance(key, tuple) else (key,)
        scenario = str(arm[0])
        if scenario not in out:  # only the first arm counts, with or without a sequence
            out[scenario] = _first(sequences.get(arm, Counter()), int(size))
    return {s: top for s, top in out.items() if top.count}


def _first(counted: Counter[tuple[str, ...]], runs: int) -> TopSequence:
    if not counted:
        return TopSequence(sequence=(), count=0, runs=runs, distinct=0)
    ((sequence, count),) = counted.most_common(1)
    return TopSequence(sequence=sequence, count=count, runs=runs, distinct=len(counted))


def tool_digest(runs: pd.DataFrame) -> ToolDigest:
    """The tool usage of every scenario of a run table (harness errors left out)."""
    behavioural = runs[runs["status"] != HARNESS_ERROR]
    return ToolDigest(calls=_calls(behavioural), top=_top(runs, behavioural))
