"""The sequential design (docs/explanation/statistics.md §4), an object of the design protocol.

The rules it applies after each look are :func:`~trajguard.comparison._sequential.decide_look`
(nightly, one-sided) and :func:`~trajguard.comparison._sequential.decide_ab_look` (A/B); its
record is a :class:`~trajguard.comparison._sequential.SequentialOutcome`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from trajguard.comparison._config import CompareConfig
from trajguard.comparison._designs import Look, decided_by_design
from trajguard.comparison._results import Comparison
from trajguard.comparison._sequential._rules import (
    Decision,
    LookRecord,
    SequentialOutcome,
    SequentialRecord,
    Stop,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
)
from trajguard.stats import Action

if TYPE_CHECKING:  # the record (SequentialOutcome) is read without pandas and the arms
    import pandas as pd

    from trajguard.comparison._arms import Arm

__all__ = ["SequentialDesign"]


class SequentialDesign:
    """The sequential design as an object of the one design protocol
    (:class:`trajguard.comparison.Design`): the nightly regression gate, or with ``variants`` the
    A/B rule. Its record is :attr:`outcome`.

    Each scenario's looks spread its own runs (:func:`trajguard.suite.runs_per_scenario`) over
    up to three looks (:func:`~trajguard.comparison._sequential.schedule`), and each is tested at
    the thresholds of its own plan.

    Args:
        runs: scenario → its candidate runs at the last look (per variant for A/B).
        config: the gating metrics, alpha and tolerance bands.
        variants: the A/B variants (A, B); ``None`` for the nightly regression gate.
    """

    def __init__(
        self,
        *,
        runs: Mapping[str, int],
        config: CompareConfig,
        variants: tuple[str, str] | None = None,
    ) -> None:
        self._config = config
        self._active = list(runs)
        counts = Counter(runs.values())
        common = max(counts, key=lambda n: (counts[n], n), default=0)
        plan = schedule(common)
        own = {s: schedule(n) for s, n in runs.items() if n != common}
        self._looks = max((len(schedule(n)) for n in runs.values()), default=1)
        self._base_arms: Mapping[str, Arm] | None = None
        if variants is None:
            metrics = gate_metrics(config)
            self._alpha = gating_alpha(config.alpha, len(runs), len(metrics))
            self.outcome = SequentialOutcome(
                max_runs=common, plan=plan, alpha=self._alpha, gating=metrics, own_plans=own
            )
        else:
            self._alpha = config.alpha / max(1, len(runs))
            self.outcome = SequentialOutcome(
                max_runs=common,
                plan=plan,
                alpha=self._alpha / 2,
                gating=("pass_rate",),
                variants=variants,
                own_plans=own,
            )

    @property
    def name(self) -> str:
        """``sequential``."""
        return "sequential"

    def record(self, *, unit: str) -> SequentialRecord:
        """Its record in the document: the plan, the looks and the stops (:attr:`outcome`)."""
        return SequentialRecord(unit=unit, outcome=self.outcome)

    def _runs_at(self, scenario: str, index: int) -> int:
        plan = self.outcome.plan_of(scenario)
        return plan[min(index, len(plan) - 1)]

    def _look(self, index: int) -> Look:
        return Look(
            index=index,
            runs={s: self._runs_at(s, index) for s in self._active},
            label=f"look {index + 1}/{self._looks}",
        )

    def first(self) -> Look:
        """The first look: every scenario at about a third of its runs."""
        return self._look(0)

    def _decide(
        self, look: int, baseline: pd.DataFrame, candidate: pd.DataFrame
    ) -> dict[str, Decision]:
        from trajguard.comparison._arms import split_runs

        statuses, variants = self._config.crash_statuses, self.outcome.variants
        by_plan: dict[tuple[int, ...], list[str]] = {}
        for scenario in self._active:
            by_plan.setdefault(self.outcome.plan_of(scenario), []).append(scenario)
        found: dict[str, Decision] = {}
        if variants is not None:
            arms_a = split_runs(baseline, crash_statuses=statuses, side=variants[0])
            arms_b = split_runs(candidate, crash_statuses=statuses, side=variants[1])
            for plan, group in by_plan.items():
                found |= decide_ab_look(
                    {s: arms_a[s] for s in group if s in arms_a},
                    {s: arms_b[s] for s in group if s in arms_b},
                    variants,
                    look=look,
                    plan=plan,
                    alpha=self._alpha,
                )
            return {s: found.get(s, Decision(action=Action.CONTINUE)) for s in self._active}
        if self._base_arms is None:
            self._base_arms = split_runs(baseline, crash_statuses=statuses, side="baseline")
        arms = split_runs(candidate, crash_statuses=statuses, side="candidate")
        for plan, group in by_plan.items():
            found |= decide_look(
                self._base_arms,
                {s: arms[s] for s in group if s in arms},
                look=look,
                plan=plan,
                alpha=self._alpha,
                config=self._config,
            )
        return found

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """Stop the scenarios that are decided; the next look for the others."""
        decisions = self._decide(look.index, baseline, candidate)
        plan = self.outcome.plan
        record = LookRecord(
            look=look.index,
            runs=plan[min(look.index, len(plan) - 1)],
            decisions={s: d.action.value for s, d in decisions.items()},
        )
        stopped = dict(self.outcome.stopped)
        for scenario, decision in decisions.items():
            if decision.action is not Action.CONTINUE:
                stopped[scenario] = Stop(
                    runs=self._runs_at(scenario, look.index), decision=decision
                )
        self.outcome = replace(self.outcome, looks=(*self.outcome.looks, record), stopped=stopped)
        waiting = Decision(action=Action.CONTINUE)
        self._active = [
            s for s in self._active if decisions.get(s, waiting).action is Action.CONTINUE
        ]
        if not self._active or look.index + 1 >= self._looks:
            return None
        return self._look(look.index + 1)

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """No suite-level tests: the looks' thresholds spend the whole alpha on the scenarios."""
        return replace(config, suite_share=0.0)

    def settle(self, comparison: Comparison) -> Comparison:
        """A gating metric is significant exactly when its scenario stopped on it."""
        decided: dict[str, tuple[str, ...]] = {}
        reasons: dict[str, str] = {}
        for scenario, stop in self.outcome.stopped.items():
            look = self.outcome.stop_look(scenario)
            reasons[scenario] = f"{stop.decision.label} at look {look + 1}"
            if stop.decision.action in (Action.STOP_REGRESSED, Action.STOP_DIFFERENT):
                decided[scenario] = stop.decision.metrics
        return decided_by_design(
            comparison, design="sequential", decided=decided, reasons=reasons, suite=()
        )
