"""A run set read whole: where it is, its manifest and its runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard.errors import StoreError
from trajguard.store._manifest import read_manifest
from trajguard.store._runset import read_runs

if TYPE_CHECKING:  # read_runs makes the frame: the run view starts without pandas
    import pandas as pd

__all__ = ["RunSet", "check_comparable_sides", "check_finished", "load_runset"]


@dataclass(frozen=True, kw_only=True)
class RunSet:
    """One run set: its path (as given), manifest and runs (one row per run)."""

    path: str
    manifest: Mapping[str, Any]
    runs: pd.DataFrame = field(repr=False)

    @property
    def suite(self) -> str:
        """The suite the run set belongs to (``"suite"`` when the manifest does not say)."""
        return str(self.manifest.get("suite") or "suite")


def load_runset(path: Path) -> RunSet:
    """Read a run set's manifest and runs.

    Raises:
        StoreError: the directory is not a run set, or a file in it cannot be read.
    """
    return RunSet(path=str(path), manifest=read_manifest(path), runs=read_runs(path))


def check_finished(runset: RunSet, *, role: str, allow: bool = False) -> str | None:
    """Refuse a run set whose batch has not finished (``status`` other than ``finished``: still
    running, interrupted or killed), unless ``allow``; then the returned sentence says what it
    holds, for the report (``None`` for a finished run set).

    Raises:
        StoreError: the run set is unfinished and ``allow`` is false.
    """
    status = runset.manifest.get("status")
    if status == "finished":
        return None
    planned = runset.manifest.get("planned_runs")
    of = f" of the {planned} planned" if isinstance(planned, int) else ""
    what = (
        f"the {role} run set is not a finished batch: its manifest says status {status!r}, "
        f"and it holds {len(runset.runs)}{of} runs"
    )
    if not allow:
        raise StoreError(
            what,
            file=runset.path,
            hint=f"finish it first (trajguard run SUITE --resume {runset.path}), or pass "
            "--allow-unfinished to compare the runs it holds (the report says so)",
        )
    return what


def check_comparable_sides(baseline: RunSet, candidate: RunSet) -> None:
    """Refuse two run sets that share no scenario: a comparison of them would compare nothing.

    Raises:
        StoreError: no scenario is in both.
    """
    if "scenario" not in baseline.runs.columns or "scenario" not in candidate.runs.columns:
        return
    ours = {str(s) for s in baseline.runs["scenario"].dropna().unique()}
    theirs = {str(s) for s in candidate.runs["scenario"].dropna().unique()}
    if ours and theirs and not ours & theirs:
        raise StoreError(
            "the two run sets share no scenario, so there is nothing to compare (baseline: "
            f"{_names(ours)}; candidate: {_names(theirs)})",
            file=candidate.path,
            hint="compare a candidate with a baseline of the same suite and scenarios; a "
            "renamed scenario starts without a baseline (promote a new one)",
        )


def _names(names: set[str], shown: int = 5) -> str:
    listed = sorted(names)
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(repr(n) for n in listed[:shown]) + more
