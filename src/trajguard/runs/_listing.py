"""The runs of a run set, one line each, selected by scenario, variant, status, outcome,
failed criterion or tool sequence; read without the ``trajectory`` column."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajguard.errors import UsageError
from trajguard.outcome import STATUSES, is_crash_row
from trajguard.store import criterion_outcomes, read_table

__all__ = [
    "CRASH_CRITERION",
    "LISTING_COLUMNS",
    "RunFilter",
    "RunLine",
    "failed_criteria_of",
    "list_runs",
    "parse_sequence",
]

LISTING_COLUMNS = (
    "run_id",
    "scenario",
    "variant",
    "run_index",
    "status",
    "passed",
    "crashed",
    "failed_criteria",
    "criteria",
    "step_count",
    "tool_sequence",
    "total_tokens",
    "duration_s",
    "error_type",
)
"""The columns a listing reads: every one but the trajectory and the long texts."""

CRASH_CRITERION = "no crash"
"""The failed "criterion" of a run that did not end normally (``failed_criteria``'s first entry)."""


@dataclass(frozen=True, kw_only=True)
class RunFilter:
    """Which runs to keep (every field ``None``: all of them)."""

    scenario: str | None = None
    variant: str | None = None
    status: str | None = None
    passed: bool | None = None
    """``True``: judged and passed; ``False``: judged and failed (a crash included)."""
    criterion: str | None = None
    """A failed criterion, by label (``tool_not_called: get_weather``) or kind."""
    sequence: tuple[str, ...] | None = None
    """The run's tool sequence exactly (``()``: no tool call)."""
    limit: int | None = None


@dataclass(frozen=True, kw_only=True)
class RunLine:
    """One run as a listing shows it."""

    run_id: str
    scenario: str
    variant: str
    run_index: int
    status: str
    passed: bool | None
    """``None``: not judged (a harness error)."""
    failed: tuple[str, ...]
    """The criteria that failed: labels (schema 2) or kinds (older files); "no crash" first for a
    run that did not end normally."""
    steps: int | None
    tool_sequence: tuple[str, ...]
    total_tokens: int | None
    duration_s: float | None
    error_type: str | None


def parse_sequence(text: str) -> tuple[str, ...]:
    """``"a > b"`` (or ``"a → b"``) as a tool sequence; ``""`` or ``"(no tools)"``: none."""
    if text.strip() in ("", "(no tools)", "-"):
        return ()
    return tuple(part.strip() for part in re.split(r">|→", text) if part.strip())


def failed_criteria_of(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The criteria a run failed: from the ``criteria`` column when it is known, else the kinds
    of its ``failed_criteria`` entries (files of store schema 1)."""
    crash = is_crash_row(str(row.get("status")), row.get("crashed"))
    outcomes = criterion_outcomes(row)
    if outcomes is not None:
        failed = tuple(o.criterion for o in outcomes if not o.held)
        return (CRASH_CRITERION, *failed) if crash else failed
    entries = row.get("failed_criteria")
    kinds = tuple(str(entry).split(":", 1)[0] for entry in (entries if entries is not None else ()))
    if crash and CRASH_CRITERION not in kinds:
        kinds = (CRASH_CRITERION, *kinds)
    return kinds


def _line(row: Mapping[str, Any]) -> RunLine:
    crash = is_crash_row(str(row.get("status")), row.get("crashed"))
    passed = row.get("passed")
    judged = passed is not None or crash
    return RunLine(
        run_id=str(row["run_id"]),
        scenario=str(row["scenario"]),
        variant=str(row["variant"]),
        run_index=int(row["run_index"]),
        status=str(row["status"]),
        passed=(bool(passed) and not crash) if judged else None,
        failed=failed_criteria_of(row),
        steps=row.get("step_count"),
        tool_sequence=tuple(row.get("tool_sequence") or ()),
        total_tokens=row.get("total_tokens"),
        duration_s=row.get("duration_s"),
        error_type=row.get("error_type"),
    )


def _keep(line: RunLine, chosen: RunFilter) -> bool:
    if chosen.scenario is not None and line.scenario != chosen.scenario:
        return False
    if chosen.variant is not None and line.variant != chosen.variant:
        return False
    if chosen.status is not None and line.status != chosen.status:
        return False
    if chosen.passed is not None and line.passed is not chosen.passed:
        return False
    if chosen.criterion is not None and not any(
        name == chosen.criterion or name.split(":", 1)[0] == chosen.criterion
        for name in line.failed
    ):
        return False
    return chosen.sequence is None or line.tool_sequence == chosen.sequence


def _check(chosen: RunFilter) -> None:
    if chosen.limit is not None and chosen.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {chosen.limit}")
    if chosen.status is not None and chosen.status not in STATUSES:
        raise UsageError(
            f"unknown --status {chosen.status!r}", hint=f"one of: {', '.join(sorted(STATUSES))}"
        )


def list_runs(runset: Path, chosen: RunFilter | None = None) -> tuple[RunLine, ...]:
    """The runs of a run set that ``chosen`` keeps, in scenario, variant and index order.

    Reads only :data:`LISTING_COLUMNS` (never the trajectories).

    Raises:
        UsageError: a limit below 1, an unknown status, or a scenario or variant the run set
            does not hold (named, with the ones it holds).
        StoreError: not a run set, or a file in it cannot be read.
    """
    chosen = chosen or RunFilter()
    _check(chosen)
    rows = read_table(runset, columns=LISTING_COLUMNS).to_pylist()
    lines = sorted(
        (_line(row) for row in rows), key=lambda r: (r.scenario, r.variant, r.run_index, r.run_id)
    )
    for field, named in (("scenario", chosen.scenario), ("variant", chosen.variant)):
        there = sorted({getattr(line, field) for line in lines})
        if named is not None and named not in there:
            shown = ", ".join(there[:10]) + (
                f" and {len(there) - 10} more" if len(there) > 10 else ""
            )
            raise UsageError(
                f"the run set has no {field} {named!r}",
                file=runset,
                hint=f"its {field}s: {shown}" if there else "it holds no runs",
            )
    kept = [line for line in lines if _keep(line, chosen)]
    return tuple(kept[: chosen.limit] if chosen.limit is not None else kept)
