"""The most common errors of a run set per scenario and variant, each naming a run that shows it
whole (``trajguard show RUNSET --run ID``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trajguard.outcome import ErrorCount, common_errors

__all__ = ["error_summaries"]


def error_summaries(
    rows: Iterable[Mapping[str, Any]], *, top: int = 3
) -> dict[tuple[str, str], tuple[ErrorCount, ...]]:
    """The ``top`` most common errors of each ``(scenario, variant)`` (arms without any left
    out), each with the id and whole message of its first run."""
    grouped: dict[tuple[str, str], list[tuple[object, object, object]]] = {}
    for row in rows:
        kind = row.get("error_type")
        if kind is None or (isinstance(kind, float) and kind != kind):
            continue
        key = (str(row["scenario"]), str(row.get("variant", "base")))
        grouped.setdefault(key, []).append((kind, row.get("error_message"), row.get("run_id")))
    return {
        key: common_errors([f[:2] for f in found], top=top, run_ids=[f[2] for f in found])
        for key, found in sorted(grouped.items())
    }
