"""Each pass criterion of a run as the row stores it (the ``criteria`` column, schema 2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CriterionOutcome", "criterion_outcomes"]


@dataclass(frozen=True, kw_only=True)
class CriterionOutcome:
    """Whether one pass criterion held on one run, and why not."""

    criterion: str
    """The criterion's label: its kind and main argument (``tool_not_called: get_weather``)."""
    held: bool
    reason: str
    """What was seen instead (``get_weather called 2 times, expected none``); "" when it held."""
    error: bool
    """The criterion could not judge the run (a predicate raised or did not return in time)."""

    @property
    def kind(self) -> str:
        """The criterion's kind (``tool_not_called``), the label's first word."""
        return self.criterion.split(":", 1)[0]


def criterion_outcomes(row: Mapping[str, Any]) -> tuple[CriterionOutcome, ...] | None:
    """The criteria one run row records, in the suite's order.

    Args:
        row: a run row (a dict, a pandas row or anything with ``row.get("criteria")``).

    Returns:
        One outcome per pass criterion, or ``None`` when they are unknown: a file of store
        schema 1 (written before the column), or a run that was not judged (a harness error).
    """
    entries = row.get("criteria")
    if entries is None or _is_missing(entries):
        return None
    return tuple(_outcome(entry) for entry in _iterable(entries))


def _is_missing(value: Any) -> bool:
    return isinstance(value, float) and value != value  # NaN: pandas' null in an object column


def _iterable(entries: Any) -> Iterable[Any]:
    listed: Iterable[Any] = entries.tolist() if hasattr(entries, "tolist") else entries
    return listed


def _outcome(entry: Mapping[str, Any]) -> CriterionOutcome:
    return CriterionOutcome(
        criterion=str(entry.get("criterion") or ""),
        held=bool(entry.get("held")),
        reason=str(entry.get("reason") or ""),
        error=bool(entry.get("error")),
    )
