"""The comparison as data: the result document every report is rendered from, and its JSON.

A :class:`ReportDocument` holds everything the reports of one comparison say (the comparison,
the A/B answer, both sides' provenance, per-scenario tool usage, plot data and explanations,
resilience, the
baseline history, the design); the renderers in :mod:`trajguard.report` read nothing else.

The result types are frozen stdlib dataclasses, read and written through pydantic (one strict
``TypeAdapter`` per type, built on first use): :func:`to_data` / :func:`from_data` follow the
fields' type hints, :func:`dumps` / :func:`loads` add JSON text and a ``schema_version``, and
:func:`json_schema` is pydantic's schema of the same documents (draft 2020-12), each field
described by its attribute docstring. Nothing here does I/O; the codec imports neither numpy nor
pandas, and pydantic only when a document is first read or written.
"""

from trajguard.errors import InvalidResultData
from trajguard.results._codec import VERSION_KEY, dumps, from_data, loads, to_data
from trajguard.results._comparison_json import (
    COMPARISON_FILE,
    SCHEMA_FILE,
    document_json,
    document_schema,
    read_document,
)
from trajguard.results._conversations import ConversationFacts, Ending, TurnRate
from trajguard.results._cost import BatchCost
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
from trajguard.results._explanation import (
    CriterionShift,
    Exemplars,
    Explanation,
    PathShare,
    RunRef,
)
from trajguard.results._schema import json_schema
from trajguard.results._skipped import SkippedFile
from trajguard.results._trend_facts import (
    EXIT_ALARM,
    BaselineDrift,
    FlakyFacts,
    Monitoring,
    Promotion,
    ScenarioTrend,
    TrendAlarm,
    TrendFacts,
    TrendPoint,
)
from trajguard.results._trend_nights import TrendNight

__all__ = [
    "COMPARISON_FILE",
    "DOCUMENT_SCHEMA_VERSION",
    "EXIT_ALARM",
    "SCHEMA_FILE",
    "VERSION_KEY",
    "ABOverall",
    "BaselineDrift",
    "BatchCost",
    "ConversationFacts",
    "CriterionShift",
    "Ending",
    "Exemplars",
    "Explanation",
    "FlakyFacts",
    "HistoryFacts",
    "InvalidResultData",
    "Monitoring",
    "PathShare",
    "PlotSample",
    "Promotion",
    "RateCount",
    "ReportDocument",
    "ReportKind",
    "ResilienceGroup",
    "RunRef",
    "Scalar",
    "ScenarioFacts",
    "ScenarioTrend",
    "Side",
    "SideFacts",
    "SkippedFile",
    "ToolUse",
    "TopSequence",
    "TrendAlarm",
    "TrendFacts",
    "TrendNight",
    "TrendPoint",
    "TurnRate",
    "document_json",
    "document_schema",
    "dumps",
    "from_data",
    "json_schema",
    "loads",
    "read_document",
    "to_data",
]
