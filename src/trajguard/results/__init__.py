"""The comparison as data: the result document every report is rendered from.

A :class:`ReportDocument` holds everything the reports of one comparison say (the comparison,
the A/B answer, both sides' provenance, per-scenario tool usage and plot data, resilience, the
baseline history); the renderers in :mod:`trajguard.report` read nothing else.
"""

from trajguard.results._document import (
    DOCUMENT_SCHEMA_VERSION,
    ABOverall,
    HistoryFacts,
    PlotSample,
    RateCount,
    ReportDocument,
    ReportKind,
    ResilienceGroup,
    Scalar,
    ScenarioFacts,
    Side,
    SideFacts,
    ToolUse,
    TopSequence,
)

__all__ = [
    "DOCUMENT_SCHEMA_VERSION",
    "ABOverall",
    "HistoryFacts",
    "PlotSample",
    "RateCount",
    "ReportDocument",
    "ReportKind",
    "ResilienceGroup",
    "Scalar",
    "ScenarioFacts",
    "Side",
    "SideFacts",
    "ToolUse",
    "TopSequence",
]
