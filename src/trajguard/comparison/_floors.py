"""Floors and ceilings without a baseline: is each scenario's pass rate shown to be at least its
floor, its crash rate at most its ceiling, and the share of its runs that cost at most a ceiling
at least the share asked for?

Pure: a run table and each scenario's bars in, a :class:`FloorResult` out. A bar is met only
when the one-sided bound at the bar's confidence clears it (:mod:`trajguard.stats._floor_bounds`),
so "8 of 10 passed" does not meet a floor of 0.8. Every (scenario, variant) arm of the table is
checked on its own; the suite passes when every bar of every arm is met. That is an
intersection-union test: a suite with any arm at or beyond a bar passes with chance at most
``1 - confidence``, whatever the number of scenarios, so no multiplicity adjustment is made
(docs/explanation/statistics.md, "Floors").

Cost is a quantile, not a mean: no bound of a mean holds for every distribution of costs
(Bahadur and Savage, 1956), and the Student t bound met a ceiling the true mean only reached on
up to 21 % of nights with skewed costs (benchmarks/RESULTS.md, "Floors"). The share of runs
within a cost ceiling is a rate, with the same exact bound as the pass rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from trajguard.outcome import Outcomes, classify
from trajguard.stats import (
    lower_rate_bound,
    runs_to_show_rate_at_least,
    upper_rate_bound,
)

if TYPE_CHECKING:  # the record (FloorResult) is read without pandas
    import pandas as pd

__all__ = [
    "BAR_NAMES",
    "Bar",
    "FloorBars",
    "FloorCheck",
    "FloorResult",
    "FloorState",
    "check_floors",
]

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]

Bar = Literal["min_pass_rate", "max_crash_rate", "max_cost_usd_per_run"]
BAR_NAMES: tuple[Bar, ...] = ("min_pass_rate", "max_crash_rate", "max_cost_usd_per_run")
"""The bars a scenario's ``floor:`` may set (the suite's model mirrors them)."""


@dataclass(frozen=True, kw_only=True)
class FloorBars:
    """One scenario's bars (``None``: that bar is not set)."""

    min_pass_rate: float | None = None
    """The pass rate the runs must show at least (a floor: its lower bound is gated on)."""
    max_crash_rate: float | None = None
    """The crash rate the runs must show at most (a ceiling: its upper bound is gated on)."""
    max_cost_usd_per_run: float | None = None
    """A ceiling on one run's cost, in USD, that at least ``share_within_cost`` of the runs
    must be shown to stay within (a ceiling on that quantile of the cost)."""
    share_within_cost: float = 0.8
    """The share of runs that must cost at most ``max_cost_usd_per_run`` (its lower bound is
    gated on)."""
    confidence: float = 0.95
    """The one-sided bounds' confidence: a bar the true value only reaches is met on at most
    ``1 - confidence`` of nights."""


class FloorState(StrEnum):
    """How one bar fared."""

    MET = "met"
    """The bound clears the bar."""
    NOT_SHOWN = "not shown"
    """The bound does not clear the bar, and the other bound does not exclude it either."""
    BREACHED = "breached"
    """Even the other one-sided bound is on the wrong side: worse than the bar with confidence."""
    UNKNOWN = "unknown"
    """No value to judge (no judged run, or runs without a recorded cost)."""


@dataclass(frozen=True, kw_only=True)
class FloorCheck:
    """One bar of one scenario's arm."""

    scenario: str
    """the scenario."""
    variant: str
    """the arm's variant."""
    bar: Bar
    """which bar."""
    limit: float
    """the bar's value."""
    confidence: float
    """the one-sided bounds' confidence."""
    state: FloorState
    """met, not shown, breached or unknown (only met passes)."""
    runs: int
    """the runs counted (judged runs for the pass rate; behavioural runs otherwise)."""
    count: int | None = None
    """runs that passed (pass rate), crashed (crash rate) or cost at most the ceiling."""
    estimate: float | None = None
    """the observed rate, or share of runs within the cost ceiling."""
    bound: float | None = None
    """the bound gated on (lower for a floor, upper for a ceiling)."""
    other_bound: float | None = None
    """the opposite one-sided bound (says whether the bar is breached)."""
    runs_needed: int | None = None
    """at the observed value, about the runs that would show the bar on 8 nights in 10 (``None``:
    met already, or no run count would)."""
    missing: int = 0
    """runs without a value (a cost not recorded)."""
    share: float | None = None
    """for the cost ceiling, the share of runs that must stay within it."""


@dataclass(frozen=True, kw_only=True)
class FloorResult:
    """Every bar of every arm checked."""

    checks: tuple[FloorCheck, ...]
    unchecked: tuple[str, ...] = ()
    """Scenarios with bars but no run in the table."""

    @property
    def met(self) -> bool:
        """Every bar of every arm is met (and every scenario with bars ran)."""
        return not self.unchecked and all(c.state is FloorState.MET for c in self.checks)

    @property
    def failed(self) -> tuple[FloorCheck, ...]:
        """The checks not met."""
        return tuple(c for c in self.checks if c.state is not FloorState.MET)


@dataclass(frozen=True)
class _Arm:
    scenario: str
    variant: str
    confidence: float

    def check(
        self, bar: Bar, limit: float, state: FloorState, runs: int, **rest: float | int | None
    ) -> FloorCheck:
        return FloorCheck(
            scenario=self.scenario,
            variant=self.variant,
            confidence=self.confidence,
            bar=bar,
            limit=limit,
            state=state,
            runs=runs,
            **rest,  # type: ignore[arg-type]
        )


def _rate_check(arm: _Arm, bar: Bar, limit: float, k: int, n: int) -> FloorCheck:
    conf = arm.confidence
    if n == 0:
        return arm.check(bar, limit, FloorState.UNKNOWN, 0)
    low, high = lower_rate_bound(k, n, conf), upper_rate_bound(k, n, conf)
    if bar == "min_pass_rate":
        bound, other, met, breached = low, high, low >= limit, high < limit
        needed = runs_to_show_rate_at_least(k / n, limit, conf)
    else:
        bound, other, met, breached = high, low, high <= limit, low > limit
        needed = runs_to_show_rate_at_least(1 - k / n, 1 - limit, conf)
    state = FloorState.MET if met else FloorState.BREACHED if breached else FloorState.NOT_SHOWN
    return arm.check(
        bar,
        limit,
        state,
        n,
        count=k,
        estimate=k / n,
        bound=bound,
        other_bound=other,
        runs_needed=None if met else needed,
    )


def _cost_check(arm: _Arm, bars: FloorBars, costs: FloatArray) -> FloorCheck:
    ceiling, share = bars.max_cost_usd_per_run or 0.0, bars.share_within_cost
    known = costs[~np.isnan(costs)]
    missing = int(costs.size - known.size)
    bar: Bar = "max_cost_usd_per_run"
    if missing or not known.size:
        unknown = FloorState.UNKNOWN
        return arm.check(bar, ceiling, unknown, int(costs.size), missing=missing, share=share)
    k, n, conf = int((known <= ceiling).sum()), int(known.size), arm.confidence
    low, high = lower_rate_bound(k, n, conf), upper_rate_bound(k, n, conf)
    met, breached = low >= share, high < share
    state = FloorState.MET if met else FloorState.BREACHED if breached else FloorState.NOT_SHOWN
    return arm.check(
        bar,
        ceiling,
        state,
        n,
        count=k,
        estimate=k / n,
        bound=low,
        other_bound=high,
        runs_needed=None if met else runs_to_show_rate_at_least(k / n, share, conf),
        share=share,
    )


def _arm_checks(
    where: _Arm, bars: FloorBars, outcomes: Outcomes, rows: IntArray, costs: FloatArray
) -> list[FloorCheck]:
    checks: list[FloorCheck] = []
    if bars.min_pass_rate is not None:
        k, n = int(outcomes.passed[rows].sum()), int(outcomes.judged[rows].sum())
        checks.append(_rate_check(where, "min_pass_rate", bars.min_pass_rate, k, n))
    if bars.max_crash_rate is not None:
        k, n = int(outcomes.crashed[rows].sum()), int(outcomes.behavioural[rows].sum())
        checks.append(_rate_check(where, "max_crash_rate", bars.max_crash_rate, k, n))
    if bars.max_cost_usd_per_run is not None:
        checks.append(_cost_check(where, bars, costs[rows[outcomes.behavioural[rows]]]))
    return checks


def check_floors(table: pd.DataFrame, bars: Mapping[str, FloorBars]) -> FloorResult:
    """Check every (scenario, variant) arm of ``table`` against its scenario's bars.

    Args:
        table: one row per run (``scenario``, ``status``, ``passed``; ``variant``, ``crashed``
            and ``cost_usd`` when present).
        bars: scenario → its bars; scenarios without bars are not checked.

    Raises:
        StoreError: a status or flag column holds values no run set holds.
    """
    import pandas as pd

    outcomes = classify(table)
    keys = pd.DataFrame(
        {
            "scenario": table["scenario"].astype("string").fillna("").to_numpy(dtype=str),
            "variant": table["variant"].astype("string").fillna("base").to_numpy(dtype=str)
            if "variant" in table.columns
            else "base",
        }
    )
    column = (
        table["cost_usd"] if "cost_usd" in table.columns else pd.Series(np.nan, index=table.index)
    )
    costs = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=math.nan)
    arms: dict[str, dict[str, IntArray]] = {}
    if len(keys):
        grouped: dict[Any, Any] = keys.groupby(["scenario", "variant"]).indices
        for (scenario_id, variant_name), positions in grouped.items():
            arms.setdefault(str(scenario_id), {})[str(variant_name)] = np.asarray(positions)
    checks: list[FloorCheck] = []
    for scenario in sorted(bars):
        found = bars[scenario]
        for variant, rows in sorted(arms.get(scenario, {}).items()):
            where = _Arm(scenario, variant, found.confidence)
            checks += _arm_checks(where, found, outcomes, rows, costs)
    unchecked = tuple(s for s in sorted(bars) if s not in arms)
    return FloorResult(checks=tuple(checks), unchecked=unchecked)
