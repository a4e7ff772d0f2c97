"""Resilience by fault kind, counted from the run tables (the ``fault_kinds`` and resilience
columns of chaos runs): for each side and each fault kind, the runs that met it, and among them
those that passed, retried, recovered or escalated, and (where the scenario checks it) presented
no fabricated result, each with its Wilson interval. A run that met two kinds counts under both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from trajguard import stats as st
from trajguard.results import RateCount, ResilienceGroup

__all__ = ["resilience_groups"]

_COLUMNS = ("passed", "retried_after_fault", "recovered_or_escalated", "no_fabricated_result")


def _kinds(cell: Any) -> dict[str, int]:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return {}
    pairs = cell.items() if isinstance(cell, Mapping) else cell
    return {str(k): int(v) for k, v in pairs if int(v) > 0}


def _rate(rows: pd.DataFrame, column: str, alpha: float) -> RateCount | None:
    if column not in rows.columns:
        return None
    judged = [bool(v) for v in rows[column] if v is not None and not pd.isna(v)]
    if not judged:
        return None
    hits, n = sum(judged), len(judged)
    low, high = st.wilson_interval(hits, n, 1 - alpha)
    return RateCount(hits=hits, n=n, low=float(low), high=float(high))


def _groups(label: str, table: pd.DataFrame, alpha: float) -> list[ResilienceGroup]:
    if not {"fault_kinds", "faults_injected", "status"} <= set(table.columns):
        return []
    runs = table[table["status"] != "harness_error"]
    kinds = [_kinds(cell) for cell in runs["fault_kinds"]]
    planned = runs["faults_injected"].notna()
    if not planned.any():
        return []
    met = sorted({kind for found in kinds for kind in found})
    untouched = [bool(p) and not k for p, k in zip(planned, kinds, strict=True)]
    masks = [(kind, [kind in found for found in kinds]) for kind in met]
    masks.append(("(none met)", untouched))
    groups = []
    for kind, mask in masks:
        chosen = runs[pd.Series(mask, index=runs.index, dtype=bool)]
        if chosen.empty:
            continue
        passed, retried, recovered, honest = (_rate(chosen, c, alpha) for c in _COLUMNS)
        groups.append(
            ResilienceGroup(
                side=label,
                fault_kind=kind,
                runs=len(chosen),
                passed=passed,
                retried=retried,
                recovered_or_escalated=recovered,
                no_fabricated_result=honest,
            )
        )
    return groups


def resilience_groups(
    sides: Sequence[tuple[str, pd.DataFrame]], alpha: float
) -> tuple[ResilienceGroup, ...]:
    """The groups of every side (label, run table), in the order the report shows them; none
    for a side whose runs had no faults planned."""
    return tuple(group for label, table in sides for group in _groups(label, table, alpha))
