"""The sequential design (docs/explanation/statistics.md §4), an object of the design protocol.

The rules it applies after each look are :func:`trajguard.compare._sequential.decide_look`
(nightly, one-sided) and :func:`~trajguard.compare._sequential.decide_ab_look` (A/B).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from trajguard.compare._arms import Arm, split_runs
from trajguard.compare._config import CompareConfig
from trajguard.compare._designs import Look, decided_by_design
from trajguard.compare._results import Comparison
from trajguard.compare._sequential import (
    Decision,
    LookRecord,
    SequentialOutcome,
    Stop,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
)
from trajguard.stats import Action

__all__ = ["SequentialDesign"]


class SequentialDesign:
    """The sequential design as an object of the one design protocol
    (:class:`trajguard.compare.Design`): the nightly regression gate, or with ``variants`` the
    A/B rule. Its record is :attr:`outcome`.

    Args:
        max_runs: candidate runs per scenario at the last look (per variant for A/B).
        scenarios: the scenarios of the batch.
        config: the gating metrics, alpha and tolerance bands.
        variants: the A/B variants (A, B); ``None`` for the nightly regression gate.
    """

    def __init__(
        self,
        *,
        max_runs: int,
        scenarios: Sequence[str],
        config: CompareConfig,
        variants: tuple[str, str] | None = None,
    ) -> None:
        self._config = config
        self._active = list(scenarios)
        self._base_arms: Mapping[str, Arm] | None = None
        plan = schedule(max_runs)
        if variants is None:
            metrics = gate_metrics(config)
            self._alpha = gating_alpha(config.alpha, len(scenarios), len(metrics))
            self.outcome = SequentialOutcome(
                max_runs=max_runs, plan=plan, alpha=self._alpha, gating=metrics
            )
        else:
            self._alpha = config.alpha / max(1, len(scenarios))
            self.outcome = SequentialOutcome(
                max_runs=max_runs,
                plan=plan,
                alpha=self._alpha / 2,
                gating=("pass_rate",),
                variants=variants,
            )

    @property
    def name(self) -> str:
        """``sequential``."""
        return "sequential"

    def _look(self, index: int) -> Look:
        plan = self.outcome.plan
        return Look(
            index=index,
            runs=plan[index],
            scenarios=tuple(self._active),
            label=f"look {index + 1}/{len(plan)}",
        )

    def first(self) -> Look:
        """The first look: every scenario at about N/3."""
        return self._look(0)

    def _decide(
        self, look: int, baseline: pd.DataFrame, candidate: pd.DataFrame
    ) -> dict[str, Decision]:
        statuses, plan = self._config.crash_statuses, self.outcome.plan
        variants = self.outcome.variants
        if variants is not None:
            arms_a = split_runs(baseline, crash_statuses=statuses, side=variants[0])
            arms_b = split_runs(candidate, crash_statuses=statuses, side=variants[1])
            found = decide_ab_look(
                arms_a, arms_b, variants, look=look, plan=plan, alpha=self._alpha
            )
            return {s: found.get(s, Decision(action=Action.CONTINUE)) for s in self._active}
        if self._base_arms is None:
            self._base_arms = split_runs(baseline, crash_statuses=statuses, side="baseline")
        arms = split_runs(candidate, crash_statuses=statuses, side="candidate")
        current = {s: arms[s] for s in self._active if s in arms}
        return decide_look(
            self._base_arms, current, look=look, plan=plan, alpha=self._alpha, config=self._config
        )

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """Stop the scenarios that are decided; the next look for the others."""
        decisions = self._decide(look.index, baseline, candidate)
        runs = self.outcome.plan[look.index]
        record = LookRecord(
            look=look.index, runs=runs, decisions={s: d.action.value for s, d in decisions.items()}
        )
        stopped = dict(self.outcome.stopped)
        for scenario, decision in decisions.items():
            if decision.action is not Action.CONTINUE:
                stopped[scenario] = Stop(runs=runs, decision=decision)
        self.outcome = replace(self.outcome, looks=(*self.outcome.looks, record), stopped=stopped)
        waiting = Decision(action=Action.CONTINUE)
        self._active = [
            s for s in self._active if decisions.get(s, waiting).action is Action.CONTINUE
        ]
        if not self._active or look.index + 1 >= len(self.outcome.plan):
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
