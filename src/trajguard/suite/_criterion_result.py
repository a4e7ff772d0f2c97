"""What one criterion said about one run (every kind of criterion returns one)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["CriterionResult"]


class CriterionResult(BaseModel):
    """Whether one criterion held, and why not."""

    model_config = ConfigDict(frozen=True)

    criterion: str
    """The criterion's kind (``tool_called``): ``failed_criteria`` entries start with it."""
    passed: bool
    reason: str = ""
    label: str = ""
    """The criterion's :attr:`~_Criterion.label` (``tool_called: get_weather``), which tells
    two criteria of one kind apart."""
    error: bool = False
    """The criterion could not judge the run (a predicate raised, or did not return in time):
    a criterion error, which fails the run with its reason."""
    undecided: bool = False
    """The criterion could not be decided (its judge failed): not judged, the reason says why;
    the run is a harness error unless another criterion failed it."""
    judge_record: dict[str, Any] | None = None
    """A judge criterion's calls (each sample's verdict, reason and tokens)."""
