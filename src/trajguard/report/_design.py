"""The report's section on the design the runs were made under (none for a fixed design).

The section is found by the type of the design's own record (the field of the design record its
name tags): a renderer registered below for each record type.
"""

from __future__ import annotations

from functools import singledispatch

from trajguard.comparison import BudgetOutcome, EscalationPlan, SequentialOutcome
from trajguard.report._escalation import escalation_section
from trajguard.report._format import md
from trajguard.report._sequential import sequential_section
from trajguard.results import DesignRecord

__all__ = ["design_section"]


def design_section(design: DesignRecord) -> list[str]:
    """The design's markdown, as lines to append (empty for a fixed design)."""
    section = _section(getattr(design, design.name, None), design)
    return [] if section is None else ["", section]


@singledispatch
def _section(own: object, design: DesignRecord) -> str | None:
    """No section: a fixed design has no record of its own."""
    return None


@_section.register
def _sequential(own: SequentialOutcome, design: DesignRecord) -> str:
    return sequential_section(own)


@_section.register
def _escalation(own: EscalationPlan, design: DesignRecord) -> str:
    stops = {stop.scenario: stop for stop in design.stops}
    return escalation_section(own, stops, unit=design.unit)


@_section.register
def _budget(own: BudgetOutcome, design: DesignRecord) -> str:
    return budget_section(own)


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
