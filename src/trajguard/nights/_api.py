"""The store's two calls: record a night, read a suite's trend."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from trajguard.errors import StoreError
from trajguard.nights._append import append_night
from trajguard.nights._location import open_location
from trajguard.nights._read import newest_dates, read_store
from trajguard.nights._record import NightInput, night_table
from trajguard.nights._trend_builder import trend_of
from trajguard.results import TrendFacts

__all__ = ["record_night", "trend"]


def record_night(store: str | Path, night: NightInput) -> str:
    """Append ``night`` to the store at ``store`` (a directory or URL); returns its file.

    Raises:
        StoreError: the store cannot be opened or written.
    """
    location = open_location(store)
    return append_night(
        location, night_table(night), suite=night.suite, date=night.date, night_id=night.night_id
    )


def trend(
    store: str | Path,
    *,
    suite: str | None = None,
    scenario: str | None = None,
    last: int | None = None,
    alpha: float = 0.05,
    simulations: int = 999,
    band: float = 0.10,
    extra: NightInput | None = None,
) -> TrendFacts:
    """The trend of a suite's nights in the store.

    Args:
        store: the store's directory or URL.
        suite: the suite (default: the store's only suite).
        scenario: show only this scenario (the alarms are the whole suite's procedure's).
        last: only the newest ``last`` nights.
        alpha: the level of the change scan and of the flaky test.
        simulations: series simulated per Monte Carlo p-value.
        band: the pass-rate band of the drift rule.
        extra: a night not yet appended, shown as the newest (a nightly's own night).

    Files of the store that are no readable night (a README, a corrupt file) are skipped and
    named in the result's ``skipped``; the trend is of the other nights.

    Raises:
        StoreError: the store cannot be listed, holds no nights (of the suite), or holds several
            suites and none was named.
    """
    if last is not None and last < 1:
        raise StoreError(f"--last must be at least 1, got {last}")
    if not 0 < alpha < 1:
        raise StoreError(f"alpha must be between 0 and 1, got {alpha}")
    location = open_location(store)
    named = suite or (extra.suite if extra else None)
    since = newest_dates(location, suite=named, nights=last) if last and named else None
    # every scenario is read: the suite's threshold depends on how many it watches
    read = read_store(location, suite=named, since=since)
    rows = read.rows
    if extra is not None:
        import pandas as pd

        own = night_table(extra).to_pandas().assign(suite=extra.suite, date=extra.date)
        keep = ~(
            (rows["suite"] == extra.suite)
            & (rows["date"] == extra.date)
            & (rows["night_id"] == extra.night_id)
        )
        rows = pd.concat([rows[keep], own[rows.columns]], ignore_index=True)
    suites = sorted(set(rows["suite"].dropna()))
    if not suites:
        raise StoreError(
            "the store holds no nights" + (f" of suite {suite!r}" if suite else ""),
            file=location.text,
            details=[f"skipped {s.path}: {s.reason}" for s in read.skipped],
            hint="append nights with `trajguard nightly SUITE --store STORE` "
            "or `trajguard compare BASELINE CANDIDATE --store STORE`",
        )
    if suite is None and len(suites) > 1:
        raise StoreError(
            f"the store holds several suites ({', '.join(suites)})",
            file=location.text,
            hint="name one with --suite",
        )
    chosen = suite or suites[0]
    rows = rows[rows["suite"] == chosen].sort_values(
        ["date", "recorded_at", "night_id"], kind="stable"
    )
    if last is not None:
        keys = rows[["date", "recorded_at", "night_id"]].drop_duplicates().tail(last)
        rows = rows.merge(keys, on=list(keys.columns))
    facts = trend_of(
        rows.reset_index(drop=True),
        store=location.text,
        suite=chosen,
        alpha=alpha,
        sims=simulations,
        band=band,
    )
    if read.skipped:
        facts = replace(facts, skipped=read.skipped)
    if scenario is None:
        return facts
    return replace(facts, scenarios=tuple(s for s in facts.scenarios if s.scenario == scenario))
