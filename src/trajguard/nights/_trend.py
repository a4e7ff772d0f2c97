"""A suite's nights as a trend: per scenario, the series, "since when", flaky, baseline drift."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import date as Date
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from trajguard.nights._stats import change_scan, newcombe, overdispersion, wilson
from trajguard.results import (
    BaselineDrift,
    ChangeFacts,
    FlakyFacts,
    ScenarioTrend,
    TrendFacts,
    TrendPoint,
)

__all__ = ["A_A_FALSE_ALARM_RATE", "RECENT_NIGHTS", "trend_of"]

A_A_FALSE_ALARM_RATE: float | None = 0.046
"""The change scan's alarm rate on simulated demo-shaped A/A series of 30 nights of 20 runs at
alpha 0.05 (93 of 2000 series), as measured by
``benchmarks/bench_trend_calibration.py`` (RESULTS.md, "The store of nights")."""

RECENT_NIGHTS = 3
"""The newest nights the drift rule also looks at on their own (a slide the pooled mean hides)."""


def _number(value: object) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)  # type: ignore[arg-type]


def _shares(text: object) -> dict[str, float]:
    if not isinstance(text, str) or not text:
        return {}
    counts = {str(k): float(v) for k, v in json.loads(text).items()}
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def _distance(night: object, baseline: object) -> float | None:
    if not isinstance(baseline, str):
        return None
    a, b = _shares(night), _shares(baseline)
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
    )


def _age(started: object, newest: str) -> float | None:
    if not isinstance(started, str) or not started:
        return None
    try:
        begun = datetime.fromisoformat(started)
    except ValueError:
        return None
    return float((Date.fromisoformat(newest) - begun.date()).days)


def _moved(k: float, n: float, base_k: float, base_n: float, band: float) -> bool:
    if n <= 0 or base_n <= 0:
        return False
    d, low, high = newcombe(k, n, base_k, base_n)
    return (low > 0 or high < 0) and abs(d) > band


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
    base_n = float(records[first]["baseline_runs"])
    base_k = float(records[first]["baseline_passes"])
    since, recent = points[first:], points[first:][-RECENT_NIGHTS:]
    n, k = float(sum(p.runs for p in since)), float(sum(p.passes for p in since))
    rn, rk = float(sum(p.runs for p in recent)), float(sum(p.passes for p in recent))
    d, low, high = newcombe(k, n, base_k, base_n) if n else (0.0, 0.0, 0.0)
    started = records[first].get("baseline_started_at")
    return BaselineDrift(
        batch=batch,
        started_at=started if isinstance(started, str) else None,
        age_days=_age(started, points[-1].date),
        pinned=pinned,
        nights=len(since),
        difference=d,
        low=low,
        high=high,
        recent_difference=rk / rn - base_k / base_n if rn else 0.0,
        beyond_band=_moved(k, n, base_k, base_n, band) or _moved(rk, rn, base_k, base_n, band),
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


def _scenario(
    rows: pd.DataFrame, *, alpha: float, sims: int, band: float, rng: np.random.Generator
) -> ScenarioTrend:
    records: list[dict[str, Any]] = [
        {str(k): (None if _missing(v) else v) for k, v in r.items()}
        for r in rows.to_dict("records")
    ]
    points = tuple(_point(row) for row in records)
    x = np.array([p.passes for p in points], dtype=np.float64)
    n = np.array([p.runs for p in points], dtype=np.float64)
    scan = change_scan(x, n, sims=sims, rng=rng)
    change = None
    if scan.start is not None and scan.p_value <= alpha:
        at = points[scan.start]
        change = ChangeFacts(
            date=at.date,
            night_id=at.night_id,
            index=scan.start,
            before=float(scan.before or 0.0),
            after=float(scan.after or 0.0),
            p_value=scan.p_value,
        )
    spread = overdispersion(x, n, change=change.index if change else None, sims=sims, rng=rng)
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
        change=change,
        change_p=scan.p_value if scan.start is not None else None,
        flaky=len(points) >= 3 and spread.p_value <= alpha,
        dispersion=FlakyFacts(p_value=spread.p_value, ratio=spread.ratio)
        if len(points) >= 3
        else None,
        drift=drift,
        anchor_drift=anchor,
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
    nights = rows[["date", "recorded_at", "night_id"]].drop_duplicates()
    scenarios = tuple(
        _scenario(group, alpha=alpha, sims=sims, band=band, rng=rng)
        for _, group in rows.groupby(["scenario", "variant"], sort=True)
    )
    return TrendFacts(
        store=store,
        suite=suite,
        nights=len(nights),
        alpha=alpha,
        simulations=sims,
        band=band,
        scenarios=scenarios,
        false_alarm_rate=A_A_FALSE_ALARM_RATE,
    )
