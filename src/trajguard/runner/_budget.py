"""Budgets: ``--max-cost`` and ``--max-minutes``, kept run by run.

Before a run starts, the batch asks its :class:`BudgetGuard` whether the run would pass the
budget: what is spent (the runs finished, the runs in flight at their estimate) plus the next
run's estimate. A run's estimate is the mean of its scenario's finished runs in this run set
(any earlier look or invocation included), else the mean over every finished run, else the
baseline's (:func:`estimates_from_rows` of the baseline's rows, when the pipeline has one).
With no estimate at all, one run is in flight at a time until the first one finishes: that run
is how the batch learns what a run costs (so without a baseline a budget smaller than one run
is passed by that one run; with one, such a budget is refused before anything is written).

A run in flight is finished, never killed. A run whose cost is unknown (``cost_usd`` null)
under ``--max-cost`` stops the batch: the budget cannot be kept, and the report says so.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard import store
from trajguard.errors import UsageError

if TYPE_CHECKING:
    from trajguard.runner._options import BatchOptions
    from trajguard.runner._plan import Plan

__all__ = [
    "Budget",
    "BudgetGuard",
    "BudgetStop",
    "RunEstimate",
    "budget_ended",
    "budget_guard",
    "estimates_from_rows",
    "spent_usd",
]

clock: Callable[[], float] = time.monotonic
"""The clock ``--max-minutes`` reads (a module attribute: tests give a clock of their own)."""


@dataclass(frozen=True, kw_only=True)
class RunEstimate:
    """What one run of a scenario costs: wall seconds and dollars (``None``: unknown)."""

    seconds: float | None = None
    cost_usd: float | None = None


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None and math.isfinite(v)]
    return sum(known) / len(known) if known else None


def estimates_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, RunEstimate]:
    """Scenario → the mean duration and cost of its runs (``"*"``: over every run). A cost is
    known only when every run of the scenario records one."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by.setdefault(str(row.get("scenario")), []).append(row)
        by.setdefault("*", []).append(row)
    estimates = {}
    for scenario, runs in by.items():
        costs = [_number(r.get("cost_usd")) for r in runs]
        estimates[scenario] = RunEstimate(
            seconds=_mean(_number(r.get("duration_s")) for r in runs),
            cost_usd=None if any(c is None for c in costs) else _mean(costs),
        )
    return estimates


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True, kw_only=True)
class Budget:
    """The limits of ``--max-cost USD`` and ``--max-minutes`` (``None``: no limit).

    Attributes:
        max_cost_usd: dollars this command may spend on runs (summed ``cost_usd``).
        max_minutes: wall minutes from the batch's start (its start-up included; a command's
            later looks count from its first look's start).
        prior: scenario (``"*"``: any) → a run's estimate before this batch finished one
            (the baseline's runs).
        spent_usd: already spent by this command's earlier looks.
        spent_s: wall seconds already used by this command's earlier looks.

    Raises:
        UsageError: a limit that is not a positive number.
    """

    max_cost_usd: float | None = None
    max_minutes: float | None = None
    prior: Mapping[str, RunEstimate] = field(default_factory=dict)
    spent_usd: float = 0.0
    spent_s: float = 0.0

    def __post_init__(self) -> None:
        for flag, value in (("--max-cost", self.max_cost_usd), ("--max-minutes", self.max_minutes)):
            if value is not None and not (math.isfinite(value) and value > 0):
                raise UsageError(f"{flag} must be a number above 0, got {value}")

    @property
    def limited(self) -> bool:
        """A limit is set."""
        return self.max_cost_usd is not None or self.max_minutes is not None

    def describe(self) -> str:
        """The limits in words: ``--max-cost $2.00, --max-minutes 10``."""
        parts = []
        if self.max_cost_usd is not None:
            parts.append(f"--max-cost ${self.max_cost_usd:.2f}")
        if self.max_minutes is not None:
            parts.append(f"--max-minutes {self.max_minutes:g}")
        return ", ".join(parts)


@dataclass(frozen=True, kw_only=True)
class BudgetStop:
    """Why the budget ended a batch, and what it did not run.

    Attributes:
        why: the sentence the report shows.
        not_run: scenario → planned runs not made.
        spent_usd: dollars the runs of this command cost (``None``: some cost unknown).
        elapsed_s: wall seconds this command's runs took.
    """

    why: str
    not_run: Mapping[str, int]
    spent_usd: float | None
    elapsed_s: float


WAIT = "wait"
"""What :meth:`BudgetGuard.check` says when only the first run's end can tell."""


class BudgetGuard:
    """A batch's budget, kept run by run (see the module docstring)."""

    def __init__(self, budget: Budget, done_rows: Iterable[Mapping[str, Any]]) -> None:
        self.budget = budget
        self.started = clock()
        self._rows = list(done_rows)  # this run set's finished runs, earlier invocations too
        self._estimates = estimates_from_rows(self._rows)
        self.spent_usd: float | None = budget.spent_usd
        self.in_flight: dict[str, str] = {}  # run id → scenario
        self.stop: str | None = None

    def elapsed_s(self) -> float:
        """Wall seconds of this command's runs so far (earlier looks included)."""
        return self.budget.spent_s + clock() - self.started

    def _estimate(self, scenario: str) -> RunEstimate:
        for source in (self._estimates, self.budget.prior):
            for key in (scenario, "*"):
                if key in source:
                    found = source[key]
                    if found.seconds is not None or found.cost_usd is not None:
                        return found
        return RunEstimate()

    def check(self, scenario: str) -> str | None:
        """``None``: the next run of ``scenario`` may start; :data:`WAIT`: wait for a run in
        flight to finish first; else why the batch stops here."""
        if self.stop is not None:
            return self.stop
        budget = self.budget
        guess = self._estimate(scenario)
        if budget.max_cost_usd is not None:
            if self.spent_usd is None:
                self.stop = self._unknown_cost()
                return self.stop
            if guess.cost_usd is None:
                return WAIT if self.in_flight else None
            flying = sum(self._estimate(s).cost_usd or 0.0 for s in self.in_flight.values())
            if self.spent_usd + flying + guess.cost_usd > budget.max_cost_usd:
                self.stop = (
                    f"{budget.describe()}: the next run (about ${guess.cost_usd:.4f}) would pass "
                    f"the budget (${self.spent_usd:.4f} spent)"
                )
                return self.stop
        if budget.max_minutes is not None:
            if guess.seconds is None:
                return WAIT if self.in_flight else None
            elapsed = self.elapsed_s()
            if elapsed + guess.seconds > 60 * budget.max_minutes:
                self.stop = (
                    f"{budget.describe()}: the next run (about {guess.seconds:.0f} s) would pass "
                    f"the budget ({elapsed / 60:.1f} min used)"
                )
                return self.stop
        return None

    def _unknown_cost(self) -> str:
        return (
            f"{self.budget.describe()}: a run's cost is unknown (its model calls record no "
            "cost), so the budget cannot be kept; the batch stopped after it"
        )

    def started_run(self, run_id: str, scenario: str) -> None:
        """A run of ``scenario`` is in flight."""
        self.in_flight[run_id] = scenario

    def finished(self, run_id: str, row: Mapping[str, Any]) -> None:
        """A run finished: its row (with ``duration_s`` and ``cost_usd``) counts."""
        self.in_flight.pop(run_id, None)
        self._rows.append(row)
        self._estimates = estimates_from_rows(self._rows)
        cost = _number(row.get("cost_usd"))
        if self.spent_usd is not None:
            self.spent_usd = None if cost is None else self.spent_usd + cost

    def ended(self, not_run: Mapping[str, int]) -> BudgetStop | None:
        """What the budget did to the batch (``None``: it did not end it)."""
        if self.stop is None or not not_run:
            return None
        return BudgetStop(
            why=self.stop,
            not_run=dict(not_run),
            spent_usd=self.spent_usd,
            elapsed_s=self.elapsed_s(),
        )

    def too_small(self, scenarios: Iterable[str]) -> str | None:
        """Why not one run fits the budget, by the estimates known before the batch (``None``:
        one does, or nothing is known yet)."""
        for scenario in scenarios:
            if self.check(scenario) in (None, WAIT):
                self.stop = None
                return None
        reason, self.stop = self.stop, None
        return reason


def budget_guard(
    options: BatchOptions, runset: Path, resume: bool, todo: Plan
) -> BudgetGuard | None:
    """The batch's budget guard (``None``: no budget), checked before anything is written.

    Raises:
        UsageError: by the estimates known before the batch, not one run fits the budget.
    """
    if not options.budget.limited or not todo:
        return None
    columns = ["scenario", "duration_s", "cost_usd"]
    done = store.read_table(runset, columns=columns).to_pylist() if resume else []
    guard = BudgetGuard(options.budget, done)
    too_small = guard.too_small(dict.fromkeys(spec.scenario for spec, _ in todo))
    if too_small is not None:
        raise UsageError(
            f"the budget is smaller than one run: {too_small}; nothing was run",
            hint="raise the budget (`trajguard plan BASELINE` estimates a night's cost and "
            "minutes)",
        )
    return guard


def budget_ended(
    guard: BudgetGuard | None, todo: Plan, rows: list[Mapping[str, Any]]
) -> BudgetStop | None:
    """What the budget did to the batch: the planned runs it left unmade, per scenario."""
    if guard is None:
        return None
    made = {str(row["run_id"]) for row in rows}
    not_run = Counter(spec.scenario for spec, _ in todo if spec.run_id not in made)
    return guard.ended(dict(not_run))


def spent_usd(rows: list[Mapping[str, Any]]) -> float | None:
    """What the runs cost (``None``: some run's cost is unknown)."""
    costs = [row.get("cost_usd") for row in rows]
    if any(not isinstance(c, int | float) or c != c for c in costs):
        return None
    return float(sum(costs))  # type: ignore[arg-type]
