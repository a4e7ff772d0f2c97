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

from trajguard.comparison import judge_consistency, run_path
from trajguard.nights._schema import NIGHT_SCHEMA, NIGHT_SCHEMA_VERSION
from trajguard.outcome import classify

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


def _arms(runs: pd.DataFrame, keys: list[str]) -> dict[tuple[str, ...], dict[str, Any]]:
    """Per group of ``keys``, the aggregates of its runs (harness errors counted in ``runs``,
    left out of ``judged``, passes and crashes)."""
    if "status" in runs:  # what counts as a pass or a crash: trajguard.outcome, as compare does
        outcomes = classify(runs)
        judged = pd.Series(outcomes.behavioural, index=runs.index)
        passed = pd.Series(outcomes.passed, index=runs.index)
        crashed = pd.Series(outcomes.crashed, index=runs.index)
    else:
        judged = pd.Series(True, index=runs.index)
        passed = runs["passed"].fillna(False).astype(bool)
        crashed = runs["crashed"].fillna(False).astype(bool)
    tokens = _numbers(runs, "total_tokens")
    if not tokens.fillna(0).any():  # older rows left the total at 0
        tokens = _numbers(runs, "prompt_tokens") + _numbers(runs, "completion_tokens")
    frame = (
        runs[keys]
        .astype(str)
        .assign(
            judged=judged,
            passed=passed & judged,
            crashed=crashed & judged,
            steps=_numbers(runs, "step_count"),
            tokens=tokens,
            latency=_numbers(runs, "duration_s"),
            cost=_numbers(runs, "cost_usd"),
        )
    )
    groups = frame.groupby(keys, sort=True)
    agg = groups.agg(
        runs=("judged", "size"),
        judged=("judged", "sum"),
        passes=("passed", "sum"),
        crashes=("crashed", "sum"),
        mean_steps=("steps", "mean"),
        mean_tokens=("tokens", "mean"),
        total_tokens=("tokens", "sum"),
        seen_tokens=("tokens", "count"),
        mean_latency_s=("latency", "mean"),
        mean_cost_usd=("cost", "mean"),
        total_cost_usd=("cost", "sum"),
        seen_cost=("cost", "count"),
    )
    agg["p95_latency_s"] = groups["latency"].quantile(0.95)
    mixes: dict[tuple[str, ...], Counter[str]] = {}
    counts = runs["tool_counts"] if "tool_counts" in runs else pd.Series(None, index=runs.index)
    groups_of_runs = frame[keys].itertuples(index=False, name=None)
    for group, row_counts in zip(groups_of_runs, counts, strict=True):
        mix = mixes.setdefault(group, Counter())
        if row_counts is None:
            continue
        items = row_counts.items() if isinstance(row_counts, Mapping) else row_counts
        for tool, n in items:
            mix[str(tool)] += int(n)
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    for index, row in agg.iterrows():
        key: tuple[str, ...] = index if isinstance(index, tuple) else (str(index),)
        out[key] = {
            "runs": int(row["runs"]),
            "passes": int(row["passes"]),
            "crashes": int(row["crashes"]),
            "judged": int(row["judged"]),
            "mean_steps": _float(row["mean_steps"]),
            "mean_tokens": _float(row["mean_tokens"]),
            "total_tokens": int(row["total_tokens"]) if row["seen_tokens"] else None,
            "tool_mix": json.dumps(dict(sorted(mixes.get(key, Counter()).items()))),
            "mean_latency_s": _float(row["mean_latency_s"]),
            "p95_latency_s": _float(row["p95_latency_s"]),
            "mean_cost_usd": _float(row["mean_cost_usd"]),
            "total_cost_usd": float(row["total_cost_usd"]) if row["seen_cost"] else None,
        }
    return out


def _float(value: Any) -> float | None:
    return None if pd.isna(value) else float(value)


def _paths(runs: pd.DataFrame, scenario: object, variant: object) -> tuple[str, str]:
    """The arm's judged runs whose tool use is recorded, by path (the tool a run called most, or
    none: ``trajguard.comparison.run_path``), and those of them that failed, as JSON objects."""
    taken: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    if "tool_counts" in runs:
        arm = runs[
            (runs["scenario"].astype(str) == str(scenario))
            & (runs["variant"].astype(str) == str(variant))
        ]
        # a run imported without a trajectory has no path (as in the comparison's metrics)
        known = arm["tool_sequence" if "tool_sequence" in arm else "tool_counts"].notna()
        if "status" in arm:
            known &= arm["status"] != "harness_error"
        counted = arm[known]
        for counts, ok in zip(counted["tool_counts"], counted["passed"].fillna(False), strict=True):
            items = (
                counts.items()
                if isinstance(counts, Mapping)
                else (() if counts is None else counts)
            )
            path = run_path({str(tool): int(n) for tool, n in items})
            taken[path] += 1
            failed[path] += not bool(ok)
    return json.dumps(dict(sorted(taken.items()))), json.dumps(dict(sorted(failed.items())))


def _judge_disagreement(runs: pd.DataFrame, scenario: object, variant: object) -> float | None:
    """The largest pair disagreement of the arm's judges sampled more than once (the chance two
    verdicts on one run disagree, unbiased: ``trajguard.comparison.JudgeConsistency``); ``None``
    without such a judge."""
    if "judge_calls" not in runs or "variant" not in runs:
        return None
    arm = runs[
        (runs["scenario"].astype(str) == str(scenario))
        & (runs["variant"].astype(str) == str(variant))
    ]
    found = judge_consistency(arm, "candidate")
    return max((j.pair_disagreement for j in found), default=None)


def night_table(night: NightInput) -> pa.Table:
    """The night's rows (:data:`NIGHT_SCHEMA`), one per scenario and variant of its runs."""
    recorded = night.recorded_at or datetime.now(UTC)
    base = night.baseline_runs
    baseline_arms = _arms(base, ["scenario"]) if base is not None and len(base) else {}
    rows = []
    for (scenario, variant), arm in _arms(night.runs, ["scenario", "variant"]).items():
        base_arm = baseline_arms.get((scenario,))
        path_runs, failing_paths = _paths(night.runs, scenario, variant)
        rows.append(
            {
                "schema_version": NIGHT_SCHEMA_VERSION,
                "night_id": night.night_id,
                "recorded_at": recorded,
                "scenario": str(scenario),
                "variant": str(variant),
                **arm,
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
                "judge_disagreement": _judge_disagreement(night.runs, scenario, variant),
                "path_runs": path_runs,
                "failing_paths": failing_paths,
            }
        )
    return pa.Table.from_pylist(rows, schema=NIGHT_SCHEMA)
