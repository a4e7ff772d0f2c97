"""The report's section on the design the runs were made under (none for a fixed design)."""

from __future__ import annotations

from trajguard.comparison import BudgetOutcome
from trajguard.report._escalation import escalation_section
from trajguard.report._format import md
from trajguard.report._sequential import sequential_section
from trajguard.results import DesignRecord

__all__ = ["design_section"]


def design_section(design: DesignRecord) -> list[str]:
    """The design's markdown, as lines to append (empty for a fixed design)."""
    if design.sequential is not None:
        return ["", sequential_section(design.sequential)]
    if design.escalation is not None:
        stops = {stop.scenario: stop for stop in design.stops}
        return ["", escalation_section(design.escalation, stops, unit=design.unit)]
    if design.budget is not None:
        return ["", budget_section(design.budget)]
    return []


def budget_section(outcome: BudgetOutcome) -> str:
    """The budgeted design: the budget, and each scenario's runs and why it stopped."""
    levels = ", ".join(f"{t:.2g}" for t in outcome.thresholds)
    lines = [
        "## Budgeted design",
        "",
        f"Budget {outcome.budget:g}, of which the planned runs use {outcome.spent:g}; each "
        f"gate tested at the looks' spending increments {levels} "
        "(docs/explanation/statistics.md, budgeted design).",
        "",
        "| scenario | candidate runs | stopped |",
        "|---|---|---|",
    ]
    for scenario, runs in sorted(outcome.runs.items()):
        stop = outcome.stops.get(scenario, "ran to the last look")
        lines.append(f"| {md(scenario, limit=80)} | {runs} | {md(stop, limit=200)} |")
    return "\n".join(lines)
