"""A store of nights at a year's size, written fast: each night's rows made from drawn counts
(not from run rows) and appended with the store's own writer. For the trend page's browser test
and benchmark."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa

from trajguard.nights import NIGHT_SCHEMA, NIGHT_SCHEMA_VERSION, append_night, open_location

SUITE = "year"


def scenario_names(scenarios: int, *, hostile: str | None = None) -> list[str]:
    names = [f"s{i:02d}" for i in range(scenarios)]
    if hostile is not None and names:
        names[-1] = hostile
    return names


def year_store(
    root: Path,
    *,
    nights: int = 365,
    scenarios: int = 20,
    runs: int = 20,
    seed: int = 36,
    drop_at: int | None = None,
    promote_every: int = 90,
    reports_every: int = 7,
    hostile: str | None = None,
) -> Path:
    """Write ``nights`` nights of ``scenarios`` scenarios to ``root / "store"``; scenario s00's
    pass rate drops 40 points from night ``drop_at`` (default: two thirds in); a new baseline
    every ``promote_every`` nights; every ``reports_every``-th night a ``report.html`` under
    ``root / "reports" / DATE``. Returns the store."""
    rng = np.random.default_rng(seed)
    location = open_location(root / "store")
    names = scenario_names(scenarios, hostile=hostile)
    rates = rng.uniform(0.45, 0.9, scenarios)
    drop_at = (2 * nights) // 3 if drop_at is None else drop_at
    first = date(2026, 1, 1)
    for k in range(nights):
        day = (first + timedelta(days=k)).isoformat()
        night_id = f"n{k:03d}"
        folder = root / "reports" / day
        if k % reports_every == 0:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "report.html").write_text("<!DOCTYPE html><title>night</title>")
        now = rates.copy()
        if k >= drop_at:
            now[0] = max(0.0, now[0] - 0.4)
        passes = rng.binomial(runs, now)
        crashes = rng.binomial(runs, 0.02, scenarios)
        calc = rng.binomial(runs, 0.7, scenarios)
        batch = f"base{k // promote_every}"
        rows = [
            {
                "schema_version": NIGHT_SCHEMA_VERSION,
                "night_id": night_id,
                "recorded_at": datetime(2026, 1, 1, 3, tzinfo=UTC) + timedelta(days=k),
                "scenario": name,
                "variant": "base",
                "runs": runs,
                "passes": int(passes[i]),
                "crashes": int(crashes[i]),
                "judged": runs,
                "mean_tokens": float(rng.normal(700, 30)),
                "tool_mix": json.dumps({"calculator": int(calc[i]), "lookup": runs - int(calc[i])}),
                "verdict": "unchanged",
                "runset": str(folder / "runs"),
                "night_verdict": "unchanged",
                "exit_code": 0,
                "comparison": json.dumps({"report": str(folder / "report.md")}),
                "baseline_batch": batch,
                "baseline_started_at": f"{day}T00:00:00+00:00",
                "baseline_pinned": k < promote_every,
                "baseline_runs": runs,
                "baseline_passes": round(float(rates[i]) * runs),
                "baseline_tool_mix": json.dumps({"calculator": 14, "lookup": 6}),
            }
            for i, name in enumerate(names)
        ]
        table = pa.Table.from_pylist(rows, schema=NIGHT_SCHEMA)
        append_night(location, table, suite=SUITE, date=day, night_id=night_id)
    return root / "store"
