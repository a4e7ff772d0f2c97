"""Run tables (one row per run, docs/design.md) to per-scenario arrays for the comparison.

What counts as a crash, and which runs enter which metric, is decided here and nowhere else:

* ``harness_error`` rows are infrastructure, not behaviour: excluded from every metric (counted).
* A crash is a run that did not end normally because of the agent: the ``crashed`` column is
  true (the agent raised: ``extra.crashed`` on its trajectory), or the status is ``agent_error``
  (raised, overflowed its context, ran out of steps) or ``timeout`` (a hang or a loop is
  behaviour too, and a timed-out run usually has no ``passed``, so without this a candidate that
  times out half the time would show no loss at all). The statuses are configurable
  (``crash_statuses``); :func:`is_crash` is the one place this is decided.
* Crashed runs stay in the other metrics: their steps, tokens and tools are what the agent did.
* A run whose ``passed`` is null is left out of the pass rate only; a null number is left out of
  that number's metric only (counted in ``Arm.missing``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard.errors import StoreError

__all__ = [
    "DEFAULT_CRASH_STATUSES",
    "HARNESS_ERROR",
    "STATUSES",
    "Arm",
    "is_crash",
    "is_crash_row",
    "split_runs",
]

STATUSES = frozenset({"ok", "agent_error", "harness_error", "timeout"})
HARNESS_ERROR = "harness_error"
DEFAULT_CRASH_STATUSES = frozenset({"agent_error", "timeout"})
REQUIRED = (
    "scenario",
    "status",
    "passed",
    "step_count",
    "tool_sequence",
    "tool_counts",
    "prompt_tokens",
    "completion_tokens",
    "duration_s",
)
NUMBERS = ("step_count", "prompt_tokens", "completion_tokens", "duration_s")

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Arm:
    """One scenario's runs in one batch, harness errors removed.

    Attributes:
        runs: runs that entered the comparison.
        harness_excluded: ``harness_error`` runs left out of every metric.
        passed: pass/fail of the runs with a non-null ``passed``.
        crashed: crash flag of every run.
        numbers: ``step_count``, ``prompt_tokens``, ``completion_tokens``, ``duration_s`` of the
            runs where the value is present.
        tool_counts: calls per tool, one mapping per run.
        tool_sequences: tool names in call order, one tuple per run.
        missing: per column, runs whose value was null.
    """

    runs: int
    harness_excluded: int
    passed: BoolArray
    crashed: BoolArray
    numbers: Mapping[str, FloatArray]
    tool_counts: tuple[Mapping[str, int], ...]
    tool_sequences: tuple[tuple[str, ...], ...]
    missing: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def empty(cls, harness_excluded: int = 0) -> Arm:
        """An arm without runs."""
        none = np.zeros(0)
        return cls(
            0,
            harness_excluded,
            none.astype(bool),
            none.astype(bool),
            {k: none for k in NUMBERS},
            (),
            (),
        )


def is_crash(
    table: pd.DataFrame, crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES
) -> BoolArray:
    """Whether each run crashed (see module docstring): the one place this is defined."""
    crashed = table["status"].isin(frozenset(crash_statuses)).to_numpy(dtype=bool)
    if "crashed" in table.columns:
        flag = _booleans(table, "crashed").fillna(False).to_numpy(dtype=bool)
        crashed = crashed | flag
    return crashed


def is_crash_row(
    status: str, crashed: object = None, crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES
) -> bool:
    """:func:`is_crash` for one run, given its ``status`` and ``crashed`` values (the same rule:
    the runner uses it for ``passed`` and its live counts). A ``harness_error`` row is never a
    crash: like every consumer of :func:`is_crash`, it is left out before counting."""
    if status == HARNESS_ERROR:
        return False
    flag = bool(crashed) if isinstance(crashed, bool | np.bool_) else False
    return status in frozenset(crash_statuses) or flag


def _booleans(table: pd.DataFrame, column: str) -> pd.Series:
    """A nullable boolean column; anything else is an input error naming the column."""
    try:
        return table[column].astype("boolean")
    except (TypeError, ValueError) as error:
        raise StoreError(
            f"column {column} must hold true, false or null ({error})",
            path=column,
            hint="pass a run set written by `trajguard run`",
        ) from error


def _is_null(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _tool_counts(value: Any) -> dict[str, int]:
    """A ``map<string,int>`` cell: a dict, or (key, value) pairs as pyarrow returns maps."""
    if _is_null(value):
        return {}
    pairs = value.items() if isinstance(value, Mapping) else value
    return {str(k): int(v) for k, v in pairs}


def _sequence(value: Any) -> tuple[str, ...]:
    return () if _is_null(value) else tuple(str(t) for t in value)


def split_runs(
    table: pd.DataFrame,
    *,
    crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES,
    side: str = "run set",
) -> dict[str, Arm]:
    """Group a run table by scenario into :class:`Arm` values.

    Args:
        table: one row per run with at least the columns in ``REQUIRED``.
        crash_statuses: statuses that count as a crash.
        side: which table this is, for error messages ("baseline", "candidate").

    Raises:
        StoreError: a required column is missing or a status is not one of ``STATUSES``.
    """
    missing_cols = [c for c in REQUIRED if c not in table.columns]
    if missing_cols:
        raise StoreError(
            f"the {side} run table lacks column(s) {', '.join(missing_cols)}",
            path=missing_cols[0],
            hint="pass a run set written by `trajguard run` (one row per run)",
        )
    status = table["status"].astype("string").fillna("")
    unknown = sorted(set(status.unique()) - STATUSES)
    if unknown:
        raise StoreError(
            f"the {side} run table has unknown status value(s) {unknown}",
            path="status",
            hint=f"allowed: {', '.join(sorted(STATUSES))}",
        )
    harness = (status == HARNESS_ERROR).to_numpy()
    crashed = is_crash(table, crash_statuses)
    passed = _booleans(table, "passed")
    # A crash is a judged failure whatever the row says: run sets written before that rule
    # stored crashed runs as passes (or timeouts as unjudged).
    judged = passed.notna().to_numpy(dtype=bool) | crashed
    outcome = passed.fillna(False).to_numpy(dtype=bool) & ~crashed
    numbers = {c: pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float) for c in NUMBERS}
    counts = table["tool_counts"].to_numpy(dtype=object)
    sequences = table["tool_sequence"].to_numpy(dtype=object)
    names, group = np.unique(
        table["scenario"].astype("string").fillna("").to_numpy(dtype=str), return_inverse=True
    )
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(names) + 1))
    arms: dict[str, Arm] = {}
    for g, name in enumerate(names):
        rows = order[bounds[g] : bounds[g + 1]]
        kept = rows[~harness[rows]]
        excluded = int(rows.size - kept.size)
        if kept.size == 0:
            arms[str(name)] = Arm.empty(excluded)
            continue
        values = {c: v[kept] for c, v in numbers.items()}
        missing = {c: int(np.isnan(v).sum()) for c, v in values.items()}
        missing["passed"] = int((~judged[kept]).sum())
        arms[str(name)] = Arm(
            runs=int(kept.size),
            harness_excluded=excluded,
            passed=outcome[kept][judged[kept]],
            crashed=crashed[kept],
            numbers={c: v[~np.isnan(v)] for c, v in values.items()},
            tool_counts=tuple(_tool_counts(counts[i]) for i in kept),
            tool_sequences=tuple(_sequence(sequences[i]) for i in kept),
            missing={c: n for c, n in missing.items() if n},
        )
    return arms
