"""Escalation (``--max-runs``): more candidate runs for the scenarios that lean harmful.

The design (docs/explanation/statistics.md §4), fixed before any run:

* **First look** at the night's N runs per scenario: the whole report (every scenario's
  combined test, the suite-level tests) at ``alpha_first = alpha * (1 - share)``.
* A scenario that did not regress there but **leans harmful** (its combined test's p-value at
  most ``lean``) gets more candidate runs in up to ``later`` further looks, up to ``max_runs``;
  quiet scenarios stop.
* At each later look the scenario's combined test on all its runs so far is compared with that
  look's threshold: linear spending of ``alpha * share`` over the later looks (each look gets
  the share of the budget its runs add; O'Brien-Fleming spending would leave the first later
  look almost nothing, and a night escalates once), divided by the number of scenarios (any of
  them could have been escalated). A scenario stops
  regressed when it crosses with a gating metric beyond its band (as in a fixed comparison); it
  stops when it no longer leans harmful, or at the budget.

Family-wise error: at most ``alpha_first`` at the first look plus, by the union bound over
scenarios and looks, ``alpha * share`` for the rest, whatever the data-dependent choice of which
scenarios go on (each later test is valid on its own; choosing which to run only removes
tests).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from trajguard._text import counted
from trajguard.comparison._results import Comparison, ScenarioResult
from trajguard.comparison._verdicts import Verdict
from trajguard.errors import TrajguardError

__all__ = [
    "EscalationLook",
    "EscalationPlan",
    "EscalationStop",
    "escalation_plan",
    "later_look",
    "leaning",
]


@dataclass(frozen=True, kw_only=True)
class EscalationPlan:
    """The escalation plan."""

    first: int
    """candidate runs per scenario at the first look."""
    max_runs: int
    """the budget per scenario."""
    looks: tuple[int, ...]
    """candidate runs per escalated scenario at every look (the first included)."""
    alpha: float
    """the report's family-wise level."""
    alpha_first: float
    """the first look's level."""
    thresholds: tuple[float, ...]
    """per later look, the level each escalated scenario's test must reach."""
    lean: float
    """the combined p-value at or below which a scenario gets more runs."""
    scenarios: int
    """scenarios in the night (the Bonferroni divisor of the later looks)."""
    own_looks: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """scenario → its runs at every look, for the scenarios whose first look (their own ``runs:``)
    differs from ``first``."""


def escalation_plan(
    *,
    first: int,
    max_runs: int,
    alpha: float,
    scenarios: int,
    share: float = 0.2,
    lean: float = 0.2,
    later: int = 2,
) -> EscalationPlan:
    """The design for a night of ``scenarios`` scenarios at ``first`` runs, up to ``max_runs``.

    Raises:
        TrajguardError: ``max_runs`` is not above ``first``, or a level is out of range.
    """
    if max_runs <= first:
        raise TrajguardError(
            f"--max-runs ({max_runs}) must be above the runs per scenario ({first})",
            hint="e.g. --runs 20 --max-runs 60",
        )
    if not 0 < share < 1 or not 0 < lean < 1:
        raise TrajguardError(f"share and lean must be in (0, 1), got {share} and {lean}")
    step = math.ceil((max_runs - first) / max(later, 1))
    looks = tuple(sorted({first, *(min(first + k * step, max_runs) for k in range(1, later + 1))}))
    fractions = np.array([(n - first) / (max_runs - first) for n in looks[1:]])
    per_scenario = alpha * share / max(scenarios, 1)
    thresholds = tuple(float(x) for x in per_scenario * np.diff(np.r_[0.0, fractions]))
    return EscalationPlan(
        first=first,
        max_runs=max_runs,
        looks=looks,
        alpha=alpha,
        alpha_first=alpha * (1 - share),
        thresholds=thresholds,
        lean=lean,
        scenarios=scenarios,
    )


@dataclass(frozen=True, kw_only=True)
class EscalationLook:
    """One look at one scenario: its runs, its combined test's p-value and the level."""

    runs: int
    """candidate runs at this look."""
    p_value: float
    """its combined test's p-value on all its runs so far."""
    threshold: float
    """the level this look's test had to reach."""


@dataclass(frozen=True, kw_only=True)
class EscalationStop:
    """Where a scenario stopped and why."""

    scenario: str
    """the scenario."""
    runs: int
    """candidate runs it spent."""
    reason: str
    """why it stopped, in words."""
    regressed: tuple[str, ...] = ()
    """the gating metrics that regressed where it stopped (empty: it did not)."""
    looks: tuple[EscalationLook, ...] = ()
    """its looks after the first."""


def leaning(first: Comparison, design: EscalationPlan) -> dict[str, EscalationStop | None]:
    """After the first look: a stop for each scenario that is done, ``None`` for the ones that
    get more runs (not regressed, combined p-value at most ``lean``)."""
    out: dict[str, EscalationStop | None] = {}
    for s in first.scenarios:
        regressed = _regressed_metrics(s, first.config.two_sided)
        if regressed:
            out[s.scenario] = EscalationStop(
                scenario=s.scenario,
                runs=s.runs_candidate,
                reason="decided at the first look",
                regressed=regressed,
            )
        elif s.gate is not None and s.gate.metrics and s.gate.p_value <= design.lean:
            out[s.scenario] = None
        else:
            p = "—" if s.gate is None else f"{s.gate.p_value:.2g}"
            out[s.scenario] = EscalationStop(
                scenario=s.scenario,
                runs=s.runs_candidate,
                reason=f"quiet at the first look (combined p {p} > {design.lean:g})",
            )
    return out


_DECIDED = (Verdict.REGRESSED, Verdict.CHANGED, Verdict.IMPROVED)


def _regressed_metrics(s: ScenarioResult, two_sided: bool) -> tuple[str, ...]:
    """The gating metrics that decided the scenario: regressed (nightly), or any difference
    beyond the band (A/B, two-sided)."""
    decided = _DECIDED if two_sided else (Verdict.REGRESSED,)
    return tuple(m.metric for m in s.metrics if m.kind == "gating" and m.verdict in decided)


def later_look(
    scenario: ScenarioResult,
    design: EscalationPlan,
    look: int,
    history: tuple[EscalationLook, ...],
    *,
    two_sided: bool = False,
) -> tuple[EscalationStop | None, tuple[EscalationLook, ...]]:
    """Decide an escalated scenario at later look ``look`` (1-based index into ``design.looks``)
    from its comparison on all its runs so far (made at the nominal alpha, one scenario)."""
    gate = scenario.gate
    threshold = design.thresholds[look - 1]
    p = 1.0 if gate is None else gate.p_value
    seen = (*history, EscalationLook(runs=scenario.runs_candidate, p_value=p, threshold=threshold))
    regressed = _regressed_metrics(scenario, two_sided)
    if p <= threshold and regressed:
        word = "different" if two_sided else "regressed"
        reason = f"{word} at look {look + 1} (combined p {p:.2g} ≤ {threshold:.2g})"
        return EscalationStop(
            scenario=scenario.scenario,
            runs=scenario.runs_candidate,
            reason=reason,
            regressed=regressed,
            looks=seen,
        ), seen
    if p > design.lean:
        reason = f"no longer leaning harmful at look {look + 1} (combined p {p:.2g})"
        return EscalationStop(
            scenario=scenario.scenario, runs=scenario.runs_candidate, reason=reason, looks=seen
        ), seen
    if look >= len(design.looks) - 1:
        budget = counted(design.max_runs, "run")
        reason = f"budget of {budget} reached (combined p {p:.2g} > {threshold:.2g})"
        return EscalationStop(
            scenario=scenario.scenario, runs=scenario.runs_candidate, reason=reason, looks=seen
        ), seen
    return None, seen
