"""Designs: how many runs a comparison makes, look by look, and who decides significance.

A design is an object with one protocol (:class:`Design`): its first look, what it decides after
each look (which scenarios go on, with how many runs), the settings of the final comparison, how
the final comparison's gating verdicts follow from its decisions, and its record for the
document. :func:`drive` is the one loop that runs any design; the pipeline hands it a way to run
a look and to read both sides' rows so far. Each design is one module holding its rule, its
object and its record types (the sequential design a small package); these exist:

* :class:`FixedDesign`: one look at N runs; the fixed comparison decides (the default);
* :class:`trajguard.comparison.SequentialDesign`: up to three looks, stopping early per scenario
  (docs/explanation/statistics.md §4);
* :class:`trajguard.comparison.EscalationDesign`: a first look at N, then more runs for the
  scenarios that lean harmful;
* :class:`trajguard.comparison.BudgetedDesign`: a budget spent in looks where a verdict is open.

A scenario's N is the one rule's (:func:`trajguard.suite.runs_per_scenario`: ``--runs``, else
its own ``runs:``, else the suite default); each design is given these and a look names each
scenario's runs.

Whatever decided significance, the words come from the one ladder
(:func:`trajguard.comparison._verdicts.verdict_of`) and the exit flag from
:func:`trajguard.comparison._results.settle`: :func:`decided_by_design` re-derives each gating
metric's verdict from its evidence with the design's significance in place of the fixed test's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, Protocol

from trajguard.comparison._config import CompareConfig
from trajguard.comparison._results import Comparison, MetricResult, SuiteTest, settle
from trajguard.comparison._verdicts import verdict_of

if TYPE_CHECKING:
    import pandas as pd

    from trajguard.comparison._design_record import DesignRecord

__all__ = [
    "Design",
    "FixedDesign",
    "FixedRecord",
    "Look",
    "RunLook",
    "Sides",
    "decided_by_design",
    "drive",
]


@dataclass(frozen=True, kw_only=True)
class Look:
    """One look to run.

    Attributes:
        index: the look's index (0-based).
        runs: scenario → its candidate runs once the look has run, for the scenarios that get
            runs (``None``: the batch's own scenarios, each at its runs under the one rule,
            :func:`trajguard.suite.runs_per_scenario`).
        label: how the look is named on the progress display (``""`` for a single look).
    """

    index: int
    runs: Mapping[str, int] | None = None
    label: str = ""


# Rows of the baseline side and of the candidate side of the batch so far.
Sides = Callable[[], tuple["pd.DataFrame", "pd.DataFrame"]]
RunLook = Callable[[Look], None]


class Design(Protocol):
    """What every design does (see the module docstring)."""

    @property
    def name(self) -> str:
        """``fixed``, ``sequential``, ``escalation`` or ``budget``."""
        ...

    def first(self) -> Look:
        """The first look."""
        ...

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """Decide after ``look`` from both sides' rows so far: the next look, or ``None``."""
        ...

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """The settings of the comparison made on all runs at the end."""
        ...

    def settle(self, comparison: Comparison) -> Comparison:
        """The final comparison with its gating verdicts decided by this design."""
        ...

    def record(self, *, unit: str) -> DesignRecord:
        """What the document keeps of this design, its run counts counted in ``unit``."""
        ...


def drive(design: Design, *, run_look: RunLook, sides: Sides) -> None:
    """Run a design to its end: each look is run, then the design decides the next."""
    look: Look | None = design.first()
    while look is not None:
        run_look(look)
        baseline, candidate = sides()
        look = design.after(look, baseline, candidate)


@dataclass(frozen=True, kw_only=True)
class FixedDesign:
    """One look at the batch's N; the fixed comparison decides."""

    @property
    def name(self) -> str:
        """``fixed``."""
        return "fixed"

    def first(self) -> Look:
        """The batch as its options say."""
        return Look(index=0)

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """No second look."""
        return None

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """The settings as given."""
        return config

    def settle(self, comparison: Comparison) -> Comparison:
        """The comparison as it is."""
        return comparison

    def record(self, *, unit: str) -> FixedRecord:
        """Nothing of its own: the record says ``fixed``."""
        return FixedRecord(unit=unit)


@dataclass(frozen=True, kw_only=True)
class FixedRecord:
    """The document's record of a fixed design: one look, the comparison decided."""

    name: Literal["fixed"] = "fixed"
    """the design's tag."""
    unit: str = "runs"
    """what a run count counts (``runs``, or ``runs per variant`` in an A/B)."""


def _overturned(m: MetricResult, now: MetricResult, design: str, reason: str) -> str:
    if now.evidence.significant:
        return f"{now.verdict.value} under the {design} design ({reason})"
    return (
        f"the fixed-sample test on all runs would call this {m.verdict.value}, but the "
        f"{design} design, which decides here, did not ({reason})"
    )


def decided_by_design(
    comparison: Comparison,
    *,
    design: str,
    decided: Mapping[str, Sequence[str]],
    reasons: Mapping[str, str],
    note_every_metric: bool = False,
    suite: tuple[SuiteTest, ...] | None = None,
) -> Comparison:
    """The comparison with each gating metric significant exactly when the design decided so.

    Args:
        comparison: the comparison on all runs.
        design: the design's name, for the notes.
        decided: scenario → the gating metrics the design found significant (beyond the band).
        reasons: scenario → where and why it stopped, in words.
        note_every_metric: every gating metric notes its scenario's reason (not only the ones
            whose verdict the design changed).
        suite: the suite-level tests the design keeps (``None``: the comparison's; ``()``: none).
    """
    scenarios = []
    for s in comparison.scenarios:
        chosen = set(decided.get(s.scenario, ()))
        reason = reasons.get(s.scenario, "not decided")
        metrics = []
        for m in s.metrics:
            if m.kind != "gating":
                metrics.append(m)
                continue
            significant = m.metric in chosen
            evidence = replace(
                m.evidence,
                significant=significant,
                beyond_band=m.evidence.beyond_band or significant,
            )
            now = replace(m, evidence=evidence, verdict=verdict_of(evidence))
            if now.verdict is not m.verdict:
                now = replace(now, notes=(*m.notes, _overturned(m, now, design, reason)))
            elif note_every_metric:
                now = replace(now, notes=(*m.notes, f"{design}: {reason}"))
            metrics.append(now)
        scenarios.append(replace(s, metrics=tuple(metrics)))
    family = comparison.family
    if family is not None and suite is not None:
        family = replace(family, suite=suite)
    return settle(replace(comparison, scenarios=tuple(scenarios), family=family))
