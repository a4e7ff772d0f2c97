"""A suite's nights as the store recorded them (one entry per night, not per scenario): the
report and run set each night named, its verdict and its baseline, for a page of the series."""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path

from trajguard.nights._location import open_location
from trajguard.nights._read import newest_dates, read_store
from trajguard.results import TrendNight

__all__ = ["trend_nights"]

_COLUMNS = (
    "runset",
    "comparison",
    "night_verdict",
    "exit_code",
    "baseline_batch",
    "baseline_pinned",
    "model",
    "git_sha",
)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _report(comparison: object) -> str | None:
    """The ``report`` path a night's ``comparison`` summary names (``None``: none, or not JSON)."""
    if not isinstance(comparison, str):
        return None
    try:
        summary = json.loads(comparison)
    except ValueError:
        return None
    return _text(summary.get("report")) if isinstance(summary, dict) else None


def _int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number = float(value)
    return None if math.isnan(number) else int(number)


def trend_nights(store: str | Path, *, suite: str, newest: int) -> tuple[TrendNight, ...]:
    """The newest ``newest`` nights of ``suite`` in ``store``, oldest first, in the order a trend
    reads them (date, time recorded, id): the nights a trend of ``newest`` nights indexes.

    Raises:
        StoreError: the store cannot be listed or read.
    """
    if newest < 1:
        return ()
    location = open_location(store)
    since = newest_dates(location, suite=suite, nights=newest)
    rows = read_store(location, suite=suite, since=since, columns=_COLUMNS).rows
    rows = rows.drop_duplicates(["date", "recorded_at", "night_id"]).tail(newest)
    out = []
    for row in rows.to_dict("records"):  # one row per night: its first scenario's
        pinned = row.get("baseline_pinned")
        out.append(
            TrendNight(
                date=str(row["date"]),
                night_id=str(row["night_id"]),
                report=_report(row.get("comparison")),
                runset=_text(row.get("runset")),
                verdict=_text(row.get("night_verdict")),
                exit_code=_int(row.get("exit_code")),
                baseline_batch=_text(row.get("baseline_batch")),
                baseline_pinned=bool(pinned) if isinstance(pinned, bool) else None,
                model=_text(row.get("model")),
                git_sha=_text(row.get("git_sha")),
            )
        )
    return tuple(out)
