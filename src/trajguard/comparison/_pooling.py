"""A baseline history pooled: which promoted batches' runs form the baseline.

Pooling the last few nights gives each scenario 50-100 baseline runs against 10-20 candidate
runs, the cheapest power there is. One rule keeps it honest (docs/explanation/statistics.md §6;
the other, agreement, is :mod:`trajguard.comparison._history`'s):

* **Same definition.** For each scenario, the batches whose config hash equals the candidate's
  are pooled. When none does (the candidate changed the scenario: a prompt edit), the batches
  that agree with the latest batch's definition are pooled instead, and the report says the
  definition changed. A batch without a hash is pooled only if it is the latest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd  # resolvable at run time: the codec reads PooledBaseline's annotations

__all__ = ["PooledBaseline", "pool_history"]


@dataclass(frozen=True, kw_only=True)
class PooledBaseline:
    """The baseline runs pooled from a history, and why each scenario got its batches.

    Attributes:
        runs: the pooled rows (each keeps its ``batch_id``).
        batches: per scenario, the labels of the batches pooled (newest first).
        changed: scenarios whose candidate definition matches no kept batch (pooled on the
            latest batch's definition instead).
        available: batches in the history.
    """

    runs: pd.DataFrame
    batches: Mapping[str, tuple[str, ...]]
    changed: tuple[str, ...]
    available: int


def _hashes(table: pd.DataFrame) -> dict[str, frozenset[str]]:
    if "config_hash" not in table.columns or table.empty:
        return {}
    present = table.dropna(subset=["config_hash"])
    return {
        str(s): frozenset(str(h) for h in g["config_hash"].unique())
        for s, g in present.groupby("scenario")
    }


def pool_history(
    batches: Sequence[tuple[str, pd.DataFrame]], candidate: pd.DataFrame
) -> PooledBaseline:
    """Pool a history's batches per scenario (``batches`` newest first, as (label, runs)).

    Rows keep their batch: ``batch_id`` is set to the label where the table has none.
    """
    if not batches:
        raise ValueError("a history has at least one batch")
    tables = []
    for label, runs in batches:
        frame = runs.copy()
        if "batch_id" not in frame.columns:
            frame["batch_id"] = label
        frame["batch_id"] = frame["batch_id"].fillna(label).astype(str)
        tables.append((label, frame, _hashes(frame)))
    wanted = _hashes(candidate)
    scenarios = sorted({str(s) for _, f, _ in tables for s in f["scenario"].unique()})
    chosen: dict[str, tuple[str, ...]] = {}
    changed = []
    parts = []
    for scenario in scenarios:
        holding = [
            (label, h.get(scenario)) for label, f, h in tables if scenario in set(f["scenario"])
        ]
        target = wanted.get(scenario)
        matching = [label for label, h in holding if target and h and h <= target]
        if not matching:
            if target:
                changed.append(scenario)
            latest = holding[0][1]
            matching = [holding[0][0]] + [
                label for label, h in holding[1:] if latest and h and h == latest
            ]
        chosen[scenario] = tuple(matching)
        for label, frame, _ in tables:
            if label in matching:
                parts.append(frame[frame["scenario"] == scenario])
    runs = pd.concat(parts, ignore_index=True) if parts else tables[0][1].iloc[0:0]
    return PooledBaseline(runs=runs, batches=chosen, changed=tuple(changed), available=len(batches))
