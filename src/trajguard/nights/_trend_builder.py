"""A suite's nights as a trend: per scenario, the series, the monitoring procedure's alarms,
flaky, baseline drift."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date as Date
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from trajguard._json import loads_bounded
from trajguard.nights._alarms import monitor
from trajguard.nights._drift_rule import drift_line
from trajguard.nights._stats import overdispersion, wilson
from trajguard.results import (
    BaselineDrift,
    FlakyFacts,
    ScenarioTrend,
    TrendAlarm,
    TrendFacts,
    TrendPoint,
)

__all__ = ["trend_of"]


def _number(value: object) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)  # type: ignore[arg-type]


def _shares(text: object) -> dict[str, float] | None:
    """A night's tool mix (``{"tool": calls}`` as JSON) as shares; ``None`` when the store
    holds something else there (a file written by hand): unknown, never an empty mix."""
    if not isinstance(text, str) or not text:
        return {}
    try:
        counts = {str(k): float(v) for k, v in loads_bounded(text).items()}
    except (AttributeError, TypeError, ValueError):  # no object, no numbers, no JSON, too deep
        return None
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def _path_counts(text: object) -> dict[str, int] | None:
    if not isinstance(text, str):
        return None
    try:
        return {str(k): int(v) for k, v in loads_bounded(text).items()}
    except (AttributeError, TypeError, ValueError, OverflowError):  # as _shares: unknown
        return None


def _distance(night: object, baseline: object) -> float | None:
    if not isinstance(baseline, str):
        return None
    a, b = _shares(night), _shares(baseline)
    if a is None or b is None:
        return None
    return 0.5 * sum(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in set(a) | set(b))


def _point(row: Mapping[Any, Any]) -> TrendPoint:
    counted = _number(row.get("judged"))
    judged = int(counted) if counted is not None else int(row["runs"])
    passes, crashes = int(row["passes"]), int(row["crashes"])
    low, high = wilson(passes, judged)
    c_low, c_high = wilson(crashes, judged)
    return TrendPoint(
        date=str(row["date"]),
        night_id=str(row["night_id"]),
        runs=judged,
        passes=passes,
        pass_rate=passes / judged if judged else 0.0,
        pass_low=low,
        pass_high=high,
        crash_rate=crashes / judged if judged else 0.0,
        crash_low=c_low,
        crash_high=c_high,
        tool_distance=_distance(row.get("tool_mix"), row.get("baseline_tool_mix")),
        mean_tokens=_number(row.get("mean_tokens")),
        verdict=verdict if isinstance(verdict := row.get("verdict"), str) else None,
        judge_disagreement=_number(row.get("judge_disagreement")),
        paths=_path_counts(row.get("path_runs")),
        failing_paths=_path_counts(row.get("failing_paths")),
        mean_cost_usd=_number(row.get("mean_cost_usd")),
    )


def _age(started: object, newest: str) -> float | None:
    if not isinstance(started, str) or not started:
        return None
    try:
        begun = datetime.fromisoformat(started)
    except ValueError:
        return None
    return float((Date.fromisoformat(newest) - begun.date()).days)


def _drift(
    records: list[dict[str, Any]],
    points: tuple[TrendPoint, ...],
    batch: str,
    *,
    pinned: bool,
    band: float,
) -> BaselineDrift | None:
    """The nights (oldest first) since baseline ``batch`` first appeared, against its counts."""
    first = next(
        (
            i
            for i, r in enumerate(records)
            if r.get("baseline_batch") == batch
            and _number(r.get("baseline_runs"))
            and _number(r.get("baseline_passes")) is not None
        ),
        None,
    )
    if first is None:
        return None
    since = points[first:]
    line = drift_line(
        [p.passes for p in since],
        [p.runs for p in since],
        float(records[first]["baseline_passes"]),
        float(records[first]["baseline_runs"]),
        band=band,
    )
    started = records[first].get("baseline_started_at")
    return BaselineDrift(
        batch=batch,
        started_at=started if isinstance(started, str) else None,
        age_days=_age(started, points[-1].date),
        pinned=pinned,
        nights=len(since),
        difference=line.difference,
        low=line.low,
        high=line.high,
        recent_difference=line.recent_difference,
        beyond_band=line.beyond_band,
    )


def _baselines(records: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """The newest night's baseline and the newest pinned one (``None``: none recorded)."""
    batches = [r.get("baseline_batch") for r in records]
    current = next((b for b in reversed(batches) if isinstance(b, str)), None)
    pinned = next(
        (
            b
            for b, r in zip(reversed(batches), reversed(records), strict=True)
            if isinstance(b, str) and r.get("baseline_pinned") is not False
        ),
        None,
    )
    return current, pinned


def _records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {str(k): (None if _missing(v) else v) for k, v in r.items()}
        for r in rows.to_dict("records")
    ]


def _scenario(
    records: list[dict[str, Any]],
    points: tuple[TrendPoint, ...],
    *,
    alpha: float,
    sims: int,
    band: float,
    rng: np.random.Generator,
    alarms: tuple[TrendAlarm, ...],
) -> ScenarioTrend:
    x = np.array([p.passes for p in points], dtype=np.float64)
    n = np.array([p.runs for p in points], dtype=np.float64)
    # a step of the pass rate is no spread: test around the newest step's two rates
    dates = [p.date for p in points]
    steps = [a for a in alarms if a.metric == "pass_rate" and a.start in dates]
    change = dates.index(steps[-1].start) if steps else None
    change = change if change is not None and 0 < change < len(points) else None
    spread = overdispersion(x, n, change=change, sims=sims, rng=rng)
    current, pinned = _baselines(records)
    drift = anchor = None
    if current is not None:
        drift = _drift(records, points, current, pinned=pinned == current, band=band)
        if pinned is not None and pinned != current:
            anchor = _drift(records, points, pinned, pinned=True, band=band)
    return ScenarioTrend(
        scenario=str(records[0]["scenario"]),
        variant=str(records[0]["variant"]),
        points=points,
        flaky=len(points) >= 3 and spread.p_value <= alpha,
        dispersion=FlakyFacts(p_value=spread.p_value, ratio=spread.ratio)
        if len(points) >= 3
        else None,
        drift=drift,
        anchor_drift=anchor,
        alarms=alarms,
    )


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def trend_of(
    rows: pd.DataFrame,
    *,
    store: str,
    suite: str,
    alpha: float = 0.05,
    sims: int = 999,
    band: float = 0.10,
    seed: int = 20261202,
) -> TrendFacts:
    """The trend of one suite's rows (as :func:`read_nights` returns them, oldest first)."""
    rng = np.random.default_rng(seed)
    keys = ["date", "recorded_at", "night_id"]
    nights = rows[keys].drop_duplicates()
    order = {tuple(k): i for i, k in enumerate(nights.itertuples(index=False, name=None))}
    groups: list[tuple[list[dict[str, Any]], tuple[TrendPoint, ...]]] = []
    series: list[list[TrendPoint | None]] = []
    for _, group in rows.groupby(["scenario", "variant"], sort=True):
        records = _records(group)
        points = tuple(_point(r) for r in records)
        groups.append((records, points))
        row: list[TrendPoint | None] = [None] * len(order)
        for r, p in zip(records, points, strict=True):
            row[order[(r["date"], r["recorded_at"], r["night_id"])]] = p
        series.append(row)
    labels = [(str(d), str(i)) for d, _, i in nights.itertuples(index=False, name=None)]
    figures, alarms = monitor(series, labels)
    scenarios = tuple(
        _scenario(records, points, alpha=alpha, sims=sims, band=band, rng=rng, alarms=found)
        for (records, points), found in zip(groups, alarms, strict=True)
    )
    return TrendFacts(
        store=store,
        suite=suite,
        nights=len(nights),
        alpha=alpha,
        simulations=sims,
        band=band,
        scenarios=scenarios,
        monitoring=figures,
    )
