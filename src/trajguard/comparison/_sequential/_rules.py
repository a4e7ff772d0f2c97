"""The sequential stopping rules: the looks' schedule, each look's decision per scenario
(:func:`decide_look` nightly, one-sided; :func:`decide_ab_look` for A/B) and the record of what
the looks decided (:class:`SequentialOutcome`). The method is the package docstring's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from trajguard import stats as st
from trajguard.comparison._config import CompareConfig
from trajguard.stats import (
    Action,
    combine,
    obf_thresholds,
    rate_can_still_regress,
    rate_thresholds,
    sequential_decision,
)

if TYPE_CHECKING:  # the record (SequentialOutcome) is read without the computing modules
    from trajguard.comparison._arms import Arm

__all__ = [
    "Decision",
    "LookRecord",
    "SequentialOutcome",
    "SequentialRecord",
    "Stop",
    "decide_ab_look",
    "decide_look",
    "gate_metrics",
    "gating_alpha",
    "schedule",
]

_RATES = ("pass_rate", "crash_rate")


def schedule(max_runs: int, looks: int = 3) -> tuple[int, ...]:
    """Candidate runs per scenario at each look: about ``max_runs * i / looks``."""
    if max_runs < looks:
        return (max_runs,)
    return tuple(math.ceil(max_runs * (i + 1) / looks) for i in range(looks))


def gate_metrics(config: CompareConfig) -> tuple[str, ...]:
    """The gating metrics that can regress (directional ones), in report order."""
    from trajguard.comparison._registry import DIRECTIONAL

    return tuple(m for m in config.metrics if m in config.gating and m in DIRECTIONAL)


def gating_alpha(alpha: float, scenarios: int, metrics: int = 2) -> float:
    """Bonferroni share of each gating test (Holm needs every p-value at once)."""
    return alpha / max(1, scenarios * metrics)


@dataclass(frozen=True, kw_only=True)
class Decision:
    """A scenario's action after a look, with what decided it."""

    action: Action
    """the action."""
    metrics: tuple[str, ...] = ()
    """the gating metrics that crossed their threshold outside the band (regressed)."""
    detail: str = ""
    """words for the report, e.g. the direction of an A/B difference."""

    @property
    def label(self) -> str:
        """The action with its detail."""
        return f"{self.action.value} ({self.detail})" if self.detail else self.action.value


@dataclass(frozen=True, kw_only=True)
class LookRecord:
    """What one look decided: scenario → action."""

    look: int
    """the look's index (0-based)."""
    runs: int
    """candidate runs per scenario at this look."""
    decisions: Mapping[str, str]
    """scenario → the action decided (``stop: regressed``, ``continue``, …)."""


@dataclass(frozen=True, kw_only=True)
class Stop:
    """Where a scenario stopped: candidate runs made and the decision."""

    runs: int
    """candidate runs it had when it stopped."""
    decision: Decision
    """the decision that stopped it."""


@dataclass(frozen=True, kw_only=True)
class SequentialOutcome:
    """The whole sequential run."""

    max_runs: int
    """maximum candidate runs per scenario (per variant for A/B)."""
    plan: tuple[int, ...]
    """runs per scenario at each look."""
    alpha: float
    """one-sided level of each test (per direction for A/B)."""
    gating: tuple[str, ...] = _RATES
    """the metrics the rule tested."""
    variants: tuple[str, str] | None = None
    """the A/B variants (A, B); ``None`` for the nightly regression gate."""
    looks: tuple[LookRecord, ...] = ()
    """what each look decided."""
    stopped: Mapping[str, Stop] = field(default_factory=dict)
    """scenario → where it stopped."""
    own_plans: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """scenario → its runs at each look, for the scenarios whose runs (their own ``runs:``) differ
    from ``max_runs``."""

    def plan_of(self, scenario: str) -> tuple[int, ...]:
        """A scenario's runs at each look (its own plan, else :attr:`plan`)."""
        return self.own_plans.get(scenario, self.plan)

    @property
    def regressed(self) -> bool:
        """Some scenario stopped "regressed"."""
        return any(s.decision.action is Action.STOP_REGRESSED for s in self.stopped.values())

    def runs_used(self) -> int:
        """Candidate runs made, over all scenarios."""
        return sum(s.runs for s in self.stopped.values())

    def runs_planned(self) -> int:
        """Candidate runs the plans allowed, over the scenarios that stopped."""
        return sum(self.plan_of(s)[-1] for s in self.stopped)

    def stop_look(self, scenario: str) -> int:
        """The look (0-based) at which a scenario stopped (the last if it never did)."""
        return next(
            (
                r.look
                for r in self.looks
                if scenario in r.decisions and r.decisions[scenario] != Action.CONTINUE.value
            ),
            len(self.plan_of(scenario)) - 1,
        )


@dataclass(frozen=True, kw_only=True)
class SequentialRecord:
    """The document's record of a sequential design."""

    name: Literal["sequential"] = "sequential"
    """the design's tag."""
    unit: str = "runs"
    """what a run count counts (``runs``, or ``runs per variant`` in an A/B)."""
    outcome: SequentialOutcome
    """the plan, the looks and the stops."""


def _rate(arm: Arm, crashes: bool) -> tuple[int, int]:
    values = arm.crashed if crashes else arm.passed
    return int(values.sum()), int(values.size)


def _decide_metric(
    name: str,
    arm_b: Arm,
    arm_c: Arm,
    *,
    scenario: str,
    look: int,
    plan: tuple[int, ...],
    alpha: float,
    config: CompareConfig,
) -> Action:
    from trajguard.comparison._compare import evaluate_metric
    from trajguard.comparison._registry import metric

    last = look >= len(plan) - 1
    ev = evaluate_metric(name, arm_b, arm_c, config=config, scenario=scenario)
    if not ev.testable:
        return Action.STOP_NO_REGRESSION if last else Action.CONTINUE
    alive = True
    if name in _RATES:
        crashes = name == "crash_rate"
        (x_b, n_b), (x_c, n_c) = _rate(arm_b, crashes), _rate(arm_c, crashes)
        thresholds = rate_thresholds(alpha, n_b, plan)
        later = [n for n in plan if n > n_c]
        alive = bool(later) and (
            not st.boschloo_feasible(n_b, max(later))
            or rate_can_still_regress(
                x_b,
                n_b,
                x_c,
                n_c,
                later_n_c=later,
                later_thresholds=thresholds[len(plan) - len(later) :],
                higher_is_better=not crashes,
            )
        )
    else:
        thresholds = obf_thresholds(alpha, [n / plan[-1] for n in plan])
    return sequential_decision(
        min(look, len(plan) - 1),
        ev.harm,
        thresholds=thresholds,
        candidate_no_worse=metric(name).no_worse(ev.estimate),
        can_still_regress=alive or last,
        outside_tolerance=ev.outside,
    )


def decide_look(
    baseline: Mapping[str, Arm],
    candidate: Mapping[str, Arm],
    *,
    look: int,
    plan: tuple[int, ...],
    alpha: float,
    config: CompareConfig | None = None,
) -> dict[str, Decision]:
    """One look's decision per scenario of the candidate (regression gate, one-sided).

    Args:
        baseline: baseline arms by scenario.
        candidate: the candidate's arms so far (active scenarios only).
        look: index of this look (0-based).
        plan: candidate runs per scenario at each look.
        alpha: one-sided level of each gating test (:func:`gating_alpha`).
        config: gating metrics and tolerance bands (per scenario); defaults to
            :class:`CompareConfig`.
    """
    config = config or CompareConfig()
    from trajguard.comparison._registry import metric

    metrics = gate_metrics(config)
    decisions: dict[str, Decision] = {}
    for scenario, arm_c in candidate.items():
        arm_b = baseline.get(scenario)
        if arm_b is None:
            decisions[scenario] = Decision(action=Action.STOP_NO_REGRESSION, detail="no baseline")
            continue
        actions = {
            m: _decide_metric(
                m,
                arm_b,
                arm_c,
                scenario=scenario,
                look=look,
                plan=plan,
                alpha=alpha,
                config=config,
            )
            for m in metrics
        }
        action = combine(actions.values()) if actions else Action.STOP_NO_REGRESSION
        crossed = tuple(m for m, a in actions.items() if a is Action.STOP_REGRESSED)
        detail = ", ".join(metric(m).label for m in crossed)
        decisions[scenario] = Decision(action=action, metrics=crossed, detail=detail)
    return decisions


def decide_ab_look(
    arms_a: Mapping[str, Arm],
    arms_b: Mapping[str, Arm],
    variants: tuple[str, str],
    *,
    look: int,
    plan: tuple[int, ...],
    alpha: float,
) -> dict[str, Decision]:
    """One A/B look's decision per scenario: stop on a clear pass-rate difference either way.

    ``alpha`` is the two-sided level per scenario: each direction is tested at the
    O'Brien-Fleming thresholds of ``alpha / 2``. At the last look a scenario stops "different"
    if a threshold is crossed, "no difference detected" otherwise.
    """
    a, b = variants
    thresholds = obf_thresholds(alpha / 2, [n / plan[-1] for n in plan])
    look = min(look, len(plan) - 1)
    decisions = {}
    for scenario in sorted(arms_a.keys() & arms_b.keys()):
        x_a, n_a = _rate(arms_a[scenario], False)
        x_b, n_b = _rate(arms_b[scenario], False)
        if n_a and n_b:
            sides: dict[Literal["greater", "less"], str] = {"greater": "lower", "less": "higher"}
            for side, word in sides.items():
                if st.boschloo_pvalue(x_a, n_a, x_b, n_b, side) <= thresholds[look]:
                    detail = f"{b} {word} pass rate than {a}: {x_b}/{n_b} vs {x_a}/{n_a}"
                    decisions[scenario] = Decision(
                        action=Action.STOP_DIFFERENT, metrics=("pass_rate",), detail=detail
                    )
            if scenario in decisions:
                continue
        last = look >= len(plan) - 1
        decisions[scenario] = Decision(
            action=Action.STOP_NO_DIFFERENCE if last else Action.CONTINUE
        )
    return decisions
