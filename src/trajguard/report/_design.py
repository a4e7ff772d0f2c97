"""The report's section on the design the runs were made under (none for a fixed design)."""

from __future__ import annotations

from trajguard.report._escalation import escalation_section
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
    return []
