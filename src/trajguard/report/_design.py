"""The report's section on the design the runs were made under (none for a fixed design).

The section is found by the type of the design's record: a renderer registered below for each
record type.
"""

from __future__ import annotations

from functools import singledispatch

from trajguard.comparison import (
    BudgetOutcome,
    BudgetRecord,
    DesignRecord,
    EscalationRecord,
    SequentialRecord,
)
from trajguard.report._escalation import escalation_section
from trajguard.report._format import md
from trajguard.report._sequential import sequential_section

__all__ = ["design_section"]


def design_section(design: DesignRecord) -> list[str]:
    """The design's markdown, as lines to append (empty for a fixed design)."""
    section = _section(design)
    return [] if section is None else ["", section]


@singledispatch
def _section(record: object) -> str | None:
    """No section: a fixed design (:class:`FixedRecord`) has nothing of its own to show."""
    return None


@_section.register
def _sequential(record: SequentialRecord) -> str:
    return sequential_section(record.outcome)


@_section.register
def _escalation(record: EscalationRecord) -> str:
    stops = {stop.scenario: stop for stop in record.stops}
    return escalation_section(record.plan, stops, unit=record.unit)


@_section.register
def _budget(record: BudgetRecord) -> str:
    return budget_section(record.outcome)


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
