"""A comparison's night in the store of nights: recorded, its trend in the report, and the
baseline promoted when the night is clean and the series has not drifted (the boiling-frog
guard)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from trajguard.errors import StoreError, UsageError
from trajguard.nights import (
    NightInput,
    is_url,
    night_path,
    open_location,
    read_nights,
    record_night,
    trend,
)
from trajguard.results import Promotion, ReportDocument, TrendFacts
from trajguard.store import DEFAULT_KEEP, RunSet, promote

__all__ = [
    "ROLLING",
    "StoreRequest",
    "night_of",
    "promote_from_store",
    "skipped_warnings",
    "store_for_suite",
    "with_trend",
]

ROLLING = "promote-if-clean"
"""``promoted_by`` in the manifest of a baseline ``--promote-if-clean`` promoted (not pinned)."""


@dataclass(frozen=True, kw_only=True)
class StoreRequest:
    """Keep the night in a store of nights.

    Attributes:
        location: the store's directory or URL (``None``: the suite's ``defaults.store``, and
            no store when the suite names none; only ``nightly`` reads a suite).
        date: file the night under this date (default: the candidate batch's start date).
        promote_to: with ``--promote-if-clean``, the baselines root to promote a clean night to.
        fail_on_change: ``--fail-on-change``: exit 5 when the trend raises a harmful alarm on
            this night.
    """

    location: str | None
    date: str | None = None
    promote_to: Path | None = None
    fail_on_change: bool = False


def store_for_suite(
    request: StoreRequest | None, *, named: str | None, suite_dir: Path
) -> StoreRequest | None:
    """``request`` with its location filled from the suite's ``defaults.store`` (``named``; a
    relative directory is the suite file's) when the command line named none; ``None`` when
    neither names a store.

    Raises:
        UsageError: ``--promote-if-clean`` without any store to read the series from.
    """
    if request is None or request.location is not None:
        return request
    if named is None:
        if request.promote_to is not None or request.fail_on_change:
            flag = "--promote-if-clean" if request.promote_to is not None else "--fail-on-change"
            raise UsageError(
                f"{flag} needs the series of nights: pass --store STORE, set "
                "$TRAJGUARD_STORE or the suite's defaults.store (`trajguard docs nights`)"
            )
        return None
    location = named if is_url(named) or Path(named).is_absolute() else str(suite_dir / named)
    return replace(request, location=location)


def _location(request: StoreRequest) -> str:
    if request.location is None:  # store_for_suite fills it, or there is no request
        raise ValueError("a store request without a location reached the store")
    return request.location


def _date(candidate: RunSet, given: str | None) -> str:
    if given:
        return given
    started = candidate.manifest.get("started_at")
    if isinstance(started, str):
        try:
            return datetime.fromisoformat(started).astimezone(UTC).date().isoformat()
        except ValueError:
            pass
    return datetime.now(UTC).date().isoformat()


def night_of(
    document: ReportDocument, baseline: RunSet, candidate: RunSet, *, report: Path, date: str | None
) -> NightInput:
    """The night a comparison makes: its candidate's aggregates, verdicts and provenance."""
    comparison = document.comparison
    manifest = candidate.manifest
    batch = manifest.get("batch_id")
    night_id = str(batch) if batch else hashlib.sha256(candidate.path.encode()).hexdigest()[:12]
    verdicts = {s.scenario: s.verdict.value for s in comparison.scenarios}
    summary = {
        "kind": document.kind.value,
        "verdict": comparison.verdict.value,
        "regressed": comparison.regressed,
        "exit_code": document.exit_code,
        "scenarios": verdicts,
        "report": str(report),
    }
    models = manifest.get("models") or []
    return NightInput(
        suite=candidate.suite,
        date=_date(candidate, date),
        night_id=night_id,
        runs=candidate.runs,
        runset=str(Path(candidate.path).absolute()),
        git_sha=manifest.get("git_sha"),
        model=",".join(str(m) for m in models) or None,
        verdicts=verdicts,
        night_verdict=comparison.verdict.value,
        exit_code=document.exit_code,
        comparison=json.dumps(summary, sort_keys=True),
        baseline=str(baseline.path),
        baseline_runs=baseline.runs,
        baseline_batch=str(baseline.manifest.get("batch_id") or "unknown"),
        baseline_started_at=baseline.manifest.get("started_at"),
        baseline_pinned=baseline.manifest.get("promoted_by") != ROLLING,
        config_hashes=dict(manifest.get("config_hashes") or {}),
    )


def _since_baseline(facts: TrendFacts) -> int:
    """The first night (index) that ran against the newest night's baseline (0: unknown)."""
    newest = [s.drift.nights for s in facts.scenarios if s.drift is not None]
    return facts.nights - max(newest) if newest else 0


def _promotion(document: ReportDocument, facts: TrendFacts) -> Promotion:
    if document.exit_code != 0 or document.comparison.regressed:
        return Promotion(promoted=False, reason="the night is not clean (it failed its gates).")
    first = _since_baseline(facts)
    alarmed = {
        s.scenario
        for s in facts.scenarios
        for a in s.alarms
        if a.harmful and a.raised_index >= first
    }
    # the slide a rolling baseline hides: below the pinned anchor beyond the band
    slid = {
        s.scenario
        for s in facts.scenarios
        for d in (s.drift, s.anchor_drift)
        if d is not None and d.pinned and d.beyond_band and d.difference < 0
    }
    reasons = [
        text + ", ".join(sorted(names))
        for text, names in (
            ("the trend raised an alarm since the baseline was set in ", alarmed),
            ("the nights slid below the pinned anchor beyond the band in ", slid),
        )
        if names
    ]
    if reasons:
        return Promotion(
            promoted=False,
            reason=f"boiling-frog guard: {'; '.join(reasons)}; promote by hand after a look "
            "(`trajguard baseline promote --from-store`).",
        )
    return Promotion(
        promoted=True,
        reason="the night is clean and the trend raised no alarm since the baseline was set; "
        "it is the rolling baseline now.",
    )


def skipped_warnings(facts: TrendFacts | None) -> tuple[str, ...]:
    """One warning per file of the store the trend's read skipped (foreign or unreadable)."""
    if facts is None:
        return ()
    return tuple(skipped.warning for skipped in facts.skipped)


def with_trend(
    document: ReportDocument, night: NightInput, request: StoreRequest
) -> tuple[ReportDocument, tuple[str, ...]]:
    """The document with the suite's trend over every night of the store (this night the newest:
    the monitoring procedure runs from the oldest, so a night's report extends yesterday's)
    and, if asked, the promotion decision; and the warnings of the read.

    A store that cannot be read does not cost the night its report: the document comes back
    without a trend (so nothing is promoted) and a warning says why.

    Raises:
        StoreError: the night cannot be filed in the store (its suite, date or id).
    """
    # refuse a night that cannot be filed before anything is written
    location = _location(request)
    night_path(open_location(location), suite=night.suite, date=night.date, night_id=night.night_id)
    try:
        facts = trend(location, suite=night.suite, extra=night)
    except StoreError as exc:
        return document, (f"the report has no trend section: {exc}",)
    facts = replace(facts, fail_on_change=request.fail_on_change)
    if request.promote_to is not None:
        facts = replace(facts, promotion=_promotion(document, facts))
    return replace(document, trend=facts), skipped_warnings(facts)


def keep_night(
    document: ReportDocument, night: NightInput, request: StoreRequest, *, report: Path
) -> None:
    """Append the night (its report is written by then); promote its run set when the
    document's trend says so.

    Raises:
        StoreError: the night could not be appended (the message names the report written).
    """
    try:
        record_night(_location(request), night)
    except StoreError as exc:
        raise StoreError(
            f"the report is written ({report}), but the night was not appended to the store: "
            f"{exc.message}",
            file=exc.file,
            hint=(exc.hint + "; then " if exc.hint else "")
            + "run the same command again: the night replaces itself in the store",
        ) from None
    promotion = document.trend.promotion if document.trend else None
    if promotion is not None and promotion.promoted and request.promote_to is not None:
        promote(
            Path(night.runset),
            baselines=request.promote_to,
            note={"promoted_by": ROLLING, "promoted_from_night": f"{night.date}/{night.night_id}"},
        )


def promote_from_store(
    store: str,
    *,
    date: str,
    night_id: str | None = None,
    suite: str | None = None,
    baselines: Path = Path("baselines"),
    force: bool = False,
    keep: int = DEFAULT_KEEP,
) -> tuple[Path, str]:
    """``baseline promote --from-store STORE --night DATE``: the night's run set becomes the
    pinned baseline. Returns the baseline directory and the run set promoted.

    Raises:
        StoreError: no such night, several on that date (name one with ``night_id``), or its
            run set is gone.
    """
    rows = read_nights(open_location(store), suite=suite)
    rows = rows[rows["date"] == date]
    if night_id is not None:
        rows = rows[rows["night_id"] == night_id]
    nights = rows.drop_duplicates(["suite", "night_id"])
    if nights.empty:
        raise StoreError(
            f"the store holds no night on {date}" + (f" with id {night_id}" if night_id else ""),
            file=store,
            hint="list the nights: trajguard trend STORE --json",
        )
    if len(nights) > 1:
        ids = ", ".join(f"{r.suite}/{r.night_id}" for r in nights.itertuples())
        raise StoreError(
            f"the store holds several nights on {date} ({ids})",
            file=store,
            hint="name one with --night-id (and --suite)",
        )
    runset = Path(str(nights["runset"].iloc[0]))
    if not runset.is_dir():
        raise StoreError(
            "the night's run set is not on this machine",
            file=runset,
            hint="restore it (the nightly's artifact) at that path, or promote it directly: "
            "trajguard baseline promote RUNSET",
        )
    note = {"promoted_by": "hand", "promoted_from_night": f"{date}/{nights['night_id'].iloc[0]}"}
    return promote(runset, baselines=baselines, force=force, keep=keep, note=note), str(runset)
