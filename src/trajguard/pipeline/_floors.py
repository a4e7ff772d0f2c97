"""Floors on a run set: the scenarios' bars as its manifest recorded them from the suite,
checked on its runs — the floors-only check of ``trajguard run``, and the floors of
``compare``, ``nightly`` and ``ab`` (every variant's arm)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajguard.comparison import FloorBars, FloorResult, check_floors
from trajguard.errors import InvalidResultData, StoreError
from trajguard.report import floors_summary
from trajguard.results import from_data
from trajguard.store import RunSet, load_runset

__all__ = ["FloorOutcome", "check_runset_floors", "floors_of", "manifest_floors"]


def manifest_floors(manifest: Mapping[str, Any], *, where: str | Path) -> dict[str, FloorBars]:
    """Scenario → its bars, from a run set's manifest (empty when none has a floor).

    Raises:
        StoreError: the manifest's ``floors`` is not what ``trajguard run`` writes.
    """
    raw = manifest.get("floors") or {}
    try:
        if not isinstance(raw, Mapping):
            raise InvalidResultData("floors must be an object: scenario → its floor")
        return {
            str(scenario): from_data(FloorBars, bars, root=f"floors.{scenario}")
            for scenario, bars in raw.items()
        }
    except InvalidResultData as error:
        raise StoreError(
            f"the run set's manifest records floors it cannot use: {error.message}",
            file=Path(where),
            path=error.path,
            hint="the floors come from the suite file; run the batch again rather than edit "
            "its manifest",
        ) from None


def floors_of(runset: RunSet) -> FloorResult | None:
    """Every variant's arm of the run set checked against its scenarios' floors (``None``:
    no scenario has a floor)."""
    bars = manifest_floors(runset.manifest, where=runset.path)
    return check_floors(runset.runs, bars) if bars else None


@dataclass(frozen=True, kw_only=True)
class FloorOutcome:
    """The floors-only check of a run set."""

    floors: FloorResult

    @property
    def exit_code(self) -> int:
        """0 when every bar is met, else 1."""
        return 0 if self.floors.met else 1

    @property
    def words(self) -> str:
        """The summary line, then every bar not met in a sentence."""
        return floors_summary(self.floors, listed=len(self.floors.failed))


def check_runset_floors(path: Path) -> FloorOutcome | None:
    """``trajguard run``'s floors-only check of the run set at ``path`` (``None``: no floor).

    Raises:
        StoreError: the run set cannot be read.
    """
    found = floors_of(load_runset(path))
    return None if found is None else FloorOutcome(floors=found)
