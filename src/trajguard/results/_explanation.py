"""How a changed scenario changed, run by run: which criteria broke, which runs show it, and
where each side's runs went. Part of the report document (:class:`ScenarioFacts`), so every
renderer names the same criteria and the same runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CriterionShift", "Exemplars", "Explanation", "PathShare", "RateCount", "RunRef"]

SideName = Literal["baseline", "candidate"]


@dataclass(frozen=True, kw_only=True)
class RateCount:
    """A share of runs with its Wilson interval (at the comparison's confidence level)."""

    hits: int
    n: int
    low: float
    high: float


@dataclass(frozen=True, kw_only=True)
class CriterionShift:
    """How often one pass criterion failed on each side."""

    criterion: str
    """the criterion's label (``tool_not_called: get_weather``; in run sets written before criteria
    were stored, read from the failure's text)."""
    baseline: RateCount
    """baseline runs it failed, of the judged ones."""
    candidate: RateCount
    """candidate runs it failed."""
    moved: float
    """the candidate's failure rate minus the baseline's (the sort key, by size)."""


@dataclass(frozen=True, kw_only=True)
class RunRef:
    """One run named by the report, and the command that opens it."""

    run_id: str
    """the run's id within its batch (``scenario/variant/index``)."""
    side: SideName
    """the side it is from."""
    batch_id: str
    """its batch (a pooled baseline holds several)."""
    run_index: int
    """its index in its arm."""
    passed: bool | None
    """whether it passed (``None``: not judged)."""
    sequence: tuple[str, ...]
    """the tools it called, in order."""
    command: str
    """the command that shows it (``trajguard show RUNSET --run RUN``)."""


@dataclass(frozen=True, kw_only=True)
class Exemplars:
    """The runs that show the change: the most typical run of the outcome that grew on the
    candidate, beside the most typical run of the other outcome on the baseline.
    """

    rule: str
    """how they were chosen, in words."""
    candidate: RunRef | None = None
    """the candidate's run (``None``: the side has no run to show)."""
    baseline: RunRef | None = None
    """the baseline's run."""
    shared_path: bool = False
    """both runs called the same tools in the same order: the change is not in the tools (no
    contrast is drawn)."""
    diff: tuple[str, ...] = ()
    """their diff, shape deltas first, then the steps aligned (baseline → candidate)."""


@dataclass(frozen=True, kw_only=True)
class PathShare:
    """One of a side's most common tool sequences, and how its runs did."""

    side: SideName
    """the side."""
    sequence: tuple[str, ...]
    """the tools called, in order."""
    runs: int
    """the side's behavioural runs that called exactly this sequence."""
    passed: int
    """of those, the runs that passed."""
    judged: int
    """of those, the runs judged."""
    share: float
    """``runs`` over the side's behavioural runs."""


@dataclass(frozen=True, kw_only=True)
class Explanation:
    """What broke in one scenario, what it looks like, and where the runs went."""

    criteria: tuple[CriterionShift, ...] = ()
    """each criterion that failed on either side, by how much its failure rate moved (largest
    first)."""
    criteria_known: bool = True
    """every run of both sides stored its criteria (run sets written before did not: only failed
    criteria are known, and what each checked is read from the failure's text)."""
    exemplars: Exemplars | None = None
    """the runs that show the change (``None``: a side has no behavioural run)."""
    paths: tuple[PathShare, ...] = ()
    """each side's most common tool sequences (baseline first), most common first."""
