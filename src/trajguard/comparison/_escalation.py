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

:class:`EscalationDesign` is the design's object: after the first look it keeps that look's
comparison (:func:`leaning` chooses the scenarios that go on, the suite-level verdicts are that
look's) and after each later look it tests each escalated scenario alone (:func:`later_look`).
A/B (``two_sided``) escalates the scenarios that lean towards any difference. Its record is the
plan and the stops.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from trajguard._text import counted
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._designs import Look, decided_by_design
from trajguard.comparison._results import Comparison, ScenarioResult
from trajguard.comparison._verdicts import Verdict
from trajguard.errors import TrajguardError, UsageError

if TYPE_CHECKING:  # the records (EscalationPlan, EscalationStop) are read without pandas
    import pandas as pd

__all__ = [
    "EscalationDesign",
    "EscalationLook",
    "EscalationPlan",
    "EscalationRecord",
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


@dataclass(frozen=True, kw_only=True)
class EscalationRecord:
    """The document's record of an escalation design."""

    name: Literal["escalation"] = "escalation"
    """the design's tag."""
    unit: str = "runs"
    """what a run count counts (``runs``, or ``runs per variant`` in an A/B)."""
    plan: EscalationPlan
    """its looks, levels and lean rule."""
    stops: tuple[EscalationStop, ...] = ()
    """where each scenario stopped, and why (in the order decided)."""


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


class EscalationDesign:
    """A first look at each scenario's runs, then more runs for the scenarios that lean
    harmful, up to a budget.

    Args:
        runs: scenario → its candidate runs at the first look (per variant for A/B): its runs
            under the one rule (:func:`trajguard.suite.runs_per_scenario`).
        max_runs: the budget per scenario.
        config: comparison settings (``alpha`` is the report's whole level).

    Raises:
        UsageError: a scenario whose runs are not below ``max_runs``.
    """

    def __init__(self, *, runs: Mapping[str, int], max_runs: int, config: CompareConfig) -> None:
        counts = Counter(runs.values())
        common = max(counts, key=lambda n: (counts[n], n), default=1)
        for scenario, n in runs.items():
            if n >= max_runs:
                raise UsageError(
                    f"--max-runs ({max_runs}) must be above the runs per scenario: scenario "
                    f"{scenario} has {n}, so escalation could never give it more",
                    hint=f"raise --max-runs above {max(runs.values())} (e.g. --runs 20 "
                    "--max-runs 60), or lower the scenario's runs:",
                )

        def plan_from(first: int) -> EscalationPlan:
            return escalation_plan(
                first=first, max_runs=max_runs, alpha=config.alpha, scenarios=len(runs)
            )

        main = plan_from(common)
        self._plans = {s: main if n == common else plan_from(n) for s, n in runs.items()}
        own = {s: p.looks for s, p in self._plans.items() if p is not main}
        self.plan: EscalationPlan = replace(main, own_looks=own)
        self._looks = max(len(p.looks) for p in self._plans.values()) if runs else 1
        self._config = config
        self.first_look: Comparison | None = None
        self.stops: dict[str, EscalationStop] = {}
        self._active: list[str] = []
        self._seen: dict[str, tuple[EscalationLook, ...]] = {}
        # One scenario at a time, resolved finely enough for the later looks' small thresholds.
        finest = min(t for p in self._plans.values() for t in p.thresholds) if runs else 1.0
        resampling = replace(
            config.resampling,
            max_resamples=max(config.resampling.max_resamples, math.ceil(20 / finest)),
        )
        self._single = replace(config, suite_share=0.0, resampling=resampling)

    @property
    def name(self) -> str:
        """``escalation``."""
        return "escalation"

    def record(self, *, unit: str) -> EscalationRecord:
        """Its record in the document: the plan, and where each scenario stopped (in the order
        decided)."""
        return EscalationRecord(unit=unit, plan=self.plan, stops=tuple(self.stops.values()))

    def _label(self, index: int) -> str:
        return f"look {index + 1}/{self._looks}"

    def _runs_at(self, scenario: str, index: int) -> int:
        looks = self._plans[scenario].looks
        return looks[min(index, len(looks) - 1)]

    def first(self) -> Look:
        """Every scenario of the batch at its runs."""
        return Look(
            index=0, runs={s: p.first for s, p in self._plans.items()}, label=self._label(0)
        )

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """After the first look, choose the scenarios that go on; after a later one, decide
        each of them alone."""
        from trajguard.comparison._compare import compare_runsets

        if look.index == 0:
            first = compare_runsets(
                baseline, candidate, config=replace(self._config, alpha=self.plan.alpha_first)
            )
            self.first_look = first
            decided = leaning(first, self.plan)
            self.stops = {s: stop for s, stop in decided.items() if stop is not None}
            self._active = [s for s, stop in decided.items() if stop is None]
            self._seen = {s: () for s in self._active}
        else:
            still = []
            for scenario in self._active:
                b = baseline[baseline["scenario"] == scenario]
                c = candidate[candidate["scenario"] == scenario]
                result = compare_runsets(b, c, config=self._single).scenario(scenario)
                stop, self._seen[scenario] = later_look(
                    result,
                    self._plans.get(scenario, self.plan),
                    look.index,
                    self._seen[scenario],
                    two_sided=self._config.two_sided,
                )
                if stop is None:
                    still.append(scenario)
                else:
                    self.stops[scenario] = stop
            self._active = still
        following = look.index + 1
        if not self._active or following >= self._looks:
            return None
        return Look(
            index=following,
            runs={s: self._runs_at(s, following) for s in self._active},
            label=self._label(following),
        )

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """The first look's level: every scenario was tested there at ``alpha_first``."""
        return replace(config, alpha=self.plan.alpha_first)

    def settle(self, comparison: Comparison) -> Comparison:
        """A gating metric is significant exactly when its scenario stopped on it; the suite
        level keeps the first look's verdicts (it is tested only there)."""
        reasons = {
            s: f"{stop.runs} candidate runs, {stop.reason}" for s, stop in self.stops.items()
        }
        first = self.first_look
        suite = first.family.suite if first is not None and first.family is not None else ()
        return decided_by_design(
            comparison,
            design="escalation",
            decided={s: stop.regressed for s, stop in self.stops.items()},
            reasons=reasons,
            note_every_metric=True,
            suite=suite,
        )
