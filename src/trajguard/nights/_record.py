"""A night's rows: per scenario and variant, the aggregates of its runs and its verdicts."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from trajguard.nights._schema import NIGHT_SCHEMA, NIGHT_SCHEMA_VERSION

__all__ = ["NightInput", "night_table", "tool_mix"]


@dataclass(frozen=True, kw_only=True)
class NightInput:
    """What a night is recorded from.

    Attributes:
        suite: the suite.
        date: the night's date (``YYYY-MM-DD``; its partition).
        night_id: the night's key within suite and date (the candidate's batch id).
        runs: the candidate's run rows (a run set's table).
        runset: where the candidate run set lives.
        git_sha: the commit it ran at.
        model: the model(s) it ran, comma-separated.
        verdicts: scenario → its verdict in the night's comparison.
        night_verdict: the comparison's verdict.
        exit_code: the night's exit code.
        comparison: the ``comparison.json`` summary (JSON text).
        baseline: where the baseline lives.
        baseline_runs: the baseline's run rows.
        baseline_batch: the baseline's batch id.
        baseline_started_at: when the baseline's batch started (ISO 8601).
        baseline_pinned: the baseline was promoted by hand (not by ``--promote-if-clean``).
        config_hashes: ``scenario/variant`` → config hash.
        recorded_at: when the night was appended (default now).
    """

    suite: str
    date: str
    night_id: str
    runs: pd.DataFrame
    runset: str
    git_sha: str | None = None
    model: str | None = None
    verdicts: Mapping[str, str] = field(default_factory=dict)
    night_verdict: str | None = None
    exit_code: int | None = None
    comparison: str | None = None
    baseline: str | None = None
    baseline_runs: pd.DataFrame | None = None
    baseline_batch: str | None = None
    baseline_started_at: str | None = None
    baseline_pinned: bool | None = None
    config_hashes: Mapping[str, str] = field(default_factory=dict)
    recorded_at: datetime | None = None


def tool_mix(runs: pd.DataFrame) -> dict[str, int]:
    """Tool → calls over ``runs`` (their ``tool_counts``), sorted by tool."""
    total: Counter[str] = Counter()
    for counts in runs.get("tool_counts", pd.Series(dtype=object)):
        if counts is None:
            continue
        items = counts.items() if isinstance(counts, Mapping) else counts
        for tool, n in items:
            total[str(tool)] += int(n)
    return dict(sorted(total.items()))


def _numbers(runs: pd.DataFrame, name: str) -> pd.Series:
    """Column ``name`` as floats (all NaN when the run table has no such column)."""
    if name not in runs:
        return pd.Series(np.nan, index=runs.index, dtype=float)
    return pd.Series(pd.to_numeric(runs[name], errors="coerce"), index=runs.index, dtype=float)


def _mean(values: pd.Series) -> float | None:
    clean = values.dropna()
    return float(clean.mean()) if len(clean) else None


def _arm(runs: pd.DataFrame) -> dict[str, Any]:
    judged = runs[runs["status"] != "harness_error"] if "status" in runs else runs
    passed = judged["passed"].fillna(False).astype(bool)
    durations = _numbers(runs, "duration_s").dropna()
    tokens = _numbers(runs, "total_tokens")
    if not tokens.fillna(0).any():  # older rows left the total at 0
        tokens = _numbers(runs, "prompt_tokens") + _numbers(runs, "completion_tokens")
    return {
        "runs": len(runs),
        "passes": int(passed.sum()),
        "crashes": int(judged["crashed"].fillna(False).astype(bool).sum()),
        "judged": len(judged),
        "mean_steps": _mean(_numbers(runs, "step_count")),
        "mean_tokens": _mean(tokens),
        "total_tokens": int(tokens.fillna(0).sum()) if tokens.notna().any() else None,
        "tool_mix": json.dumps(tool_mix(runs), sort_keys=True),
        "mean_latency_s": float(durations.mean()) if len(durations) else None,
        "p95_latency_s": float(durations.quantile(0.95)) if len(durations) else None,
    }


def night_table(night: NightInput) -> pa.Table:
    """The night's rows (:data:`NIGHT_SCHEMA`), one per scenario and variant of its runs."""
    recorded = night.recorded_at or datetime.now(UTC)
    base = night.baseline_runs
    rows = []
    for (scenario, variant), arm in night.runs.groupby(["scenario", "variant"], sort=True):
        own = base[base["scenario"] == scenario] if base is not None else None
        base_arm = _arm(own) if own is not None and len(own) else None
        rows.append(
            {
                "schema_version": NIGHT_SCHEMA_VERSION,
                "night_id": night.night_id,
                "recorded_at": recorded,
                "scenario": str(scenario),
                "variant": str(variant),
                **_arm(arm),
                "config_hash": night.config_hashes.get(f"{scenario}/{variant}"),
                "verdict": night.verdicts.get(str(scenario)),
                "git_sha": night.git_sha,
                "model": night.model,
                "runset": night.runset,
                "night_verdict": night.night_verdict,
                "exit_code": night.exit_code,
                "comparison": night.comparison,
                "baseline": night.baseline,
                "baseline_batch": night.baseline_batch,
                "baseline_started_at": night.baseline_started_at,
                "baseline_pinned": night.baseline_pinned,
                "baseline_runs": base_arm["judged"] if base_arm else None,
                "baseline_passes": base_arm["passes"] if base_arm else None,
                "baseline_tool_mix": base_arm["tool_mix"] if base_arm else None,
            }
        )
    return pa.Table.from_pylist(rows, schema=NIGHT_SCHEMA)
