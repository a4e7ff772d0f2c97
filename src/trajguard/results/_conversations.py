"""What the report says of a conversational scenario beyond its metrics (plain data): how each
scripted turn's criteria did on each side, and where the conversations ended (their
``stop_reason``s), compared between the sides. pass^k lives on the scenario's comparison."""

from __future__ import annotations

from dataclasses import dataclass

from trajguard.results._explanation import RateCount

__all__ = ["ConversationFacts", "Ending", "TurnRate"]


@dataclass(frozen=True, kw_only=True)
class TurnRate:
    """How often one scripted turn's criterion held on each side."""

    turn: int
    """the turn's number (1 is the first user message)."""
    criterion: str
    """the criterion's label without its turn (``tool_not_called: issue_refund``)."""
    baseline: RateCount | None = None
    """baseline runs where it held, of those that stored it (``None``: none did)."""
    candidate: RateCount | None = None
    """candidate runs where it held."""
    p_value: float | None = None
    """two-sided Fisher exact p-value of the two rates (``None``: a side has none)."""


@dataclass(frozen=True, kw_only=True)
class Ending:
    """How many conversations of each side ended for one reason."""

    reason: str
    baseline: int
    candidate: int


@dataclass(frozen=True, kw_only=True)
class ConversationFacts:
    """One conversational scenario: its turns' pass rates and where its conversations ended."""

    scenario: str
    """the scenario's id."""
    turns: tuple[TurnRate, ...] = ()
    """per scripted turn and criterion, in turn order."""
    endings: tuple[Ending, ...] = ()
    """conversations per stop reason, most common (both sides) first."""
    endings_tvd: float = 0.0
    """total-variation distance between the sides' stop-reason mixes (0: the same mix, 1: disjoint).
    """
    endings_p_value: float | None = None
    """the permutation test of that distance (``None``: a side has no conversation)."""
