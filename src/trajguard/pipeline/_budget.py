"""A command's budget across its looks, and the baseline's runs as a run's first estimate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from trajguard.run import BatchOptions, BatchResult, estimates_from_rows
from trajguard.store import load_history

__all__ = ["BudgetEnded", "spent_after", "with_baseline_estimate"]


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
