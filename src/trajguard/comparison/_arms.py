"""Run tables (one row per run) to per-scenario arms: the arrays each metric compares.

Which runs count as passed, crashed or excluded is decided by :func:`trajguard.outcome.classify`;
here the table is split by scenario. Crashed runs stay in the other metrics: their steps, tokens
and tools are what the agent did. A null number is left out of that number's metric only
(counted in :attr:`Arm.missing`).
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
from trajguard.outcome import DEFAULT_CRASH_STATUSES, classify

__all__ = ["FLAG_COLUMNS", "NUMBER_COLUMNS", "REQUIRED_COLUMNS", "Arm", "split_runs"]

NUMBER_COLUMNS = (
    "step_count",
    "prompt_tokens",
    "completion_tokens",
    "duration_s",
    "cost_usd",
    "user_turns",
)
OPTIONAL_NUMBERS = frozenset({"cost_usd", "user_turns"})
"""Number columns a table may lack (written before them): they read as all null."""
FLAG_COLUMNS = ("retried_after_fault", "recovered_or_escalated", "no_fabricated_result")
"""Per-run yes/no results that hold only for some runs (resilience: runs that met a fault);
optional (a table without them, written before them, reads as all null)."""
REQUIRED_COLUMNS = (
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

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True)
class Arm:
    """One scenario's runs in one batch, harness errors removed.

    Attributes:
        runs: runs that entered the comparison.
        harness_excluded: ``harness_error`` runs left out of every metric.
        passed: pass/fail of the judged runs (a crash is a failure).
        crashed: crash flag of every run.
        numbers: per column of :data:`NUMBER_COLUMNS`, the values present.
        tool_counts: calls per tool, one mapping per run (empty where the run's tool use is
            unknown: see ``tools_known``).
        tool_sequences: tool names in call order, one tuple per run (likewise).
        missing: per column, runs whose value was null.
        judged_runs: per run, whether it has a pass/fail outcome (the joint permutation of a
            scenario's runs needs every metric aligned on the same runs).
        passed_runs: per run, whether it is a judged pass.
        values: per column of :data:`NUMBER_COLUMNS`, one value per run (NaN where null).
        batches: per run, the batch it came from ("" when the table does not say).
        flags: per column of :data:`FLAG_COLUMNS`, one value per run: 1.0, 0.0 or NaN (null:
            the run was not judged on it).
        tools_recorded: some run records its tool calls (a ``tool_sequence``, empty or not);
            false for runs imported from logs without trajectories, whose tool use is unknown.
        tools_known: per run, whether it records its tool calls. A run imported without a
            trajectory does not: it is missing from every tool metric (tool usage, order,
            failing paths), never counted as a run that called no tool.
    """

    runs: int
    harness_excluded: int
    passed: BoolArray
    crashed: BoolArray
    numbers: Mapping[str, FloatArray]
    tool_counts: tuple[Mapping[str, int], ...]
    tool_sequences: tuple[tuple[str, ...], ...]
    missing: Mapping[str, int] = field(default_factory=dict)
    judged_runs: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    passed_runs: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    values: Mapping[str, FloatArray] = field(default_factory=dict)
    batches: tuple[str, ...] = ()
    flags: Mapping[str, FloatArray] = field(default_factory=dict)
    tools_recorded: bool = True
    tools_known: BoolArray | None = None

    def tools_mask(self) -> BoolArray:
        """One bool per run: its tool use is recorded (every run, when not said)."""
        if self.tools_known is None:
            return np.ones(len(self.tool_counts), dtype=bool)
        return self.tools_known

    def known_tool_counts(self) -> tuple[Mapping[str, int], ...]:
        """The calls per tool of the runs whose tool use is recorded."""
        mask = self.tools_mask()
        return tuple(counts for counts, known in zip(self.tool_counts, mask, strict=True) if known)

    def known_tool_sequences(self) -> tuple[tuple[str, ...], ...]:
        """The tool sequences of the runs whose tool use is recorded."""
        mask = self.tools_mask()
        return tuple(seq for seq, known in zip(self.tool_sequences, mask, strict=True) if known)

    def flag(self, name: str) -> FloatArray:
        """One value per run of a flag column: 1.0, 0.0, NaN where not judged."""
        found = self.flags.get(name)
        return found if found is not None else np.full(self.runs, np.nan)

    def column(self, name: str) -> FloatArray:
        """One value per run of a number column (NaN where null)."""
        found = self.values.get(name)
        return found if found is not None else np.full(self.runs, np.nan)

    @classmethod
    def empty(cls, harness_excluded: int = 0) -> Arm:
        """An arm without runs."""
        none = np.zeros(0)
        return cls(
            runs=0,
            harness_excluded=harness_excluded,
            passed=none.astype(bool),
            crashed=none.astype(bool),
            numbers={k: none for k in NUMBER_COLUMNS},
            tool_counts=(),
            tool_sequences=(),
        )


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
        table: one row per run with at least the columns in :data:`REQUIRED_COLUMNS`.
        crash_statuses: statuses that count as a crash.
        side: which table this is, for error messages ("baseline", "candidate").

    Raises:
        StoreError: a required column is missing or a status is unknown.
    """
    missing_cols = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing_cols:
        raise StoreError(
            f"the {side} run table lacks column(s) {', '.join(missing_cols)}",
            path=missing_cols[0],
            hint="pass a run set written by `trajguard run` (one row per run)",
        )
    outcomes = classify(table, crash_statuses=crash_statuses, side=side)
    numbers = {
        c: pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
        if c in table.columns or c not in OPTIONAL_NUMBERS
        else np.full(len(table), np.nan)
        for c in NUMBER_COLUMNS
    }
    counts = table["tool_counts"].to_numpy(dtype=object)
    batch_ids = (
        table["batch_id"].astype("string").fillna("").to_numpy(dtype=str)
        if "batch_id" in table.columns
        else np.full(len(table), "", dtype=str)
    )
    sequences = table["tool_sequence"].to_numpy(dtype=object)
    flags = {
        c: pd.to_numeric(table[c].astype("boolean"), errors="coerce").to_numpy(
            dtype=float, na_value=np.nan
        )
        for c in FLAG_COLUMNS
        if c in table.columns
    }
    names, group = np.unique(
        table["scenario"].astype("string").fillna("").to_numpy(dtype=str), return_inverse=True
    )
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(names) + 1))
    arms: dict[str, Arm] = {}
    for g, name in enumerate(names):
        rows = order[bounds[g] : bounds[g + 1]]
        kept = rows[outcomes.behavioural[rows]]
        excluded = int(rows.size - kept.size)
        if kept.size == 0:
            arms[str(name)] = Arm.empty(excluded)
            continue
        values = {c: v[kept] for c, v in numbers.items()}
        missing = {
            c: int(np.isnan(v).sum())
            for c, v in values.items()
            if c not in OPTIONAL_NUMBERS or not np.isnan(v).all()  # no conversation: not missing
        }
        missing["passed"] = int((~outcomes.judged[kept]).sum())
        arms[str(name)] = Arm(
            runs=int(kept.size),
            harness_excluded=excluded,
            passed=outcomes.passed[kept][outcomes.judged[kept]],
            crashed=outcomes.crashed[kept],
            numbers={c: v[~np.isnan(v)] for c, v in values.items()},
            tool_counts=tuple(_tool_counts(counts[i]) for i in kept),
            tool_sequences=tuple(_sequence(sequences[i]) for i in kept),
            missing={c: n for c, n in missing.items() if n},
            judged_runs=outcomes.judged[kept],
            passed_runs=outcomes.passed[kept],
            values=values,
            batches=tuple(str(b) for b in batch_ids[kept]),
            flags={c: v[kept] for c, v in flags.items()},
            tools_recorded=any(not _is_null(sequences[i]) for i in kept),
            tools_known=np.array([not _is_null(sequences[i]) for i in kept], dtype=bool),
        )
    return arms
