"""A scenario's ``floor:``: absolute bars its runs must show, with or without a baseline.

``floor: {min_pass_rate: 0.8, max_crash_rate: 0.05, max_cost_usd_per_run: 0.02}`` in
``defaults`` (every scenario) or in a scenario (replacing the default floor whole). The words
say which way each bar points: ``min_`` is a floor the lower bound must clear, ``max_`` a
ceiling the upper bound must stay within; a cost ceiling is one run's cost, which at least
``share_within_cost`` of the runs (0.8 unless set) must be shown to stay within. The bare words
a reader could take either way
(``pass_rate``, ``crash_rate``, ``cost_usd``) are refused with the word to write instead.
The fields mirror :class:`trajguard.comparison.FloorBars` (what the comparison reads from the
manifest); this module stays import-light, as the suite loader must.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from trajguard.suite._settings import Strict

__all__ = ["Floor", "scenario_floors"]

_COST = (
    "max_cost_usd_per_run (a ceiling on one run's cost, which share_within_cost of the runs, "
    "0.8 unless set, must be shown to stay within)"
)
_SAY_INSTEAD = {
    "pass_rate": "min_pass_rate (a floor: the pass rate's lower bound must reach it)",
    "crash_rate": "max_crash_rate (a ceiling: the crash rate's upper bound must stay within it)",
    "cost_usd": _COST,
    "cost": _COST,
    "max_cost_usd": _COST,
    "max_mean_cost_usd": _COST,
    "min_crash_rate": "max_crash_rate (crashes have a ceiling, not a floor)",
    "max_pass_rate": "min_pass_rate (the pass rate has a floor, not a ceiling)",
}


class Floor(Strict):
    """Bars a scenario's runs must show (at least one)."""

    min_pass_rate: float | None = Field(default=None, gt=0.0, lt=1.0)
    """The pass rate's one-sided lower bound must be at least this."""
    max_crash_rate: float | None = Field(default=None, gt=0.0, lt=1.0)
    """The crash rate's one-sided upper bound must be at most this."""
    max_cost_usd_per_run: float | None = Field(default=None, gt=0.0)
    """A ceiling on one run's cost, in USD: the lower bound of the share of runs that cost at
    most this must reach ``share_within_cost``; a run without a recorded cost makes it
    unknown, which fails."""
    share_within_cost: float = Field(default=0.8, gt=0.0, lt=1.0)
    """The share of runs that must cost at most ``max_cost_usd_per_run`` (0.8: the 80th
    percentile of the cost is at most the ceiling)."""
    confidence: float = Field(default=0.95, ge=0.5, le=0.999)
    """The bounds' one-sided confidence: a bar the true value only reaches is met on at most
    ``1 - confidence`` of nights."""

    @model_validator(mode="before")
    @classmethod
    def _words_that_say_the_direction(cls, raw: Any) -> Any:
        if not isinstance(raw, Mapping):
            return raw
        for word, instead in _SAY_INSTEAD.items():
            if word in raw:
                raise ValueError(f"floor: write {instead} instead of {word!r}")
        return raw

    @model_validator(mode="after")
    def _some_bar(self) -> Floor:
        bars = (self.min_pass_rate, self.max_crash_rate, self.max_cost_usd_per_run)
        if all(bar is None for bar in bars):
            raise ValueError(
                "floor sets no bar: give min_pass_rate, max_crash_rate or max_cost_usd_per_run"
            )
        if "share_within_cost" in self.model_fields_set and self.max_cost_usd_per_run is None:
            raise ValueError("share_within_cost applies to max_cost_usd_per_run: give it too")
        return self


def scenario_floors(default: Floor | None, own: Mapping[str, Floor | None]) -> dict[str, Any]:
    """Each scenario's floor as the run set's manifest records it (its own, else the default);
    scenarios without one are left out."""
    found = {sid: floor or default for sid, floor in own.items()}
    return {sid: f.model_dump() for sid, f in sorted(found.items()) if f is not None}
