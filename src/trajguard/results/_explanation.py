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
    """How often one pass criterion failed on each side.

    Attributes:
        criterion: the criterion's label (``tool_not_called: get_weather``; in run sets written
            before criteria were stored, read from the failure's text).
        baseline: baseline runs it failed, of the judged ones.
        candidate: candidate runs it failed.
        moved: the candidate's failure rate minus the baseline's (the sort key, by size).
    """

    criterion: str
    baseline: RateCount
    candidate: RateCount
    moved: float


@dataclass(frozen=True, kw_only=True)
class RunRef:
    """One run named by the report, and the command that opens it.

    Attributes:
        run_id: the run's id within its batch (``scenario/variant/index``).
        side: the side it is from.
        batch_id: its batch (a pooled baseline holds several).
        run_index: its index in its arm.
        passed: whether it passed (``None``: not judged).
        sequence: the tools it called, in order.
        command: the command that shows it (``trajguard show RUNSET --run RUN``).
    """

    run_id: str
    side: SideName
    batch_id: str
    run_index: int
    passed: bool | None
    sequence: tuple[str, ...]
    command: str


@dataclass(frozen=True, kw_only=True)
class Exemplars:
    """The runs that show the change: the most typical run of the outcome that grew on the
    candidate, beside the most typical run of the other outcome on the baseline.

    Attributes:
        rule: how they were chosen, in words.
        candidate: the candidate's run (``None``: the side has no run to show).
        baseline: the baseline's run.
        shared_path: both runs called the same tools in the same order: the change is not in
            the tools (no contrast is drawn).
        diff: their diff, shape deltas first, then the steps aligned (baseline → candidate).
    """

    rule: str
    candidate: RunRef | None = None
    baseline: RunRef | None = None
    shared_path: bool = False
    diff: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PathShare:
    """One of a side's most common tool sequences, and how its runs did.

    Attributes:
        side: the side.
        sequence: the tools called, in order.
        runs: the side's behavioural runs that called exactly this sequence.
        passed: of those, the runs that passed.
        judged: of those, the runs judged.
        share: ``runs`` over the side's behavioural runs.
    """

    side: SideName
    sequence: tuple[str, ...]
    runs: int
    passed: int
    judged: int
    share: float


@dataclass(frozen=True, kw_only=True)
class Explanation:
    """What broke in one scenario, what it looks like, and where the runs went.

    Attributes:
        criteria: each criterion that failed on either side, by how much its failure rate
            moved (largest first).
        criteria_known: every run of both sides stored its criteria (run sets written before
            did not: only failed criteria are known, and what each checked is read from the
            failure's text).
        exemplars: the runs that show the change (``None``: a side has no behavioural run).
        paths: each side's most common tool sequences (baseline first), most common first.
    """

    criteria: tuple[CriterionShift, ...] = ()
    criteria_known: bool = True
    exemplars: Exemplars | None = None
    paths: tuple[PathShare, ...] = ()
