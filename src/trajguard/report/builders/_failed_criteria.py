"""Which criteria a run failed, by label, from its row (the ``criteria`` column where the run
set stored it; else read from ``failed_criteria``, whose entries are ``<kind>: <reason>``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from trajguard.store import criterion_outcomes

__all__ = ["CRASH_LABEL", "failed_labels", "legacy_label"]

CRASH_LABEL = "no crash"
"""The label of a run that did not end normally (the first ``failed_criteria`` entry)."""

# Kinds whose reason starts with the tool it is about ("get_weather called 2 times, ...").
_TOOL_KINDS = ("tool_called", "tool_not_called", "tool_called_with")


def legacy_label(entry: str) -> str:
    """The label of a ``failed_criteria`` entry: its kind, and for a tool criterion the tool."""
    kind, _, reason = entry.partition(": ")
    if kind in _TOOL_KINDS and reason.split():
        return f"{kind}: {reason.split()[0]}"
    return kind


def _entries(value: Any) -> list[Any] | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return list(value)


def failed_labels(row: Mapping[str, Any]) -> tuple[set[str], bool]:
    """The labels of the criteria ``row`` failed, and whether its criteria were stored (when
    not, what each checked is read from the failure's text and the held ones are unknown)."""
    failed = [str(e) for e in _entries(row.get("failed_criteria")) or ()]
    labels = {CRASH_LABEL} if failed and failed[0].startswith(f"{CRASH_LABEL}:") else set()
    stored = criterion_outcomes(row)
    if stored is None:
        legacy = {legacy_label(e) for e in failed if not e.startswith(f"{CRASH_LABEL}:")}
        return labels | legacy, False
    return labels | {outcome.criterion for outcome in stored if not outcome.held}, True
