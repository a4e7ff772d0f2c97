"""A command's budget across its looks, the baseline's runs as a run's first estimate, and
``trajguard plan``'s estimate of a night's minutes and cost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from trajguard.comparison import BudgetedDesign, CompareConfig
from trajguard.errors import UsageError
from trajguard.runner import BatchOptions, BatchResult, RunEstimate, estimates_from_rows
from trajguard.store import load_history
from trajguard.suite import Suite, set_runs

__all__ = [
    "BudgetEnded",
    "NightEstimate",
    "budgeted_design",
    "estimate_night",
    "spent_after",
    "with_baseline_estimate",
]


class BudgetEnded(Exception):
    """The budget ended a look: the job runs no further look."""


def with_baseline_estimate(options: BatchOptions, baseline: Path) -> BatchOptions:
    """``options`` whose budget estimates a run, until the batch has finished one, from the
    newest batch of ``baseline`` (unchanged without a budget)."""
    if not options.budget.limited:
        return options
    newest = load_history(baseline)[0].runs
    columns = [c for c in ("scenario", "duration_s", "cost_usd") if c in newest.columns]
    rows = [{str(k): v for k, v in row.items()} for row in newest[columns].to_dict("records")]
    prior = estimates_from_rows(rows)
    return replace(options, budget=replace(options.budget, prior=prior))


def spent_after(options: BatchOptions, result: BatchResult) -> BatchOptions:
    """The options of the next look: what this look spent counts against the budget.

    Raises:
        BudgetEnded: the budget ended this look.
    """
    if result.budget is not None:
        raise BudgetEnded
    budget = options.budget
    if not budget.limited:
        return options
    return replace(
        options,
        budget=replace(
            budget,
            spent_usd=budget.spent_usd + (result.spent_usd or 0.0),
            spent_s=budget.spent_s + result.elapsed_s,
        ),
    )


@dataclass(frozen=True, kw_only=True)
class NightEstimate:
    """What a night of ``runs`` runs per scenario will cost, from a baseline's newest batch.

    Attributes:
        runs: runs per scenario planned.
        scenarios: scenario → its baseline runs' mean (seconds, dollars or ``None``).
        run_minutes: the runs' summed duration in minutes (one run in flight at a time).
        paced_minutes: the night at the baseline batch's own pace (its wall time per run, at
            the concurrency it ran with, start-up included); ``None`` when its manifest does
            not say when it started and finished.
        cost_usd: the night's cost; ``None`` when some baseline run records none.
        unknown_cost: baseline runs that record no cost.
    """

    runs: int
    scenarios: Mapping[str, RunEstimate]
    run_minutes: float
    paced_minutes: float | None
    cost_usd: float | None
    unknown_cost: int

    def lines(self) -> list[str]:
        """The estimate in words, one line each."""
        total = self.runs * len(self.scenarios)
        paced = (
            ""
            if self.paced_minutes is None
            else f"; at the baseline batch's pace, about {self.paced_minutes:.1f} min"
        )
        cost = (
            f"about ${self.cost_usd:.2f}"
            if self.cost_usd is not None
            else f"unknown ({self.unknown_cost} baseline runs record no cost: --max-cost "
            "cannot be kept on runs like these)"
        )
        return [
            f"a night of {self.runs} runs x {len(self.scenarios)} scenarios ({total} runs): "
            f"{self.run_minutes:.1f} min of runs one at a time{paced}",
            f"its cost: {cost}",
        ]


def estimate_night(baseline: Path, runs: int) -> NightEstimate:
    """A night of ``runs`` runs per scenario, estimated from ``baseline``'s newest batch."""
    newest = load_history(baseline)[0]
    frame = newest.runs
    rows = [
        {str(k): v for k, v in row.items()}
        for row in frame[[c for c in _COLUMNS if c in frame.columns]].to_dict("records")
    ]
    per = {k: v for k, v in estimates_from_rows(rows).items() if k != "*"}
    seconds = sum(runs * (e.seconds or 0.0) for e in per.values())
    costs = [e.cost_usd for e in per.values()]
    unknown = sum(1 for r in rows if not _known(r.get("cost_usd")))
    return NightEstimate(
        runs=runs,
        scenarios=per,
        run_minutes=seconds / 60,
        paced_minutes=_pace(newest.manifest, len(rows), runs * len(per)),
        cost_usd=None if unknown else sum(runs * (c or 0.0) for c in costs),
        unknown_cost=unknown,
    )


_COLUMNS = ("scenario", "duration_s", "cost_usd")


def _known(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _pace(manifest: Mapping[str, Any], made: int, planned: int) -> float | None:
    try:
        start = datetime.fromisoformat(str(manifest["started_at"]))
        end = datetime.fromisoformat(str(manifest["finished_at"]))
    except (KeyError, ValueError):
        return None
    wall = (end - start).total_seconds()
    if made == 0 or wall <= 0:
        return None
    return wall / made * planned / 60


def budgeted_design(suite: Suite, options: BatchOptions, config: CompareConfig) -> BudgetedDesign:
    """The budgeted design of a night: ``--max-cost`` (else ``--max-minutes``) as its budget,
    a run's cost (or its wall seconds over the concurrency) from the baseline's runs.

    Raises:
        UsageError: no budget, or the baseline's runs do not say what a run costs.
    """
    budget = options.budget
    if not budget.limited:
        raise UsageError(
            "--budgeted spends a budget, and none was given",
            hint="add --max-minutes M or --max-cost USD",
        )
    chosen = list(options.scenarios) or [s.id for s in suite.scenarios]
    concurrency = options.concurrency or suite.defaults.concurrency
    cost: dict[str, float] = {}
    for scenario in chosen:
        estimate = budget.prior.get(scenario) or budget.prior.get("*") or RunEstimate()
        value = (
            estimate.cost_usd
            if budget.max_cost_usd is not None
            else (None if estimate.seconds is None else estimate.seconds / concurrency)
        )
        if value is None or value <= 0:
            what = "cost" if budget.max_cost_usd is not None else "duration"
            raise UsageError(
                f"scenario {scenario}: the baseline's runs record no {what}, so the budgeted "
                "design cannot tell how many runs the budget buys",
                hint="use --max-minutes (every run records its duration), or the fixed design",
            )
        cost[scenario] = value
    total = (
        budget.max_cost_usd if budget.max_cost_usd is not None else 60 * (budget.max_minutes or 0)
    )
    own = set_runs(suite, runs=options.runs, scenarios=chosen)
    return BudgetedDesign(budget=total, cost=cost, own_runs=own, config=config)
